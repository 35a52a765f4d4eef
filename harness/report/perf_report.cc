#include "harness/report/perf_report.h"

#include <algorithm>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "harness/report/report_html.h"
#include "harness/report/result_matrix.h"

namespace gh {
namespace {

std::string Value(double value, const std::string& unit) {
  return absl::StrCat(absl::StrFormat("%.4g", value), " ", unit);
}

std::string CellOf(const PointComparison& entry, const SweepInfo* sweep) {
  std::string label = CellDisplayLabel(entry.now->cell, sweep);
  return label.empty() ? "-" : label;
}

struct ChartRow {
  std::string label;
  const MetricChange* change;
};

std::string Coordinate(double value) { return absl::StrFormat("%.1f", value); }

// now / baseline of one metric as a dot with its interval per row; the x axis spans the
// threshold band and every interval.
std::string Chart(const std::string& metric, const std::vector<ChartRow>& rows, double threshold) {
  constexpr double kLeft = 330, kWidth = 420, kRow = 16, kTop = 24;
  double lo = 1 - 2 * threshold, hi = 1 + 2 * threshold;
  auto ratio = [](const MetricChange& c, double worse) { return c.higher_is_better ? 1 - worse : 1 + worse; };
  for (const ChartRow& row : rows) {
    for (double w : {row.change->worse_low, row.change->worse_high}) {
      lo = std::min(lo, ratio(*row.change, w));
      hi = std::max(hi, ratio(*row.change, w));
    }
  }
  auto x = [&](double r) { return kLeft + (r - lo) / (hi - lo) * kWidth; };
  const double height = kTop + kRow * static_cast<double>(rows.size()) + 22;
  std::string out = absl::StrCat("<h3>", EscapeHtml(metric), ": now / baseline (median, ",
                                 "interval; shaded: within the threshold)</h3>\n<svg class=\"perf\" width=\"",
                                 Coordinate(kLeft + kWidth + 20), "\" height=\"", Coordinate(height),
                                 "\" role=\"img\">\n");
  absl::StrAppend(&out, "<rect x=\"", Coordinate(x(1 - threshold)), "\" y=\"", Coordinate(kTop - 6),
                  "\" width=\"", Coordinate(x(1 + threshold) - x(1 - threshold)), "\" height=\"",
                  Coordinate(kRow * static_cast<double>(rows.size()) + 4), "\" fill=\"#eef2f6\"/>\n");
  absl::StrAppend(&out, "<line x1=\"", Coordinate(x(1)), "\" y1=\"", Coordinate(kTop - 8), "\" x2=\"",
                  Coordinate(x(1)), "\" y2=\"", Coordinate(height - 18), "\" stroke=\"#57606a\"/>\n");
  for (size_t i = 0; i < rows.size(); ++i) {
    const MetricChange& c = *rows[i].change;
    const double y = kTop + kRow * static_cast<double>(i) + 4;
    const char* colour = c.verdict == PerfVerdict::kSlower   ? "#cf222e"
                         : c.verdict == PerfVerdict::kFaster ? "#1a7f37"
                                                             : "#0969da";
    const double a = x(ratio(c, c.worse_low)), b = x(ratio(c, c.worse_high));
    absl::StrAppend(&out, "<text x=\"", Coordinate(kLeft - 6), "\" y=\"", Coordinate(y + 4),
                    "\" text-anchor=\"end\">", EscapeHtml(rows[i].label), "</text>\n");
    absl::StrAppend(&out, "<line x1=\"", Coordinate(std::min(a, b)), "\" y1=\"", Coordinate(y), "\" x2=\"",
                    Coordinate(std::max(a, b)), "\" y2=\"", Coordinate(y), "\" stroke=\"", colour,
                    "\" stroke-width=\"2\"/>\n");
    absl::StrAppend(&out, "<circle cx=\"", Coordinate(x(ratio(c, c.worse))), "\" cy=\"", Coordinate(y),
                    "\" r=\"3.5\" fill=\"", colour, "\"><title>", EscapeHtml(rows[i].label), ": ",
                    EscapeHtml(c.Text()), "; baseline ", EscapeHtml(Value(c.baseline_median, c.unit)),
                    ", now ", EscapeHtml(Value(c.now_median, c.unit)), "</title></circle>\n");
  }
  for (double tick : {lo, 1.0, hi}) {
    absl::StrAppend(&out, "<text x=\"", Coordinate(x(tick)), "\" y=\"", Coordinate(height - 4),
                    "\" text-anchor=\"middle\">", absl::StrFormat("%.3g", tick), "</text>\n");
  }
  out += "</svg>\n";
  return out;
}

}  // namespace

std::string PerfRegressionText(const PointComparison& entry) {
  std::vector<std::string> parts;
  for (const MetricChange& change : entry.perf) {
    if (change.verdict == PerfVerdict::kSlower) parts.push_back(absl::StrCat(change.metric, " ", change.Text()));
  }
  return absl::StrJoin(parts, "; ");
}

ReportSection PerfSection(const Comparison& comparison, const SweepInfo* sweep) {
  ReportSection section{"Performance vs baseline", {"cell", "point", "metric", "baseline", "now", "change"}, {}};
  std::vector<std::vector<std::string>> slower, faster, incomparable;
  for (const PointComparison& entry : comparison.points) {
    if (!entry.now) continue;
    if (!entry.incomparable.empty()) {
      incomparable.push_back({CellOf(entry, sweep), entry.key.point, "-", "-", "-",
                              absl::StrCat("not compared: ", entry.incomparable)});
    }
    for (const MetricChange& c : entry.perf) {
      if (c.verdict == PerfVerdict::kNoChange) continue;
      (c.verdict == PerfVerdict::kSlower ? slower : faster)
          .push_back({CellOf(entry, sweep), entry.key.point, c.metric, Value(c.baseline_median, c.unit),
                      Value(c.now_median, c.unit), c.Text()});
    }
  }
  for (auto* group : {&slower, &faster, &incomparable}) {
    section.rows.insert(section.rows.end(), group->begin(), group->end());
  }
  return section;
}

std::string PerfChartsHtml(const Comparison& comparison) {
  std::map<std::string, std::vector<ChartRow>> by_metric;
  std::vector<std::string> order;
  for (const PointComparison& entry : comparison.points) {
    for (const MetricChange& change : entry.perf) {
      if (by_metric.find(change.metric) == by_metric.end()) order.push_back(change.metric);
      std::string label = entry.key.cell.empty() ? entry.key.point : absl::StrCat(entry.key.cell, " ", entry.key.point);
      by_metric[change.metric].push_back({std::move(label), &change});
    }
  }
  if (order.empty()) return "";
  std::string out = "<h2>Metrics vs baseline</h2>\n";
  for (const std::string& metric : order) {
    absl::StrAppend(&out, Chart(metric, by_metric[metric], comparison.perf_options.threshold));
  }
  return out;
}

}  // namespace gh
