#include "harness/report/summary_markdown.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_join.h"
#include "harness/report/evidence.h"
#include "harness/report/report_html.h"
#include "harness/report/report_sections.h"
#include "harness/report/result_matrix.h"

namespace gh {
namespace {

// Longer signatures and details are cut, so one huge error message cannot swamp the page.
constexpr size_t kMaxSignatureChars = 160;
// The lines of a rank's output (or stack) shown under an entry; the log has them all.
constexpr size_t kMaxEvidenceLines = 24;

// A fence longer than any run of backticks in `lines`, so no line can end the code block.
std::string FenceFor(const std::vector<std::string>& lines) {
  size_t longest = 0;
  for (const std::string& line : lines) {
    size_t run = 0;
    for (char c : line) {
      run = c == '`' ? run + 1 : 0;
      longest = std::max(longest, run);
    }
  }
  return std::string(std::max<size_t>(3, longest + 1), '`');
}

// One entry's evidence as a <details> block (open for what changed): in its summary the cell,
// the point, the first ranks' headline and the links to their logs; then each group of ranks
// with its last lines in a code block, and the job's log.
void AppendEvidence(std::string& out, const ReportInput& input, const PointComparison& entry, bool open) {
  const PointEvidence evidence = CollectEvidence(*entry.now, input.logs);
  if (evidence.empty()) return;
  const std::string cell = CellDisplayLabel(entry.now->cell, input.sweep);
  absl::StrAppend(&out, open ? "<details open>" : "<details>", "<summary><b>",
                  EscapeHtml(cell.empty() ? entry.key.point : absl::StrCat(cell, " :: ", entry.key.point)), "</b>");
  if (!evidence.trial.empty()) absl::StrAppend(&out, " (", EscapeHtml(evidence.trial), ")");
  if (!evidence.ranks.empty()) {
    absl::StrAppend(&out, " — ", EscapeHtml(evidence.ranks.front().Headline(/*with_signature=*/false)),
                    RankLogLinksHtml(input, evidence.ranks.front()));
  }
  if (!evidence.job_log.empty()) absl::StrAppend(&out, " · ", LogLinkHtml(input, evidence.job_log, "job log"));
  out += "</summary>\n\n";
  for (size_t g = 0; g < evidence.ranks.size(); ++g) {
    const RankEvidence& group = evidence.ranks[g];
    // The first group's headline is the summary's; its signature and detail are the row's.
    if (g > 0) absl::StrAppend(&out, EscapeMarkdownCell(group.Headline()), RankLogLinksHtml(input, group), "\n\n");
    if (g == 0 && !group.detail.empty()) absl::StrAppend(&out, EscapeMarkdownCell(group.detail), "\n\n");
    if (group.lines.empty()) continue;
    const std::vector<std::string> lines = EvidenceExcerpt(group, kMaxEvidenceLines);
    const std::string fence = FenceFor(lines);
    absl::StrAppend(&out, fence, "text\n", absl::StrJoin(lines, "\n"), "\n", fence, "\n\n");
  }
  out += "</details>\n\n";
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

// The entry as a table cell: text, then what the comparison adds; regressions in bold.
std::string EntryMarkdown(const PointComparison& entry) {
  std::string text = EscapeMarkdownCell(TrialsText(*entry.now));
  std::string note = EntryAnnotation(entry);
  if (!note.empty()) absl::StrAppend(&text, " (", EscapeMarkdownCell(note), ")");
  if (entry.change == BaselineChange::kRegression) text = absl::StrCat("**", text, "**");
  return text;
}

// Above this many rows, a scenario's tables show only the rows with something to read; the rows
// where every point passed plainly are counted in one line (a 1000-cell all-pass sweep reads
// "All 1000 cells pass every point.", not 1000 rows of "pass").
constexpr size_t kCollapseRowsAbove = 8;

bool RowIsPlainPass(const MatrixRow& row) {
  for (const PointComparison* entry : row.entries) {
    if (entry == nullptr || !entry->now->all_pass() || !EntryAnnotation(*entry).empty()) return false;
  }
  return true;
}

// "1000 cells" where rows are cells, else "12 rows (4 cells)".
std::string RowsText(const std::vector<const MatrixRow*>& rows) {
  std::vector<std::string> cells;
  for (const MatrixRow* row : rows) cells.push_back(row->cell_key);
  std::sort(cells.begin(), cells.end());
  const size_t distinct = std::unique(cells.begin(), cells.end()) - cells.begin();
  if (distinct == rows.size() && !(rows.size() == 1 && rows[0]->cell_key.empty())) {
    return absl::StrCat(rows.size(), rows.size() == 1 ? " cell" : " cells");
  }
  return absl::StrCat(rows.size(), rows.size() == 1 ? " row" : " rows", " (", distinct,
                      distinct == 1 ? " cell)" : " cells)");
}

std::string MedianText(std::vector<double> values, const std::string& unit) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  const double median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  return FormatMetric(Metric{"", median, unit});
}

// The headline metric per kept row; when rows were collapsed, then min, median and max over
// every row, so the collapsed cells' numbers are still there to read.
void AppendMetricTable(std::string& out, const ScenarioMatrix& matrix, const std::vector<std::string>& headers,
                       const std::vector<const MatrixRow*>& kept, bool collapsed) {
  const std::string metric_name = HeadlineMetricName(matrix);
  if (metric_name.empty()) return;
  absl::StrAppend(&out, metric_name == "bandwidth_GBps" ? "Bandwidth" : "Median time",
                  " (median over passing trials):\n\n");
  std::vector<std::vector<std::string>> rows;
  for (const MatrixRow* row : kept) {
    std::vector<std::string> cells = row->labels;
    for (const PointComparison* entry : row->entries) {
      const Metric* metric = entry == nullptr ? nullptr : entry->now->FindMetric(metric_name);
      cells.push_back(metric == nullptr ? "-" : FormatMetric(*metric));
    }
    rows.push_back(std::move(cells));
  }
  if (collapsed) {
    std::vector<std::vector<double>> values(matrix.columns.size());
    std::vector<std::string> units(matrix.columns.size());
    for (const MatrixRow& row : matrix.rows) {
      for (size_t c = 0; c < row.entries.size(); ++c) {
        const Metric* metric = row.entries[c] == nullptr ? nullptr : row.entries[c]->now->FindMetric(metric_name);
        if (metric == nullptr) continue;
        values[c].push_back(metric->value);
        units[c] = metric->unit;
      }
    }
    for (const char* statistic : {"min", "median", "max"}) {
      std::vector<std::string> cells(matrix.row_headers.size());
      if (!cells.empty()) cells[0] = absl::StrCat(statistic, " of ", matrix.rows.size());
      for (size_t c = 0; c < values.size(); ++c) {
        if (values[c].empty()) {
          cells.push_back("-");
        } else if (std::string(statistic) == "median") {
          cells.push_back(MedianText(values[c], units[c]));
        } else {
          auto [lo, hi] = std::minmax_element(values[c].begin(), values[c].end());
          cells.push_back(FormatMetric(Metric{"", std::string(statistic) == "min" ? *lo : *hi, units[c]}));
        }
      }
      rows.push_back(std::move(cells));
    }
  }
  AppendTable(out, headers, rows);
}

void AppendMatrix(std::string& out, const ScenarioMatrix& matrix) {
  absl::StrAppend(&out, "## ", EscapeMarkdownCell(matrix.scenario), " (", EscapeMarkdownCell(matrix.kind), ")\n\n");
  std::vector<std::string> headers = matrix.row_headers;
  headers.insert(headers.end(), matrix.columns.begin(), matrix.columns.end());
  std::vector<const MatrixRow*> kept, passed;
  const bool may_collapse = matrix.rows.size() > kCollapseRowsAbove;
  for (const MatrixRow& row : matrix.rows) (may_collapse && RowIsPlainPass(row) ? passed : kept).push_back(&row);
  if (kept.empty()) {
    absl::StrAppend(&out, "All ", RowsText(passed), " pass every point.\n\n");
  } else {
    std::vector<std::string> escaped;
    for (const std::string& header : headers) escaped.push_back(EscapeMarkdownCell(header));
    absl::StrAppend(&out, "| ", absl::StrJoin(escaped, " | "), " |\n|");
    for (size_t i = 0; i < headers.size(); ++i) out += "---|";
    out += "\n";
    for (const MatrixRow* row : kept) {
      std::vector<std::string> cells;
      for (const std::string& label : row->labels) cells.push_back(EscapeMarkdownCell(label));
      for (const PointComparison* entry : row->entries) cells.push_back(entry == nullptr ? "-" : EntryMarkdown(*entry));
      absl::StrAppend(&out, "| ", absl::StrJoin(cells, " | "), " |\n");
    }
    out += "\n";
    if (!passed.empty()) absl::StrAppend(&out, "The other ", RowsText(passed), " pass every point.\n\n");
  }
  AppendMetricTable(out, matrix, headers, kept, !passed.empty());
}

void AppendEnvironment(std::string& out, const std::vector<LabeledEnvironment>& environments) {
  const std::vector<EnvironmentSection> sections = EnvironmentSections(environments);
  if (sections.empty()) return;
  out += "## Environment\n\n";
  for (const EnvironmentSection& section : sections) {
    if (!section.caption.empty()) absl::StrAppend(&out, section.caption, "\n\n");
    AppendTable(out, section.headers, section.rows);
  }
}

}  // namespace

std::string EscapeMarkdownCell(std::string_view text) {
  return absl::StrReplaceAll(absl::string_view(text.data(), text.size()),
                             {{"\\", "\\\\"}, {"|", "\\|"}, {"<", "&lt;"}, {">", "&gt;"},
                              {"\n", " "}, {"\r", " "}});
}

std::string RenderSummaryMarkdown(const ReportInput& input) {
  const Comparison& comparison = *input.comparison;
  const SweepInfo* sweep = input.sweep;
  std::string out = absl::StrCat("# ", EscapeMarkdownCell(input.title), "\n\n**", EscapeMarkdownCell(ComparisonHeadline(comparison)),
                                 "**\n\n");
  const std::string ran = input.facts.Line();
  if (!ran.empty()) absl::StrAppend(&out, EscapeMarkdownCell(ran), "\n\n");
  if (sweep != nullptr) absl::StrAppend(&out, EscapeMarkdownCell(SweepShape(*sweep)), "\n\n");
  if (!input.baseline.empty()) absl::StrAppend(&out, input.BaselineLine(&EscapeMarkdownCell, "**not compared**"), "\n\n");

  for (const ReportSection& section : AttentionSections(comparison, sweep, kMaxSignatureChars)) {
    absl::StrAppend(&out, "## ", section.title, " (", section.rows.size(), ")\n\n");
    AppendTable(out, section.headers, section.rows);
    if (!section.with_evidence) continue;
    for (size_t row = 0; row < section.rows.size(); ++row) {
      if (const PointComparison* entry = section.EntryOfRow(row)) AppendEvidence(out, input, *entry, section.evidence_open);
    }
  }
  for (const ScenarioMatrix& matrix : BuildScenarioMatrices(comparison, sweep)) AppendMatrix(out, matrix);
  AppendEnvironment(out, input.environments);
  return out;
}

}  // namespace gh
