#include "harness/report/summary_markdown.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/report/result_matrix.h"

namespace gh {
namespace {

constexpr size_t kMaxSignatureChars = 160;

std::string Clip(const std::string& text) {
  if (text.size() <= kMaxSignatureChars) return text;
  return text.substr(0, kMaxSignatureChars - 3) + "...";
}

void AppendTable(std::string& out, const std::vector<std::string>& headers,
                 const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::string> escaped;
  for (const std::string& header : headers) escaped.push_back(EscapeMarkdownCell(header));
  absl::StrAppend(&out, "| ", absl::StrJoin(escaped, " | "), " |\n|");
  for (size_t i = 0; i < headers.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& row : rows) {
    escaped.clear();
    for (const std::string& cell : row) escaped.push_back(EscapeMarkdownCell(cell));
    absl::StrAppend(&out, "| ", absl::StrJoin(escaped, " | "), " |\n");
  }
  out += "\n";
}

std::string CellOf(const PointComparison& entry, const SweepInfo* sweep) {
  const PointTrials& trials = entry.now ? *entry.now : *entry.baseline;
  std::string label = CellDisplayLabel(trials.cell, sweep);
  return label.empty() ? "-" : label;
}

std::string SignatureOf(const PointTrials& trials) {
  if (trials.failed > 0) return Clip(trials.first_failure_signature);
  if (trials.skipped > 0) return Clip(trials.skip_reason);
  return "";
}

// A section listing the entries `select` keeps; nothing when it keeps none.
void AppendEntrySection(std::string& out, const std::string& title, const Comparison& comparison,
                        const SweepInfo* sweep, const std::function<bool(const PointComparison&)>& select,
                        const std::vector<std::string>& headers,
                        const std::function<std::vector<std::string>(const PointComparison&)>& columns) {
  std::vector<std::vector<std::string>> rows;
  for (const PointComparison& entry : comparison.points) {
    if (!select(entry)) continue;
    std::vector<std::string> row = {CellOf(entry, sweep), entry.key.point};
    for (std::string& value : columns(entry)) row.push_back(std::move(value));
    rows.push_back(std::move(row));
  }
  if (rows.empty()) return;
  absl::StrAppend(&out, "## ", title, " (", rows.size(), ")\n\n");
  std::vector<std::string> all_headers = {"cell", "point"};
  all_headers.insert(all_headers.end(), headers.begin(), headers.end());
  AppendTable(out, all_headers, rows);
}

// The entry as a table cell: text, then what the comparison adds; regressions in bold.
std::string EntryMarkdown(const PointComparison& entry) {
  std::string text = EscapeMarkdownCell(TrialsText(*entry.now));
  std::string note = EntryAnnotation(entry);
  if (!note.empty()) absl::StrAppend(&text, " (", EscapeMarkdownCell(note), ")");
  if (entry.change == BaselineChange::kRegression) text = absl::StrCat("**", text, "**");
  return text;
}

void AppendMatrix(std::string& out, const ScenarioMatrix& matrix) {
  absl::StrAppend(&out, "## ", EscapeMarkdownCell(matrix.scenario), " (", EscapeMarkdownCell(matrix.kind), ")\n\n");
  std::vector<std::string> headers = matrix.row_headers;
  headers.insert(headers.end(), matrix.columns.begin(), matrix.columns.end());
  std::vector<std::string> escaped;
  for (const std::string& header : headers) escaped.push_back(EscapeMarkdownCell(header));
  absl::StrAppend(&out, "| ", absl::StrJoin(escaped, " | "), " |\n|");
  for (size_t i = 0; i < headers.size(); ++i) out += "---|";
  out += "\n";
  for (const MatrixRow& row : matrix.rows) {
    std::vector<std::string> cells;
    for (const std::string& label : row.labels) cells.push_back(EscapeMarkdownCell(label));
    for (const PointComparison* entry : row.entries) cells.push_back(entry == nullptr ? "-" : EntryMarkdown(*entry));
    absl::StrAppend(&out, "| ", absl::StrJoin(cells, " | "), " |\n");
  }
  out += "\n";

  const std::string metric_name = HeadlineMetricName(matrix);
  if (metric_name.empty()) return;
  absl::StrAppend(&out, metric_name == "bandwidth_GBps" ? "Bandwidth" : "Median time",
                  " (median over passing trials):\n\n");
  std::vector<std::vector<std::string>> rows;
  for (const MatrixRow& row : matrix.rows) {
    std::vector<std::string> cells = row.labels;
    for (const PointComparison* entry : row.entries) {
      const Metric* metric = entry == nullptr ? nullptr : entry->now->FindMetric(metric_name);
      cells.push_back(metric == nullptr ? "-" : FormatMetric(*metric));
    }
    rows.push_back(std::move(cells));
  }
  AppendTable(out, headers, rows);
}

void AppendEnvironment(std::string& out, const std::vector<LabeledEnvironment>& environments) {
  EnvironmentTable table = SummarizeEnvironments(environments);
  if (table.empty()) return;
  out += "## Environment\n\n";
  AppendTable(out, table.headers, table.rows);
  if (!table.common_env.empty()) {
    out += "Variables in force:\n\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& [name, value] : table.common_env) rows.push_back({name, value});
    AppendTable(out, {"variable", "value"}, rows);
  }
  if (!table.varying_env_rows.empty()) {
    out += "Variables that differ between cells:\n\n";
    AppendTable(out, table.varying_env_headers, table.varying_env_rows);
  }
}

}  // namespace

std::string EscapeMarkdownCell(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '|': out += "\\|"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '\n':
      case '\r': out += ' '; break;
      default: out += c;
    }
  }
  return out;
}

std::string RenderSummaryMarkdown(const ReportInput& input) {
  const Comparison& comparison = *input.comparison;
  const SweepInfo* sweep = input.sweep;
  std::string out = absl::StrCat("# ", EscapeMarkdownCell(input.title), "\n\n**", EscapeMarkdownCell(ComparisonHeadline(comparison)),
                                 "**\n\n");
  if (sweep != nullptr) absl::StrAppend(&out, EscapeMarkdownCell(SweepShape(*sweep)), "\n\n");
  if (!input.baseline.empty()) absl::StrAppend(&out, "Baseline: ", EscapeMarkdownCell(input.baseline), "\n\n");

  if (sweep != nullptr) {
    std::vector<std::vector<std::string>> rows;
    for (const SweepCellInfo& cell : sweep->cells) {
      if (cell.status.empty() || cell.status == "done") continue;
      rows.push_back({CellDisplayLabel(cell.axes, sweep), cell.status, Clip(cell.detail)});
    }
    if (!rows.empty()) {
      absl::StrAppend(&out, "## Cells not run (", rows.size(), ")\n\n");
      AppendTable(out, {"cell", "status", "detail"}, rows);
    }
  }
  AppendEntrySection(
      out, "Unmet expectations", comparison, sweep, [](const PointComparison& e) { return !e.expectation_met(); },
      {"expected", "got", "signature"}, [](const PointComparison& e) {
        return std::vector<std::string>{e.now->expected.ToString(), TrialsText(*e.now),
                                        Clip(e.now->first_unmet_signature)};
      });
  auto change_is = [](BaselineChange change) {
    return [change](const PointComparison& e) { return e.change == change; };
  };
  auto before_after = [](const PointComparison& e) {
    return std::vector<std::string>{TrialsText(*e.baseline), TrialsText(*e.now), SignatureOf(*e.now)};
  };
  AppendEntrySection(out, "Regressions", comparison, sweep, change_is(BaselineChange::kRegression),
                     {"baseline", "now", "signature"}, before_after);
  AppendEntrySection(out, "Fixes", comparison, sweep, change_is(BaselineChange::kFix),
                     {"baseline", "now"}, [](const PointComparison& e) {
                       return std::vector<std::string>{TrialsText(*e.baseline), TrialsText(*e.now)};
                     });
  AppendEntrySection(out, "Changed signatures", comparison, sweep, change_is(BaselineChange::kChangedSignature),
                     {"baseline", "now", "signature"}, before_after);
  AppendEntrySection(out, "New points", comparison, sweep, change_is(BaselineChange::kNew), {"now"},
                     [](const PointComparison& e) { return std::vector<std::string>{TrialsText(*e.now)}; });
  AppendEntrySection(out, "Vanished points", comparison, sweep, change_is(BaselineChange::kVanished),
                     {"baseline"},
                     [](const PointComparison& e) { return std::vector<std::string>{TrialsText(*e.baseline)}; });

  for (const ScenarioMatrix& matrix : BuildScenarioMatrices(comparison, sweep)) AppendMatrix(out, matrix);
  AppendEnvironment(out, input.environments);
  return out;
}

}  // namespace gh
