#include "harness/report/console_table.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/core/comparison.h"

namespace gh {
namespace {

constexpr size_t kMaxSignatureChars = 60;
constexpr std::string_view kUnmetMark = "✗";

// Display width, counting each UTF-8 code point as one column.
size_t Width(const std::string& text) {
  size_t width = 0;
  for (unsigned char c : text) width += (c & 0xC0) != 0x80;
  return width;
}

// Cuts to at most `limit` code points, ending in "..." when cut; never splits a code point.
std::string Truncate(const std::string& text, size_t limit) {
  if (Width(text) <= limit) return text;
  size_t keep = limit - 3, seen = 0, i = 0;
  for (; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      if (seen == keep) break;
      ++seen;
    }
  }
  return text.substr(0, i) + "...";
}

// One line per signature: newlines and tabs would break the table.
std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return text;
}

std::string Fixed1(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.1f", value);
  return buffer;
}

std::string HeadlineMetric(const std::vector<Metric>& metrics) {
  for (const Metric& m : metrics) {
    if (m.name == "bandwidth_GBps") return Fixed1(m.value) + " GB/s";
  }
  for (const Metric& m : metrics) {
    if (m.name == "time_median_us") return Fixed1(m.value) + " us";
  }
  return "";
}

}  // namespace

std::string RenderConsoleTable(const std::vector<Record>& records) {
  bool show_trial = std::any_of(records.begin(), records.end(),
                                [](const Record& r) { return r.trials > 1; });
  std::vector<const Record*> order;
  for (const Record& r : records) if (!r.matched) order.push_back(&r);
  for (const Record& r : records) if (r.matched) order.push_back(&r);

  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"", "point"};
  if (show_trial) header.push_back("trial");
  for (const char* h : {"outcome", "expected", "signature", "metric"}) header.push_back(h);
  rows.push_back(header);
  for (const Record* r : order) {
    std::vector<std::string> row = {r->matched ? "" : std::string(kUnmetMark), r->point};
    if (show_trial) row.push_back(absl::StrCat(r->trial + 1, "/", r->trials));
    row.push_back(std::string(OutcomeName(r->result.outcome)));
    row.push_back(r->expected.ToString());
    row.push_back(Truncate(OneLine(r->result.signature), kMaxSignatureChars));
    row.push_back(HeadlineMetric(r->result.metrics));
    rows.push_back(std::move(row));
  }

  if (order.empty() || order.front()->matched) {
    for (auto& row : rows) row.erase(row.begin());  // no ✗ to show: drop the mark column
  }
  std::vector<size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], Width(row[c]));
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      if (c > 0) line += "  ";
      line += row[c];
      line.append(widths[c] - Width(row[c]), ' ');
    }
    line.erase(line.find_last_not_of(' ') + 1);
    absl::StrAppend(&out, line, "\n");
  }

  return out + RenderTrialVerdicts(records) + RenderConsoleTally(records);
}

std::string RenderTrialVerdicts(const std::vector<Record>& records) {
  // Points run several times are judged on all their trials together (core/trial_verdict.h):
  // one line each, in the seed reports' words.
  std::string out;
  std::vector<std::string> trial_lines;
  for (const PointTrials& point : AggregateTrials(records)) {
    if (!point.judged_by_verdict) continue;
    const bool met = point.unmet == 0;
    std::string label = point.key.point;
    if (!point.description.empty()) label = absl::StrCat(point.description, " (", label, ")");
    trial_lines.push_back(absl::StrCat(met ? "  " : std::string(kUnmetMark) + " ", label, " — ",
                                       RenderTrialSummary(point.trial_summary), "; expected ",
                                       point.expected.ToString(), " by ",
                                       point.verdict.ToString()));
  }
  if (!trial_lines.empty()) {
    absl::StrAppend(&out, "trials, judged per point:\n", absl::StrJoin(trial_lines, "\n"), "\n");
  }
  return out;
}

std::string RenderConsoleTally(const std::vector<Record>& records) {
  // A point judged on several trials counts once in the unmet tally.
  int unmet = 0;
  for (const PointTrials& point : AggregateTrials(records)) {
    unmet += point.judged_by_verdict ? (point.unmet == 0 ? 0 : 1) : point.unmet;
  }
  const bool show_trial = std::any_of(records.begin(), records.end(),
                                      [](const Record& r) { return r.trials > 1; });
  std::string out;

  // Tally: outcomes by severity with skip last, then unmet expectations.
  std::map<Outcome, int> counts;
  for (const Record& r : records) ++counts[r.result.outcome];
  std::vector<std::string> parts;
  for (Outcome o : {Outcome::kPass, Outcome::kFail, Outcome::kError, Outcome::kTimeout,
                    Outcome::kCrash, Outcome::kInfra, Outcome::kSkip}) {
    if (counts[o] > 0) parts.push_back(absl::StrCat(counts[o], " ", std::string(OutcomeName(o))));
  }
  std::string noun = show_trial ? (records.size() == 1 ? "point trial" : "point trials")
                                : (records.size() == 1 ? "point" : "points");
  absl::StrAppend(&out, records.size(), " ", noun);
  if (!parts.empty()) absl::StrAppend(&out, ": ", absl::StrJoin(parts, ", "));
  if (unmet == 0) {
    absl::StrAppend(&out, "; all expectations met\n");
  } else {
    absl::StrAppend(&out, "; ", unmet, unmet == 1 ? " unmet expectation\n" : " unmet expectations\n");
  }
  return out;
}

}  // namespace gh
