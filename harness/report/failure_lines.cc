#include "harness/report/failure_lines.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/core/trial_verdict.h"
#include "harness/report/perf_report.h"

namespace gh {
namespace {

// Long enough for a signature's reason, short enough to stay one terminal line or two.
constexpr size_t kMaxDetailChars = 200;

std::string UnmetDetail(const PointTrials& now) {
  if (now.judged_by_verdict) {
    return absl::StrCat(RenderTrialSummary(now.trial_summary), "; expected ", now.expected.ToString(),
                        " by ", now.verdict.ToString());
  }
  return absl::StrCat(OutcomeAndSignature(now.worst, now.first_unmet_signature), " (expected ",
                      now.expected.ToString(), ")");
}

std::string RegressionDetail(const PointTrials& now) {
  const std::string what = now.judged_by_verdict
                               ? RenderTrialSummary(now.trial_summary)
                               : OutcomeAndSignature(now.worst, now.first_failure_signature);
  return absl::StrCat(what, " (a regression: it passed in the baseline)");
}

// What a met key shows with verbose.
FailureLine MetLine(const PointTrials& now) {
  FailureLine line;
  line.outcome = now.worst;
  if (now.worst == Outcome::kPass) {
    line.word = "PASSED";
  } else if (now.worst == Outcome::kSkip) {
    line.word = "SKIPPED";
    line.detail = now.skip_reason;
  } else {
    line.word = "XFAIL";  // pytest's word for a failure that was expected
    line.detail = now.judged_by_verdict ? UnmetDetail(now)
                                        : absl::StrCat(OutcomeAndSignature(now.worst, now.first_failure_signature),
                                                       " (expected ", now.expected.ToString(), ")");
  }
  return line;
}

}  // namespace

std::string OutcomeAndSignature(Outcome outcome, const std::string& signature) {
  const std::string name(OutcomeName(outcome));
  if (signature.empty() || signature == name || absl::StartsWith(signature, name + ":")) {
    return signature.empty() ? name : signature;
  }
  return absl::StrCat(name, ": ", signature);
}

int FailureImportance(const FailureLine& line) {
  if (line.infrastructure) return 0;
  switch (line.outcome) {
    case Outcome::kCrash: return 1;
    case Outcome::kTimeout: return 2;
    case Outcome::kError: return 3;
    case Outcome::kFail: return 4;
    case Outcome::kPass: return 5;
    case Outcome::kSkip: return 6;
    default: return 0;  // an outcome this file does not know yet: shown first, never lost
  }
}

std::string FailureCellName(const std::map<std::string, std::string>& cell, const SweepInfo* sweep) {
  if (sweep == nullptr) return CellKey(cell);
  std::vector<std::string> parts;
  std::map<std::string, std::string> rest = cell;
  for (const SweepAxisInfo& axis : sweep->axes) {
    auto it = rest.find(axis.name);
    if (it == rest.end()) continue;
    parts.push_back(absl::StrCat(it->first, "=", it->second));
    rest.erase(it);
  }
  for (const auto& [axis, label] : rest) parts.push_back(absl::StrCat(axis, "=", label));
  return absl::StrJoin(parts, ",");
}

std::vector<FailureLine> ComparisonFailureLines(const Comparison& comparison, const SweepInfo* sweep,
                                                bool verbose) {
  std::vector<FailureLine> failed, met;
  for (const PointComparison& entry : comparison.points) {
    if (!entry.now) continue;  // vanished: nothing ran to fail
    const PointTrials& now = *entry.now;
    const bool regression = entry.change == BaselineChange::kRegression;
    FailureLine line;
    if (!now.expectation_met()) {
      line.outcome = now.worst;
      line.detail = UnmetDetail(now);
      if (regression) absl::StrAppend(&line.detail, "; a regression against the baseline");
    } else if (regression) {
      line.outcome = now.worst;
      line.detail = RegressionDetail(now);
    } else if (entry.perf_regressed()) {
      line.outcome = now.worst;
      line.detail = absl::StrCat(PerfRegressionText(entry), " vs the baseline",
                                 comparison.perf_options.warn_only ? " (warn only)" : "");
      if (comparison.perf_options.warn_only) line.word = "WARNING";
    } else if (verbose) {
      line = MetLine(now);
    } else {
      continue;
    }
    line.cell = FailureCellName(now.cell, sweep);
    line.point = now.key.point;
    (line.word == "FAILED" ? failed : met).push_back(std::move(line));
  }
  failed.insert(failed.end(), std::make_move_iterator(met.begin()), std::make_move_iterator(met.end()));
  return failed;
}

std::string OneLineClipped(const std::string& text, size_t limit) {
  std::string out;
  size_t points = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const bool starts_point = (c & 0xC0) != 0x80;
    if (starts_point && points == limit) {
      // Cut: make room for "..." without splitting a code point.
      size_t keep = out.size(), dropped = 0;
      while (keep > 0 && dropped < 3) {
        --keep;
        if ((static_cast<unsigned char>(out[keep]) & 0xC0) != 0x80) ++dropped;
      }
      return out.substr(0, keep) + "...";
    }
    if (starts_point) ++points;
    out += (c < 0x20 || c == 0x7F) ? ' ' : text[i];
  }
  return out;
}

std::string RenderFailureLines(std::vector<FailureLine> lines, const ConsoleStyle& style) {
  auto failed_end = std::stable_partition(lines.begin(), lines.end(),
                                          [](const FailureLine& l) { return l.word == "FAILED"; });
  std::stable_sort(lines.begin(), failed_end, [](const FailureLine& a, const FailureLine& b) {
    return FailureImportance(a) < FailureImportance(b);
  });
  std::string out;
  for (const FailureLine& line : lines) {
    const std::string word = line.word == "FAILED"   ? style.Red(line.word)
                             : line.word == "PASSED" ? style.Green(line.word)
                                                     : line.word;
    absl::StrAppend(&out, word, " ", OneLineClipped(line.cell, kMaxDetailChars),
                    line.cell.empty() ? "" : " :: ", OneLineClipped(line.point, kMaxDetailChars));
    if (!line.detail.empty()) absl::StrAppend(&out, " — ", OneLineClipped(line.detail, kMaxDetailChars));
    out += "\n";
  }
  return out;
}

}  // namespace gh
