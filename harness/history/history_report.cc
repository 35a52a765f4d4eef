#include "harness/history/history_report.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "harness/report/report_html.h"
#include "harness/report/report_palette.h"

namespace gh {
namespace {

// report.html's outcome colours (report_palette.h), so a verdict looks the same in both.
std::string Colour(const std::string& verdict) {
  for (const OutcomeColour& c : kOutcomeColours) {
    if (verdict == c.name) return c.background;
  }
  return "#ffffff";
}

// One square per night; a night the point did not run in is an empty box.
std::string Strip(const std::vector<std::string>& nights, const PointHistory& h) {
  std::map<std::string, const NightResult*> by_night;
  for (const NightResult& n : h.nights) by_night[n.night] = &n;
  std::string out = absl::StrFormat("<svg width=\"%d\" height=\"18\" role=\"img\">", 18 * nights.size() + 2);
  for (size_t i = 0; i < nights.size(); ++i) {
    auto it = by_night.find(nights[i]);
    const std::string verdict = it == by_night.end() ? "" : it->second->verdict;
    const std::string title = it == by_night.end()
        ? absl::StrCat(nights[i], ": not run")
        : absl::StrCat(nights[i], " (", it->second->version, "): ", verdict,
                       it->second->signature.empty() ? "" : absl::StrCat(" — ", it->second->signature));
    absl::StrAppendFormat(&out, "<rect class=\"night %s\" x=\"%d\" y=\"1\" width=\"16\" height=\"16\" fill=\"%s\" stroke=\"#555\"><title>%s</title></rect>",
                          verdict.empty() ? "none" : verdict, 18 * i + 1, Colour(verdict), EscapeHtml(title));
  }
  return out + "</svg>";
}

// A metric's mean per night as a polyline; axes labelled with the metric and its range.
std::string Trend(const std::vector<std::string>& nights, const PointHistory& h, const std::string& metric) {
  std::vector<std::pair<size_t, double>> points;
  std::string unit;
  for (const NightResult& n : h.nights) {
    auto it = n.metrics.find(metric);
    if (it == n.metrics.end()) continue;
    const size_t x = std::find(nights.begin(), nights.end(), n.night) - nights.begin();
    points.push_back({x, it->second});
    unit = n.units.at(metric);
  }
  if (points.empty()) return "";
  double lo = points[0].second, hi = points[0].second;
  for (const auto& [x, v] : points) { lo = std::min(lo, v); hi = std::max(hi, v); }
  const double span = hi > lo ? hi - lo : 1;
  const int width = 200, height = 60;
  const double step = nights.size() > 1 ? double(width - 10) / (nights.size() - 1) : 0;
  std::string line;
  for (const auto& [x, v] : points) {
    absl::StrAppendFormat(&line, "%.1f,%.1f ", 5 + step * x, height - 5 - (v - lo) / span * (height - 10));
  }
  return absl::StrFormat(
      "<figure class=\"trend\"><svg width=\"%d\" height=\"%d\" role=\"img\"><title>%s</title>"
      "<polyline fill=\"none\" stroke=\"#1565c0\" stroke-width=\"2\" points=\"%s\"/></svg>"
      "<figcaption>%s (%s): %g .. %g</figcaption></figure>",
      width, height, EscapeHtml(metric), line, EscapeHtml(metric), EscapeHtml(unit), lo, hi);
}

}  // namespace

std::string RenderHistoryHtml(const std::vector<std::string>& nights, const std::vector<PointHistory>& histories) {
  std::string html =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gpuharness history</title><style>"
      "body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}"
      "td,th{border:1px solid #ccc;padding:4px;vertical-align:top;text-align:left}"
      "figure{display:inline-block;margin:0 8px 0 0}figcaption{font-size:80%}</style></head><body>\n"
      "<h1>gpuharness history</h1>\n";
  absl::StrAppend(&html, "<p>", nights.size(), " nights: ", EscapeHtml(nights.empty() ? "" : nights.front()),
                  " .. ", EscapeHtml(nights.empty() ? "" : nights.back()), "; ", histories.size(),
                  " points. Squares: one per night, oldest first (green pass, grey skip, red fail, "
                  "orange error, purple timeout, dark red crash, slate infrastructure, empty not run).</p>\n");
  html += "<table><tr><th>point</th><th>verdict per night</th><th>metrics (mean over trials, per night)</th></tr>\n";
  for (const PointHistory& h : histories) {
    std::set<std::string> metrics;
    for (const NightResult& n : h.nights) for (const auto& [name, v] : n.metrics) metrics.insert(name);
    absl::StrAppend(&html, "<tr class=\"point\"><td>", EscapeHtml(h.key.ToString()), "</td><td>", Strip(nights, h), "</td><td>");
    for (const std::string& m : metrics) html += Trend(nights, h, m);
    html += "</td></tr>\n";
  }
  return html + "</table>\n</body></html>\n";
}

}  // namespace gh
