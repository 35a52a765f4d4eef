#include "harness/report/report_html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/core/param.h"
#include "harness/report/result_matrix.h"

namespace gh {
namespace {

constexpr char kStyle[] = R"css(
body{font:14px/1.45 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:24px;color:#1f2328;max-width:1600px}
h1{font-size:22px;margin:0 0 8px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d0d7de}
.headline{font-weight:600}.muted{color:#656d76}
table{border-collapse:collapse;margin:6px 0 14px}th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-weight:600}
table.heatmap td.entry{min-width:70px;text-align:center;font-size:12px}
.o-pass{background:#2da44e;color:#fff}.o-skip{background:#d0d7de;color:#1f2328}
.o-fail{background:#cf222e;color:#fff}.o-error{background:#fb8500;color:#1f2328}
.o-timeout{background:#8250df;color:#fff}.o-crash{background:#6e0000;color:#fff}
.o-flaky{background:#d4a72c;color:#1f2328}.o-none{background:#fff;color:#8c959f}
td.regression{outline:3px solid #000;outline-offset:-3px;font-weight:700}
td.unexpected{box-shadow:inset 0 0 0 3px #ffd33d}
td.fixed{box-shadow:inset 0 0 0 3px #0969da}
.legend span{display:inline-block;padding:1px 8px;margin-right:4px;border-radius:3px;font-size:12px}
svg{background:#fff;border:1px solid #d0d7de}svg text{font-size:11px;fill:#1f2328}
.series-key{display:inline-block;width:14px;height:3px;vertical-align:middle;margin-right:4px}
)css";

const char* const kPalette[] = {"#0969da", "#cf222e", "#1a7f37", "#8250df", "#bc4c00",
                                "#1b7c83", "#bf3989", "#4d2d00", "#57606a", "#953800"};

std::string Cell(std::string_view tag, const std::string& text, const std::string& attributes = "") {
  return absl::StrCat("<", std::string(tag), attributes.empty() ? "" : " ", attributes, ">", EscapeHtml(text),
                      "</", std::string(tag), ">");
}

void AppendTable(std::string& out, const std::vector<std::string>& headers,
                 const std::vector<std::vector<std::string>>& rows) {
  out += "<table><tr>";
  for (const std::string& header : headers) out += Cell("th", header);
  out += "</tr>\n";
  for (const auto& row : rows) {
    out += "<tr>";
    for (const std::string& value : row) out += Cell("td", value);
    out += "</tr>\n";
  }
  out += "</table>\n";
}

std::string CellOf(const PointComparison& entry, const SweepInfo* sweep) {
  const PointTrials& trials = entry.now ? *entry.now : *entry.baseline;
  std::string label = CellDisplayLabel(trials.cell, sweep);
  return label.empty() ? "-" : label;
}

std::string SignatureOf(const PointTrials& trials) {
  if (trials.failed > 0) return trials.first_failure_signature;
  if (trials.skipped > 0) return trials.skip_reason;
  return "";
}

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
  absl::StrAppend(&out, "<h2>", EscapeHtml(title), " (", rows.size(), ")</h2>\n");
  std::vector<std::string> all_headers = {"cell", "point"};
  all_headers.insert(all_headers.end(), headers.begin(), headers.end());
  AppendTable(out, all_headers, rows);
}

std::string Tooltip(const PointComparison& entry) {
  const PointTrials& now = *entry.now;
  std::vector<std::string> lines = {entry.key.point, TrialsText(now)};
  std::string signature = SignatureOf(now);
  if (!signature.empty()) lines.push_back(signature);
  lines.push_back(absl::StrCat("expected: ", now.expected.ToString()));
  if (entry.baseline) lines.push_back(absl::StrCat("baseline: ", TrialsText(*entry.baseline)));
  std::string note = EntryAnnotation(entry);
  if (!note.empty()) lines.push_back(note);
  return absl::StrJoin(lines, "\n");
}

void AppendHeatmap(std::string& out, const ScenarioMatrix& matrix) {
  out += "<table class=\"heatmap\"><tr>";
  for (const std::string& header : matrix.row_headers) out += Cell("th", header);
  for (const std::string& column : matrix.columns) out += Cell("th", column);
  out += "</tr>\n";
  for (const MatrixRow& row : matrix.rows) {
    out += "<tr>";
    for (const std::string& label : row.labels) out += Cell("th", label);
    for (const PointComparison* entry : row.entries) {
      if (entry == nullptr) {
        out += "<td class=\"entry o-none\">-</td>";
        continue;
      }
      std::string classes = absl::StrCat("entry o-", EntryClass(*entry->now));
      if (entry->change == BaselineChange::kRegression) absl::StrAppend(&classes, " regression");
      if (entry->change == BaselineChange::kFix) absl::StrAppend(&classes, " fixed");
      if (!entry->expectation_met()) absl::StrAppend(&classes, " unexpected");
      std::string text = TrialsText(*entry->now);
      std::string note = EntryAnnotation(*entry);
      if (!note.empty()) absl::StrAppend(&text, " (", note, ")");
      out += Cell("td", text,
                  absl::StrCat("class=\"", classes, "\" title=\"", EscapeHtml(Tooltip(*entry)), "\""));
    }
    out += "</tr>\n";
  }
  out += "</table>\n";
}

// A swept value as a number: byte sizes ("4K") and plain numbers; nullopt otherwise.
std::optional<double> NumericValue(const std::string& text) {
  if (auto bytes = ParseBytes(text); bytes.ok()) return static_cast<double>(*bytes);
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

double NiceStep(double max_value) {
  double raw = max_value / 5;
  double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * magnitude >= raw) return m * magnitude;
  }
  return 10 * magnitude;
}

std::string Number(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", value);
  return text;
}

// The headline metric against the first numeric column parameter (byte sizes, numbers); one
// series per row and combination of the other column parameters, e.g. "mpi_p2p / 2, dtype=f32".
void AppendPlot(std::string& out, const ScenarioMatrix& matrix, const std::string& metric_name) {
  const size_t columns = matrix.columns.size();
  std::optional<size_t> x_param;
  std::vector<double> xs(columns);
  for (size_t p = 0; p < matrix.column_params.size() && !x_param; ++p) {
    bool numeric = true;
    for (size_t c = 0; c < columns && numeric; ++c) {
      std::optional<double> x = NumericValue(matrix.column_values[c][p]);
      numeric = x.has_value();
      if (numeric) xs[c] = *x;
    }
    if (numeric) x_param = p;
  }
  if (!x_param || columns == 0) return;
  // Series: (row, the other column parameters' values) -> columns, in first-seen order.
  struct Series {
    size_t row;
    std::string label;
    std::vector<size_t> columns;  // sorted by x
  };
  std::vector<Series> series;
  for (size_t r = 0; r < matrix.rows.size(); ++r) {
    const MatrixRow& row = matrix.rows[r];
    std::vector<Series> of_row;
    std::vector<std::string> keys;
    for (size_t c = 0; c < columns; ++c) {
      std::vector<std::string> others;
      for (size_t p = 0; p < matrix.column_params.size(); ++p) {
        if (p != *x_param) others.push_back(absl::StrCat(matrix.column_params[p], "=", matrix.column_values[c][p]));
      }
      std::string key = absl::StrJoin(others, ", ");
      auto found = std::find(keys.begin(), keys.end(), key);
      if (found == keys.end()) {
        keys.push_back(key);
        std::string label = absl::StrJoin(row.labels, " / ");
        if (!key.empty()) label = label.empty() || label == matrix.scenario ? key : absl::StrCat(label, ", ", key);
        of_row.push_back({r, label, {}});
        found = keys.end() - 1;
      }
      of_row[found - keys.begin()].columns.push_back(c);
    }
    for (Series& one : of_row) {
      std::stable_sort(one.columns.begin(), one.columns.end(), [&](size_t a, size_t b) { return xs[a] < xs[b]; });
      series.push_back(std::move(one));
    }
  }
  auto metric_at = [&](size_t row_index, size_t column) -> const Metric* {
    const PointComparison* entry = matrix.rows[row_index].entries[column];
    return entry == nullptr ? nullptr : entry->now->FindMetric(metric_name);
  };
  double y_max = 0;
  std::string unit;
  for (size_t r = 0; r < matrix.rows.size(); ++r) {
    for (size_t c = 0; c < columns; ++c) {
      if (const Metric* metric = metric_at(r, c)) {
        y_max = std::max(y_max, metric->value);
        if (unit.empty()) unit = metric->unit;
      }
    }
  }
  if (y_max <= 0) return;
  const double x_min = *std::min_element(xs.begin(), xs.end());
  const double x_max = *std::max_element(xs.begin(), xs.end());
  const bool log_x = x_min > 0 && x_max / x_min >= 8;
  const double step = NiceStep(y_max);
  const double y_top = step * std::ceil(y_max / step);
  constexpr double kWidth = 720, kHeight = 340, kLeft = 70, kRight = 20, kTop = 16, kBottom = 52;
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto x_at = [&](double x) {
    double lo = log_x ? std::log2(x_min) : x_min, hi = log_x ? std::log2(x_max) : x_max;
    double v = log_x ? std::log2(x) : x;
    double t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
    return kLeft + t * plot_w;
  };
  auto y_at = [&](double y) { return kTop + plot_h - y / y_top * plot_h; };

  const std::string& x_name = matrix.column_params[*x_param];
  const std::string y_label = metric_name == "bandwidth_GBps" ? "bandwidth" : "median time";
  absl::StrAppend(&out, "<p class=\"muted\">", EscapeHtml(y_label), " (", EscapeHtml(unit),
                  ", median over passing trials) by ", EscapeHtml(x_name), "</p>\n");
  absl::StrAppend(&out, "<svg class=\"plot\" width=\"", Number(kWidth), "\" height=\"", Number(kHeight),
                  "\" viewBox=\"0 0 ", Number(kWidth), " ", Number(kHeight), "\" role=\"img\">\n");
  for (double y = 0; y <= y_top + step / 2; y += step) {
    absl::StrAppend(&out, "<line x1=\"", Number(kLeft), "\" x2=\"", Number(kLeft + plot_w), "\" y1=\"",
                    Number(y_at(y)), "\" y2=\"", Number(y_at(y)), "\" stroke=\"#eaeef2\"/>",
                    "<text x=\"", Number(kLeft - 6), "\" y=\"", Number(y_at(y) + 4), "\" text-anchor=\"end\">",
                    EscapeHtml(Number(y)), "</text>\n");
  }
  std::vector<double> ticked;
  for (size_t c = 0; c < columns; ++c) {
    if (std::find(ticked.begin(), ticked.end(), xs[c]) != ticked.end()) continue;
    ticked.push_back(xs[c]);
    absl::StrAppend(&out, "<text x=\"", Number(x_at(xs[c])), "\" y=\"", Number(kTop + plot_h + 16),
                    "\" text-anchor=\"middle\">", EscapeHtml(matrix.column_values[c][*x_param]), "</text>\n");
  }
  absl::StrAppend(&out, "<line x1=\"", Number(kLeft), "\" x2=\"", Number(kLeft), "\" y1=\"", Number(kTop),
                  "\" y2=\"", Number(kTop + plot_h), "\" stroke=\"#57606a\"/>", "<line x1=\"", Number(kLeft),
                  "\" x2=\"", Number(kLeft + plot_w), "\" y1=\"", Number(kTop + plot_h), "\" y2=\"",
                  Number(kTop + plot_h), "\" stroke=\"#57606a\"/>\n");
  absl::StrAppend(&out, "<text x=\"", Number(kLeft + plot_w / 2), "\" y=\"", Number(kHeight - 10),
                  "\" text-anchor=\"middle\">", EscapeHtml(x_name), log_x ? " (log scale)" : "", "</text>\n");
  std::string legend;
  for (size_t s = 0; s < series.size(); ++s) {
    const size_t row_index = series[s].row;
    const char* colour = kPalette[s % (sizeof(kPalette) / sizeof(kPalette[0]))];
    std::vector<std::string> points;
    std::string marks;
    for (size_t c : series[s].columns) {
      const Metric* metric = metric_at(row_index, c);
      if (metric == nullptr) continue;
      std::string x = Number(x_at(xs[c])), y = Number(y_at(metric->value));
      points.push_back(absl::StrCat(x, ",", y));
      absl::StrAppend(&marks, "<circle cx=\"", x, "\" cy=\"", y, "\" r=\"3.5\" fill=\"", colour, "\"><title>",
                      EscapeHtml(absl::StrCat(series[s].label, ", ", x_name, "=", matrix.column_values[c][*x_param], ": ",
                                               FormatMetric(*metric))),
                      "</title></circle>\n");
    }
    if (points.empty()) continue;
    // Past the palette's ten colours, series repeat them dashed.
    const bool dashed = (s / (sizeof(kPalette) / sizeof(kPalette[0]))) % 2 == 1;
    absl::StrAppend(&out, "<polyline class=\"series\" fill=\"none\" stroke-width=\"2\" stroke=\"", colour,
                    dashed ? "\" stroke-dasharray=\"6 3" : "", "\" points=\"", absl::StrJoin(points, " "), "\"/>\n",
                    marks);
    absl::StrAppend(&legend, "<span><span class=\"series-key\" style=\"",
                    dashed ? absl::StrCat("background:repeating-linear-gradient(90deg,", colour, " 0 5px,#fff 5px 7px)")
                           : absl::StrCat("background:", colour),
                    "\"></span>",
                    EscapeHtml(series[s].label), "</span> &nbsp; ");
  }
  out += "</svg>\n";
  absl::StrAppend(&out, "<div class=\"muted\">", legend, "</div>\n");
}

void AppendMatrix(std::string& out, const ScenarioMatrix& matrix) {
  absl::StrAppend(&out, "<h2>", EscapeHtml(matrix.scenario), " <span class=\"muted\">(",
                  EscapeHtml(matrix.kind), ")</span></h2>\n");
  AppendHeatmap(out, matrix);
  std::string metric_name = HeadlineMetricName(matrix);
  if (metric_name.empty()) return;
  AppendPlot(out, matrix, metric_name);
}

void AppendEnvironment(std::string& out, const std::vector<LabeledEnvironment>& environments) {
  EnvironmentTable table = SummarizeEnvironments(environments);
  if (table.empty()) return;
  out += "<h2>Environment</h2>\n";
  AppendTable(out, table.headers, table.rows);
  if (!table.common_env.empty()) {
    out += "<p>Variables in force:</p>\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& [name, value] : table.common_env) rows.push_back({name, value});
    AppendTable(out, {"variable", "value"}, rows);
  }
  if (!table.varying_env_rows.empty()) {
    out += "<p>Variables that differ between cells:</p>\n";
    AppendTable(out, table.varying_env_headers, table.varying_env_rows);
  }
}

}  // namespace

std::string EscapeHtml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string RenderReportHtml(const ReportInput& input) {
  const Comparison& comparison = *input.comparison;
  const SweepInfo* sweep = input.sweep;
  std::string out = absl::StrCat("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>",
                                 EscapeHtml(input.title), "</title>\n<style>", kStyle, "</style></head>\n<body>\n");
  absl::StrAppend(&out, "<h1>", EscapeHtml(input.title), "</h1>\n<p class=\"headline\">",
                  EscapeHtml(ComparisonHeadline(comparison)), "</p>\n");
  if (sweep != nullptr) absl::StrAppend(&out, "<p>", EscapeHtml(SweepShape(*sweep)), "</p>\n");
  if (!input.baseline.empty()) absl::StrAppend(&out, "<p>Baseline: ", EscapeHtml(input.baseline), "</p>\n");
  out += "<p class=\"legend\">";
  for (const char* outcome : {"pass", "skip", "fail", "error", "timeout", "crash", "flaky"}) {
    absl::StrAppend(&out, "<span class=\"o-", outcome, "\" style=\"display:inline-block\">", outcome, "</span>");
  }
  out += " &nbsp; bold outline: regression; yellow ring: unmet expectation; blue ring: fixed</p>\n";

  if (sweep != nullptr) {
    std::vector<std::vector<std::string>> rows;
    for (const SweepCellInfo& cell : sweep->cells) {
      if (cell.status.empty() || cell.status == "done") continue;
      rows.push_back({CellDisplayLabel(cell.axes, sweep), cell.status, cell.detail});
    }
    if (!rows.empty()) {
      absl::StrAppend(&out, "<h2>Cells not run (", rows.size(), ")</h2>\n");
      AppendTable(out, {"cell", "status", "detail"}, rows);
    }
  }
  AppendEntrySection(
      out, "Unmet expectations", comparison, sweep, [](const PointComparison& e) { return !e.expectation_met(); },
      {"expected", "got", "signature"}, [](const PointComparison& e) {
        return std::vector<std::string>{e.now->expected.ToString(), TrialsText(*e.now),
                                        e.now->first_unmet_signature};
      });
  auto change_is = [](BaselineChange change) {
    return [change](const PointComparison& e) { return e.change == change; };
  };
  auto before_after = [](const PointComparison& e) {
    return std::vector<std::string>{TrialsText(*e.baseline), TrialsText(*e.now), SignatureOf(*e.now)};
  };
  AppendEntrySection(out, "Regressions", comparison, sweep, change_is(BaselineChange::kRegression),
                     {"baseline", "now", "signature"}, before_after);
  AppendEntrySection(out, "Fixes", comparison, sweep, change_is(BaselineChange::kFix), {"baseline", "now"},
                     [](const PointComparison& e) {
                       return std::vector<std::string>{TrialsText(*e.baseline), TrialsText(*e.now)};
                     });
  AppendEntrySection(out, "Changed signatures", comparison, sweep, change_is(BaselineChange::kChangedSignature),
                     {"baseline", "now", "signature"}, before_after);
  AppendEntrySection(out, "New points", comparison, sweep, change_is(BaselineChange::kNew), {"now"},
                     [](const PointComparison& e) { return std::vector<std::string>{TrialsText(*e.now)}; });
  AppendEntrySection(out, "Vanished points", comparison, sweep, change_is(BaselineChange::kVanished), {"baseline"},
                     [](const PointComparison& e) { return std::vector<std::string>{TrialsText(*e.baseline)}; });

  for (const ScenarioMatrix& matrix : BuildScenarioMatrices(comparison, sweep)) AppendMatrix(out, matrix);
  AppendEnvironment(out, input.environments);
  out += "</body></html>\n";
  return out;
}

}  // namespace gh
