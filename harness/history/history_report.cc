#include "harness/history/history_report.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "harness/history/history_findings.h"
#include "harness/history/history_text.h"
#include "harness/report/report_html.h"
#include "harness/report/report_palette.h"

namespace gh {
namespace {

// One letter per verdict, so that no reader depends on colour.
std::string Letter(const std::string& verdict) {
  static const std::map<std::string, std::string> kLetters = {
      {"pass", "P"}, {"skip", "S"}, {"fail", "F"}, {"error", "E"}, {"timeout", "T"}, {"crash", "C"}, {"infra", "I"}};
  auto it = kLetters.find(verdict);
  return it == kLetters.end() ? "?" : it->second;
}

// `hex` blended with white, `weight` of it kept.
std::string Tint(const std::string& hex, double weight) {
  std::string out = "#";
  for (size_t at = 1; at + 1 < hex.size(); at += 2) {
    const int c = std::stoi(hex.substr(at, 2), nullptr, 16);
    absl::StrAppendFormat(&out, "%02x", static_cast<int>(std::lround(weight * c + (1 - weight) * 255)));
  }
  return out;
}

// The page's colour rules: report.html's outcome colours (report_palette.h), except that a
// pass is a light tint of its green: the common, quiet state, and light against the dark
// failures, which keeps pass and fail apart for red-green colour blindness too.
std::string OutcomeCss() {
  std::string css;
  for (const OutcomeColour& c : kOutcomeColours) {
    const std::string background = std::string(c.name) == "pass" ? Tint(c.background, 0.35) : c.background;
    absl::StrAppend(&css, ".v-", c.name, "{background:", background, ";color:",
                    std::string(c.name) == "pass" ? "#1f2328" : c.text, "}");
  }
  return css;
}

std::string Esc(const std::string& text) { return EscapeHtml(text); }

// A verdict as a box: its letter; "!" and a frame when the expectation was not met; stripes
// when a failure was expected.
std::string VerdictBox(const NightResult& n) {
  std::string classes = absl::StrCat("v v-", n.verdict);
  std::string text = Letter(n.verdict);
  if (n.unmet) {
    absl::StrAppend(&classes, " unmet");
    text += "!";
  } else if (n.verdict != "pass" && n.verdict != "skip" && n.verdict != "infra") {
    absl::StrAppend(&classes, " expected");
  }
  std::string title = absl::StrCat(NightAndVersion(n.night, n.version), ": ", n.Described());
  if (!n.signature.empty()) absl::StrAppend(&title, " — ", OneLineText(n.signature));
  if (n.outcomes.size() > 1) absl::StrAppend(&title, " [trials: ", absl::StrJoin(n.outcomes, ","), "]");
  return absl::StrCat("<span class=\"", classes, "\" title=\"", Esc(title), "\">", text, "</span>");
}

std::string PointName(const HistoryPointKey& key) {
  return absl::StrCat("<span class=\"pt\">", Esc(key.ToString()), "</span>");
}

// A metric across nights: its value in words when it never changed (to three significant
// digits), else a line over the nights with its range.
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
  for (const auto& [x, v] : points) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  const std::string unit_text = unit.empty() ? "" : absl::StrCat(" ", unit);
  if (ThreeSignificant(lo) == ThreeSignificant(hi)) {
    return absl::StrCat("<li class=\"constant\">", Esc(metric), ": ", ThreeSignificant(lo), Esc(unit_text),
                        " on every night</li>");
  }
  const double span = hi - lo;
  const int width = 240, height = 48;
  const double step = nights.size() > 1 ? double(width - 10) / (nights.size() - 1) : 0;
  std::string line;
  for (const auto& [x, v] : points) {
    absl::StrAppendFormat(&line, "%.1f,%.1f ", 5 + step * x, height - 5 - (v - lo) / span * (height - 10));
  }
  return absl::StrFormat(
      "<li><svg width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"%s\"><polyline fill=\"none\" "
      "stroke=\"#0969da\" stroke-width=\"2\" points=\"%s\"/></svg> %s: %s .. %s%s</li>",
      width, height, Esc(metric), line, Esc(metric), ThreeSignificant(lo), ThreeSignificant(hi), Esc(unit_text));
}

std::string TrendsOnDemand(const std::vector<std::string>& nights, const PointHistory& h) {
  std::set<std::string> metrics;
  for (const NightResult& n : h.nights) {
    for (const auto& [name, v] : n.metrics) metrics.insert(name);
  }
  if (metrics.empty()) return "";
  std::string items;
  for (const std::string& m : metrics) items += Trend(nights, h, m);
  return absl::StrCat("<details><summary>", metrics.size(), metrics.size() == 1 ? " metric" : " metrics",
                      "</summary><ul class=\"trends\">", items, "</ul></details>");
}

// A section of the page: its heading with the count of rows, then `when_empty` where there are
// none, else a table of `columns` holding `rows` (each a <tr>…</tr> line).
void AppendTableSection(std::string& html, absl::string_view id, absl::string_view heading, size_t count,
                        absl::string_view when_empty, std::initializer_list<absl::string_view> columns,
                        const std::string& rows) {
  absl::StrAppend(&html, "<section id=\"", id, "\"><h2>", heading, " (", count, ")</h2>\n");
  if (count == 0) {
    absl::StrAppend(&html, "<p>", when_empty, "</p></section>\n");
    return;
  }
  html += "<table><tr>";
  for (absl::string_view column : columns) absl::StrAppend(&html, "<th>", column, "</th>");
  absl::StrAppend(&html, "</tr>\n", rows, "</table></section>\n");
}

void AppendBroken(std::string& html, const std::vector<PointHistory>& histories) {
  const std::vector<Broken> broken = FindBroken(histories);
  std::string rows;
  for (const Broken& b : broken) {
    absl::StrAppend(&rows, "<tr><td>", PointName(b.key), "</td><td>", VerdictBox(b.now), " ", Esc(b.now.Described()),
                    b.infra_tonight ? " (latest night: infra only)" : "", "</td><td>",
                    Esc(b.SinceText()), "</td><td>", Esc(b.LastGoodText()),
                    "</td><td class=\"sig\">", Esc(OneLineText(b.now.signature)), "</td></tr>\n");
  }
  AppendTableSection(html, "broken", "Broken now", broken.size(),
                     "Every point that ran on its matrix's latest night met its expectation.",
                     {"point", "now", "since", "last good", "signature"}, rows);
}

void AppendFlips(std::string& html, const std::vector<std::string>& nights, const std::vector<PointHistory>& histories) {
  const std::string latest = nights.empty() ? "" : nights.back();
  const std::vector<Flip> flips = latest.empty() ? std::vector<Flip>{} : FindFlips(histories, latest);
  std::string rows;
  for (const Flip& f : flips) {
    absl::StrAppend(&rows, "<tr><td>", PointName(f.key), "</td><td>", Esc(f.from), " &rarr; <b>", Esc(f.to), "</b>",
                    f.unmet ? " (unmet)" : "", f.version.empty() ? "" : absl::StrCat(" at version ", Esc(f.version)),
                    "</td><td>", Esc(NightAndVersion(f.previous_night, f.previous_version)), "</td><td class=\"sig\">",
                    Esc(OneLineText(f.signature)), "</td></tr>\n");
  }
  AppendTableSection(html, "flips", absl::StrCat("Changed on the latest night, ", Esc(latest)), flips.size(),
                     "No point's verdict changed.", {"point", "change", "night before", "signature"}, rows);
}

void AppendFlaky(std::string& html, const std::vector<PointHistory>& histories) {
  const std::vector<Flaky> flaky = FindFlaky(histories);
  std::string rows;
  for (const Flaky& f : flaky) {
    absl::StrAppend(&rows, "<tr><td>", PointName(f.key), "</td><td>", Esc(f.trials.ToString()), "</td><td>",
                    f.failed_nights, " of ", f.nights, "</td><td>", Esc(f.strip), " (", f.changes,
                    f.changes == 1 ? " change" : " changes", ")",
                    f.mixed_nights.empty() ? "" : absl::StrCat("; trials disagree on ", Esc(absl::StrJoin(f.mixed_nights, ", "))),
                    "</td></tr>\n");
  }
  AppendTableSection(html, "flaky", "Flaky", flaky.size(),
                     "No point went back and forth, and no night's trials disagreed.",
                     {"point", "failed trials", "nights with a failure", "verdicts, oldest first"}, rows);
}

void AppendEveryPoint(std::string& html, const std::vector<std::string>& nights, const std::vector<PointHistory>& histories) {
  html += "<section id=\"points\"><h2>Every point, night by night</h2>\n"
          "<p class=\"legend\">Oldest night first. <span class=\"v v-pass\">P</span> pass, <span class=\"v v-skip\">S</span> "
          "skip, <span class=\"v v-fail\">F</span> fail, <span class=\"v v-error\">E</span> error, <span class=\"v "
          "v-timeout\">T</span> timeout, <span class=\"v v-crash\">C</span> crash, <span class=\"v v-infra\">I</span> "
          "infrastructure (no verdict), <span class=\"v v-none\">&middot;</span> not run. <span class=\"v v-fail "
          "unmet\">F!</span> a frame and &ldquo;!&rdquo;: the expectation was not met; <span class=\"v v-crash "
          "expected\">C</span> stripes: a failure the scenario expects.</p>\n<table class=\"grid\"><tr><th>point</th>";
  for (const std::string& night : nights) absl::StrAppend(&html, "<th class=\"night\"><span>", Esc(night), "</span></th>");
  html += "<th>metrics</th></tr>\n";
  for (const PointHistory& h : histories) {
    std::map<std::string, const NightResult*> by_night;
    for (const NightResult& n : h.nights) by_night[n.night] = &n;
    absl::StrAppend(&html, "<tr class=\"point\"><td>", PointName(h.key), "</td>");
    for (const std::string& night : nights) {
      auto it = by_night.find(night);
      html += it == by_night.end()
                  ? absl::StrCat("<td><span class=\"v v-none\" title=\"", Esc(night), ": not run\">&middot;</span></td>")
                  : absl::StrCat("<td>", VerdictBox(*it->second), "</td>");
    }
    absl::StrAppend(&html, "<td>", TrendsOnDemand(nights, h), "</td></tr>\n");
  }
  html += "</table></section>\n";
}

}  // namespace

std::string RenderHistoryHtml(const std::vector<std::string>& nights, const std::vector<PointHistory>& histories) {
  std::string html = absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>gpuharness history</title><style>"
      "body{font-family:sans-serif;margin:1em;color:#1f2328}table{border-collapse:collapse;margin-bottom:1em}"
      "td,th{border:1px solid #d0d7de;padding:3px 6px;vertical-align:top;text-align:left}"
      ".grid td{padding:2px;text-align:center}.grid td:first-child{text-align:left}"
      "th.night{vertical-align:bottom;padding:4px 2px}th.night span{writing-mode:vertical-rl;transform:rotate(180deg);"
      "font-weight:normal;font-size:85%}"
      ".v{display:inline-block;min-width:1.6em;height:1.6em;line-height:1.6em;text-align:center;font-weight:bold;"
      "font-family:monospace;border-radius:2px}"
      ".v.unmet{box-shadow:inset 0 0 0 2px #000,inset 0 0 0 3px #fff}"
      ".v.expected{background-image:repeating-linear-gradient(45deg,rgba(255,255,255,.3) 0 2px,transparent 2px 6px);"
      "text-shadow:0 0 2px #000,0 0 2px #000}"
      ".v-none{border:1px solid #d0d7de;box-sizing:border-box}"
      ".pt{font-family:monospace}.sig{font-family:monospace;font-size:90%;max-width:40em;overflow-wrap:anywhere}"
      "details summary{cursor:pointer}ul.trends{list-style:none;padding-left:0;margin:4px 0}"
      "ul.trends li{white-space:nowrap}",
      OutcomeCss(), "</style></head><body>\n<h1>gpuharness history</h1>\n");
  absl::StrAppend(&html, "<p>", nights.size(), nights.size() == 1 ? " night" : " nights",
                  nights.empty() ? "" : absl::StrCat(", ", Esc(nights.front()), " to ", Esc(nights.back())), "; ",
                  histories.size(), histories.size() == 1 ? " point" : " points", ".</p>\n");
  AppendBroken(html, histories);
  AppendFlips(html, nights, histories);
  AppendFlaky(html, histories);
  AppendEveryPoint(html, nights, histories);
  return html + "</body></html>\n";
}

}  // namespace gh
