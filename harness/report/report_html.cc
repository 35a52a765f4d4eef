#include "harness/report/report_html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_join.h"
#include "harness/core/param.h"
#include "harness/report/evidence.h"
#include "harness/report/report_palette.h"
#include "harness/report/report_sections.h"
#include "harness/report/result_matrix.h"
#include "harness/report/perf_report.h"

namespace gh {
namespace {

constexpr char kStyle[] = R"css(
body{font:14px/1.45 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:24px;color:#1f2328;max-width:1600px}
h1{font-size:22px;margin:0 0 8px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d0d7de}
h3{font-size:14px;margin:10px 0 4px}
.headline{font-weight:600}.muted{color:#57606a}
table{border-collapse:collapse;margin:6px 0 14px}th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-weight:600}
table.heatmap td.entry{min-width:70px;text-align:center;font-size:12px;position:relative;padding:5px 14px}
td.regression{font-weight:700}
td.expected{font-style:italic;background-image:repeating-linear-gradient(135deg,rgba(255,255,255,.3) 0 4px,transparent 4px 10px)}
.legend span{display:inline-block;padding:1px 18px 1px 8px;margin-right:4px;border-radius:3px;font-size:12px;position:relative}
.charts{display:flex;flex-wrap:wrap;gap:16px}.chart{flex:0 0 auto}
svg{background:#fff;border:1px solid #d0d7de}svg text{font-size:11px;fill:#1f2328}svg text.axis-name{font-size:12px;font-weight:600}
.series-key{display:inline-block;width:14px;height:3px;vertical-align:middle;margin-right:4px}
ul.chart-legend{list-style:none;padding:0;margin:4px 0;font-size:12px;max-width:560px}ul.chart-legend li{display:inline-block;margin-right:12px}
p.ran,p.baseline,p.shape{margin:2px 0}
tr.evidence>td{border-top:none;padding:0 8px 6px 24px;background:#fbfbfc}
details.evidence summary{cursor:pointer;padding:3px 0}details.evidence .ranks{margin:2px 0 0}
pre.tail{font:12px/1.35 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f6f8fa;border:1px solid #d0d7de;
padding:4px 8px;margin:2px 0 4px;max-width:1500px;overflow-x:auto;white-space:pre}
a.log{font-weight:600}.problem{color:#cf222e;font-weight:600}
)css";

// The outcome colours and the markers, from report_palette.h: each marker is two rings (dark
// outside, light inside) and a corner badge, so it shows on every outcome colour.
std::string PaletteStyle() {
  std::string css;
  for (const OutcomeColour& o : kOutcomeColours) {
    absl::StrAppend(&css, ".o-", o.name, "{background-color:", o.background, ";color:", o.text, "}\n");
  }
  for (const MarkerColours& m : kMarkers) {
    absl::StrAppend(&css, "td.", m.name, ",.legend .", m.name, "{box-shadow:inset 0 0 0 2px ", m.outer,
                    ",inset 0 0 0 4px ", m.inner, "}\n", "td.", m.name, "::after,.legend .", m.name,
                    "::after{content:\"", m.badge, "\";position:absolute;top:0;right:0;font:700 10px/12px sans-serif;",
                    "padding:0 2px;background:", m.inner, ";color:", m.outer, ";border:1px solid ", m.outer, "}\n");
  }
  return css;
}

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

// The lines of a rank's output (or stack) shown under an entry; its log has them all.
constexpr size_t kMaxEvidenceLines = 16;


// A row under an entry's row, holding its evidence: open (what changed) or folded (known).
void AppendEvidenceRow(std::string& out, const ReportInput& input, const PointComparison& entry, size_t columns,
                       bool open) {
  const PointEvidence evidence = CollectEvidence(*entry.now, input.logs);
  if (evidence.empty()) return;
  absl::StrAppend(&out, "<tr class=\"evidence\"><td colspan=\"", columns, "\"><details class=\"evidence\"",
                  open ? " open" : "", "><summary>");
  if (!evidence.trial.empty()) absl::StrAppend(&out, EscapeHtml(evidence.trial), ": ");
  if (!evidence.ranks.empty()) {
    absl::StrAppend(&out, EscapeHtml(evidence.ranks.front().Headline(/*with_signature=*/false)),
                    RankLogLinksHtml(input, evidence.ranks.front(), "log"));
  }
  if (!evidence.job_log.empty()) absl::StrAppend(&out, " · ", LogLinkHtml(input, evidence.job_log, "job log", "log"));
  out += "</summary>\n";
  for (size_t g = 0; g < evidence.ranks.size(); ++g) {
    const RankEvidence& group = evidence.ranks[g];
    // The first group's headline is the summary's; its signature and detail are the row's.
    if (g > 0) {
      absl::StrAppend(&out, "<p class=\"ranks\">", EscapeHtml(group.Headline()), RankLogLinksHtml(input, group, "log"), "</p>\n");
    } else if (!group.detail.empty()) {
      absl::StrAppend(&out, "<p class=\"ranks\">", EscapeHtml(group.detail), "</p>\n");
    }
    if (group.lines.empty()) continue;
    absl::StrAppend(&out, "<pre class=\"tail\">", EscapeHtml(absl::StrJoin(EvidenceExcerpt(group, kMaxEvidenceLines), "\n")),
                    "</pre>\n");
  }
  out += "</details></td></tr>\n";
}

// An attention section: its table, each entry's evidence in a row beneath it.
void AppendSection(std::string& out, const ReportInput& input, const ReportSection& section) {
  absl::StrAppend(&out, "<h2>", EscapeHtml(section.title), " (", section.rows.size(), ")</h2>\n<table><tr>");
  for (const std::string& header : section.headers) out += Cell("th", header);
  out += "</tr>\n";
  for (size_t row = 0; row < section.rows.size(); ++row) {
    out += "<tr>";
    for (const std::string& value : section.rows[row]) out += Cell("td", value);
    out += "</tr>\n";
    const PointComparison* entry = section.EntryOfRow(row);
    if (section.with_evidence && entry != nullptr) {
      AppendEvidenceRow(out, input, *entry, section.headers.size(), section.evidence_open);
    }
  }
  out += "</table>\n";
}

std::string Tooltip(const PointComparison& entry) {
  const PointTrials& now = *entry.now;
  std::vector<std::string> lines = {entry.key.point, TrialsText(now)};
  std::string signature = TrialsSignature(now);
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
      // A non-pass outcome that met its expectation (a known crash) is hatched, unlike an unmet one.
      if (entry->expectation_met() && entry->now->worst != Outcome::kPass && entry->now->worst != Outcome::kSkip) {
        absl::StrAppend(&classes, " expected");
      }
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

// At most this many series a chart; the rest go to a table beneath it (a legend stays readable).
constexpr size_t kMaxSeriesPerChart = 8;

// The metrics charted per scenario, each its own chart, with its axis name.
struct ChartedMetric {
  const char* name;
  const char* axis;
};
constexpr ChartedMetric kChartedMetrics[] = {{"bandwidth_GBps", "bandwidth"}, {"time_median_us", "median time"}};

// One line of a chart: a row of the matrix (a cell) and a combination of the other column
// parameters, over the columns sorted by x.
struct Series {
  size_t row;
  std::string label;
  std::vector<size_t> columns;
};

// The first column parameter whose every value is numeric (byte sizes, numbers), with those
// values per column; nullopt when there is none.
std::optional<size_t> FindXParam(const ScenarioMatrix& matrix, std::vector<double>& xs) {
  xs.assign(matrix.columns.size(), 0);
  for (size_t p = 0; p < matrix.column_params.size(); ++p) {
    bool numeric = true;
    for (size_t c = 0; c < matrix.columns.size() && numeric; ++c) {
      std::optional<double> x = NumericValue(matrix.column_values[c][p]);
      numeric = x.has_value();
      if (numeric) xs[c] = *x;
    }
    if (numeric && !matrix.columns.empty()) return p;
  }
  return std::nullopt;
}

// Series per (row, the other column parameters' values), in first-seen order, e.g.
// "mpi_p2p / 2, dtype=f32".
std::vector<Series> BuildSeries(const ScenarioMatrix& matrix, size_t x_param, const std::vector<double>& xs) {
  std::vector<Series> series;
  for (size_t r = 0; r < matrix.rows.size(); ++r) {
    std::vector<Series> of_row;
    std::vector<std::string> keys;
    for (size_t c = 0; c < matrix.columns.size(); ++c) {
      std::vector<std::string> others;
      for (size_t p = 0; p < matrix.column_params.size(); ++p) {
        if (p != x_param) others.push_back(absl::StrCat(matrix.column_params[p], "=", matrix.column_values[c][p]));
      }
      std::string key = absl::StrJoin(others, ", ");
      auto found = std::find(keys.begin(), keys.end(), key);
      if (found == keys.end()) {
        keys.push_back(key);
        std::string label = absl::StrJoin(matrix.rows[r].labels, " / ");
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
  return series;
}

const Metric* MetricAt(const ScenarioMatrix& matrix, size_t row, size_t column, const std::string& name) {
  const PointComparison* entry = matrix.rows[row].entries[column];
  return entry == nullptr ? nullptr : entry->now->FindMetric(name);
}

// Where a chart's values land: x linear or log2 (byte sizes over a wide range), y from 0.
struct ChartFrame {
  static constexpr double kWidth = 560, kHeight = 320, kLeft = 78, kRight = 16, kTop = 14, kBottom = 50;
  double x_min = 0, x_max = 0, y_top = 1, step = 1;
  bool log_x = false;
  double plot_w() const { return kWidth - kLeft - kRight; }
  double plot_h() const { return kHeight - kTop - kBottom; }
  double X(double x) const {
    double lo = log_x ? std::log2(x_min) : x_min, hi = log_x ? std::log2(x_max) : x_max;
    double t = hi > lo ? ((log_x ? std::log2(x) : x) - lo) / (hi - lo) : 0.5;
    return kLeft + t * plot_w();
  }
  double Y(double y) const { return kTop + plot_h() - y / y_top * plot_h(); }
};

// Grid, ticks and axis names. Byte sizes get ticks at every power of 4 between the extremes,
// labelled "4K", "64M"; other x values are ticked where measured.
void AppendAxes(std::string& out, const ChartFrame& f, const std::vector<double>& xs, bool bytes,
                const std::string& x_name, const std::string& y_name) {
  const double bottom = ChartFrame::kTop + f.plot_h();
  for (double y = 0; y <= f.y_top + f.step / 2; y += f.step) {
    absl::StrAppend(&out, "<line x1=\"", Number(ChartFrame::kLeft), "\" x2=\"", Number(ChartFrame::kLeft + f.plot_w()),
                    "\" y1=\"", Number(f.Y(y)), "\" y2=\"", Number(f.Y(y)), "\" stroke=\"#eaeef2\"/>", "<text x=\"",
                    Number(ChartFrame::kLeft - 6), "\" y=\"", Number(f.Y(y) + 4), "\" text-anchor=\"end\">",
                    EscapeHtml(Number(y)), "</text>\n");
  }
  std::vector<double> ticks;
  if (bytes && f.log_x) {
    for (double t = std::pow(4.0, std::ceil(std::log(f.x_min) / std::log(4.0))); t <= f.x_max * 1.0001; t *= 4) ticks.push_back(t);
  }
  for (double x : xs) {
    if (ticks.empty() || !bytes || !f.log_x) {
      if (std::find(ticks.begin(), ticks.end(), x) == ticks.end()) ticks.push_back(x);
    }
  }
  for (double t : ticks) {
    const std::string text = bytes ? FormatBytes(static_cast<int64_t>(t)) : Number(t);
    absl::StrAppend(&out, "<text class=\"tick\" x=\"", Number(f.X(t)), "\" y=\"", Number(bottom + 16),
                    "\" text-anchor=\"middle\">", EscapeHtml(text), "</text>\n");
  }
  absl::StrAppend(&out, "<line x1=\"", Number(ChartFrame::kLeft), "\" x2=\"", Number(ChartFrame::kLeft), "\" y1=\"",
                  Number(ChartFrame::kTop), "\" y2=\"", Number(bottom), "\" stroke=\"#57606a\"/>", "<line x1=\"",
                  Number(ChartFrame::kLeft), "\" x2=\"", Number(ChartFrame::kLeft + f.plot_w()), "\" y1=\"",
                  Number(bottom), "\" y2=\"", Number(bottom), "\" stroke=\"#57606a\"/>\n");
  absl::StrAppend(&out, "<text class=\"axis-name x-axis\" x=\"", Number(ChartFrame::kLeft + f.plot_w() / 2), "\" y=\"",
                  Number(ChartFrame::kHeight - 10), "\" text-anchor=\"middle\">", EscapeHtml(x_name), "</text>\n");
  absl::StrAppend(&out, "<text class=\"axis-name y-axis\" transform=\"translate(16,",
                  Number(ChartFrame::kTop + f.plot_h() / 2), ") rotate(-90)\" text-anchor=\"middle\">",
                  EscapeHtml(y_name), "</text>\n");
}

// The lines, their points (each with a tooltip) and the legend entries of `drawn`.
void AppendSeriesLines(std::string& out, std::string& legend, const ScenarioMatrix& matrix, const ChartFrame& f,
                       const std::vector<const Series*>& drawn, size_t x_param, const std::vector<double>& xs,
                       const std::string& metric_name) {
  const std::string& x_name = matrix.column_params[x_param];
  for (size_t s = 0; s < drawn.size(); ++s) {
    const char* colour = kPalette[s % (sizeof(kPalette) / sizeof(kPalette[0]))];
    std::vector<std::string> points;
    std::string marks;
    for (size_t c : drawn[s]->columns) {
      const Metric* metric = MetricAt(matrix, drawn[s]->row, c, metric_name);
      if (metric == nullptr) continue;
      std::string x = Number(f.X(xs[c])), y = Number(f.Y(metric->value));
      points.push_back(absl::StrCat(x, ",", y));
      absl::StrAppend(&marks, "<circle cx=\"", x, "\" cy=\"", y, "\" r=\"3.5\" fill=\"", colour, "\"><title>",
                      EscapeHtml(absl::StrCat(drawn[s]->label, ", ", x_name, "=", matrix.column_values[c][x_param],
                                              ": ", FormatMetric(*metric))),
                      "</title></circle>\n");
    }
    absl::StrAppend(&out, "<polyline class=\"series\" fill=\"none\" stroke-width=\"2\" stroke=\"", colour,
                    "\" points=\"", absl::StrJoin(points, " "), "\"/>\n", marks);
    absl::StrAppend(&legend, "<li><span class=\"series-key\" style=\"background:", colour, "\"></span>",
                    EscapeHtml(drawn[s]->label), "</li>");
  }
}

// Series past the chart's first kMaxSeriesPerChart, as a table: one row each, one column per x.
void AppendOverflowTable(std::string& out, const ScenarioMatrix& matrix, const std::vector<const Series*>& rest,
                         size_t x_param, const std::vector<double>& xs, const std::string& metric_name) {
  std::vector<size_t> order(matrix.columns.size());
  for (size_t c = 0; c < order.size(); ++c) order[c] = c;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return xs[a] < xs[b]; });
  std::vector<std::string> headers = {"series (not charted)"}, seen;
  for (size_t c : order) {
    if (std::find(seen.begin(), seen.end(), matrix.column_values[c][x_param]) != seen.end()) continue;
    seen.push_back(matrix.column_values[c][x_param]);
    headers.push_back(absl::StrCat(matrix.column_params[x_param], "=", seen.back()));
  }
  std::vector<std::vector<std::string>> rows;
  for (const Series* one : rest) {
    std::vector<std::string> row = {one->label};
    row.resize(headers.size(), "-");
    for (size_t c : one->columns) {
      const Metric* metric = MetricAt(matrix, one->row, c, metric_name);
      size_t at = std::find(seen.begin(), seen.end(), matrix.column_values[c][x_param]) - seen.begin();
      if (metric != nullptr) row[at + 1] = FormatMetric(*metric);
    }
    rows.push_back(std::move(row));
  }
  AppendTable(out, headers, rows);
}

// One chart of one metric over the x parameter: the first kMaxSeriesPerChart series that have
// values as lines (named in a legend beneath), the rest as a table.
void AppendChart(std::string& out, const ScenarioMatrix& matrix, const ChartedMetric& charted, size_t x_param,
                 const std::vector<double>& xs, const std::vector<Series>& series) {
  ChartFrame f;
  std::string unit;
  double y_max = 0;
  std::vector<const Series*> with_values;
  for (const Series& one : series) {
    bool any = false;
    for (size_t c : one.columns) {
      if (const Metric* metric = MetricAt(matrix, one.row, c, charted.name)) {
        y_max = std::max(y_max, metric->value);
        if (unit.empty()) unit = metric->unit;
        any = true;
      }
    }
    if (any) with_values.push_back(&one);
  }
  if (y_max <= 0 || with_values.empty()) return;
  f.x_min = *std::min_element(xs.begin(), xs.end());
  f.x_max = *std::max_element(xs.begin(), xs.end());
  f.log_x = f.x_min > 0 && f.x_max / f.x_min >= 8;
  f.step = NiceStep(y_max);
  f.y_top = f.step * std::ceil(y_max / f.step);
  const std::string& x_param_name = matrix.column_params[x_param];
  bool bytes = true;  // byte sizes ("4K", "64M"): ticks at powers of 4, labelled as sizes
  for (const auto& values : matrix.column_values) bytes = bytes && ParseBytes(values[x_param]).ok() &&
                                                          values[x_param].find_first_of("KMG") != std::string::npos;
  const std::string x_name = absl::StrCat(x_param_name, f.log_x ? " (log scale)" : "");
  const std::string y_name = absl::StrCat(charted.axis, unit.empty() ? "" : absl::StrCat(" (", unit, ")"));
  const size_t drawn_count = std::min(with_values.size(), kMaxSeriesPerChart);
  const std::vector<const Series*> drawn(with_values.begin(), with_values.begin() + drawn_count);
  const std::vector<const Series*> rest(with_values.begin() + drawn_count, with_values.end());
  absl::StrAppend(&out, "<div class=\"chart\"><h3>", EscapeHtml(matrix.scenario), ": ", EscapeHtml(y_name),
                  " by ", EscapeHtml(x_param_name), " <span class=\"muted\">(median over passing trials)</span></h3>\n");
  absl::StrAppend(&out, "<svg class=\"plot\" width=\"", Number(ChartFrame::kWidth), "\" height=\"",
                  Number(ChartFrame::kHeight), "\" viewBox=\"0 0 ", Number(ChartFrame::kWidth), " ",
                  Number(ChartFrame::kHeight), "\" role=\"img\" aria-label=\"", EscapeHtml(y_name), " by ",
                  EscapeHtml(x_param_name), "\">\n");
  AppendAxes(out, f, xs, bytes, x_name, y_name);
  std::string legend;
  AppendSeriesLines(out, legend, matrix, f, drawn, x_param, xs, charted.name);
  absl::StrAppend(&out, "</svg>\n<ul class=\"chart-legend\">", legend, "</ul>\n");
  if (!rest.empty()) {
    absl::StrAppend(&out, "<p class=\"muted\">", rest.size(), " more series, not charted:</p>\n");
    AppendOverflowTable(out, matrix, rest, x_param, xs, charted.name);
  }
  out += "</div>\n";
}

// Small multiples: per scenario, one chart per metric it measured, cells as series.
void AppendCharts(std::string& out, const ScenarioMatrix& matrix) {
  std::vector<double> xs;
  std::optional<size_t> x_param = FindXParam(matrix, xs);
  if (!x_param) return;
  const std::vector<Series> series = BuildSeries(matrix, *x_param, xs);
  std::string charts;
  for (const ChartedMetric& charted : kChartedMetrics) AppendChart(charts, matrix, charted, *x_param, xs, series);
  if (!charts.empty()) absl::StrAppend(&out, "<div class=\"charts\">\n", charts, "</div>\n");
}

void AppendMatrix(std::string& out, const ScenarioMatrix& matrix) {
  absl::StrAppend(&out, "<h2>", EscapeHtml(matrix.scenario), " <span class=\"muted\">(",
                  EscapeHtml(matrix.kind), ")</span></h2>\n");
  AppendHeatmap(out, matrix);
  AppendCharts(out, matrix);
}

// What the heatmaps' colours and markers mean.
std::string Legend() {
  std::string out = "<p class=\"legend\">";
  for (const char* outcome : {"pass", "skip", "fail", "error", "timeout", "crash", "infra", "flaky"}) {
    absl::StrAppend(&out, "<span class=\"o-", outcome, "\" style=\"display:inline-block\">", outcome, "</span>");
  }
  out += " &nbsp; <span class=\"o-crash expected\">expected (hatched)</span>"
         "<span class=\"o-none regression\">regression</span><span class=\"o-none unexpected\">unmet expectation</span>"
         "<span class=\"o-none fixed\">fixed</span></p>\n";
  return out;
}

void AppendEnvironment(std::string& out, const std::vector<LabeledEnvironment>& environments) {
  const std::vector<EnvironmentSection> sections = EnvironmentSections(environments);
  if (sections.empty()) return;
  out += "<h2>Environment</h2>\n";
  for (const EnvironmentSection& section : sections) {
    if (!section.caption.empty()) absl::StrAppend(&out, "<p>", EscapeHtml(section.caption), "</p>\n");
    AppendTable(out, section.headers, section.rows);
  }
}

}  // namespace

std::string LogLinkHtml(const ReportInput& input, const std::string& path, const std::string& text,
                        std::string_view css_class) {
  if (path.empty()) return "";
  const std::string cls = css_class.empty() ? "" : absl::StrCat("class=\"", std::string(css_class), "\" ");
  return absl::StrCat("<a ", cls, "href=\"", EscapeHtml(input.LinkTo(path)), "\">", EscapeHtml(text), "</a>");
}

std::string RankLogLinksHtml(const ReportInput& input, const RankEvidence& group, std::string_view css_class) {
  std::string out;
  for (size_t i = 0; i < group.ranks.size(); ++i) {
    if (!group.logs[i].empty()) {
      absl::StrAppend(&out, " · ",
                      LogLinkHtml(input, group.logs[i], absl::StrCat("rank ", group.ranks[i], " log"), css_class));
    }
  }
  return out;
}

std::string EscapeHtml(std::string_view text) {
  return absl::StrReplaceAll(absl::string_view(text.data(), text.size()),
                             {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"},
                              {"'", "&#39;"}});
}

std::string RenderReportHtml(const ReportInput& input) {
  const Comparison& comparison = *input.comparison;
  const SweepInfo* sweep = input.sweep;
  std::string out = absl::StrCat("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>",
                                 EscapeHtml(input.title), "</title>\n<style>", kStyle, PaletteStyle(), "</style></head>\n<body>\n");
  absl::StrAppend(&out, "<h1>", EscapeHtml(input.title), "</h1>\n<p class=\"headline\">",
                  EscapeHtml(ComparisonHeadline(comparison)), "</p>\n");
  const std::string ran = input.facts.Line();
  if (!ran.empty()) absl::StrAppend(&out, "<p class=\"ran\">", EscapeHtml(ran), "</p>\n");
  if (sweep != nullptr) absl::StrAppend(&out, "<p class=\"shape\">", EscapeHtml(SweepShape(*sweep)), "</p>\n");
  if (!input.baseline.empty()) {
    absl::StrAppend(&out, "<p class=\"baseline\">",
                    input.BaselineLine(&EscapeHtml, "<span class=\"problem\">not compared</span>"), "</p>\n");
  }

  for (const ReportSection& section : AttentionSections(comparison, sweep, std::string::npos)) {
    AppendSection(out, input, section);
  }
  out += PerfChartsHtml(comparison);
  const std::vector<ScenarioMatrix> matrices = BuildScenarioMatrices(comparison, sweep);
  if (!matrices.empty()) out += Legend();
  for (const ScenarioMatrix& matrix : matrices) AppendMatrix(out, matrix);
  AppendEnvironment(out, input.environments);
  out += "</body></html>\n";
  return out;
}

}  // namespace gh
