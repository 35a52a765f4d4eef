#include "harness/core/trial_verdict.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/core/regex.h"

namespace gh {

std::string TrialVerdictRule::ToString() const {
  if (kind == Kind::kAnyFailure) return "any_failure";
  return absl::StrFormat("failure_rate_above %g", threshold);
}

std::string FailureLabel(Outcome outcome, const std::string& signature) {
  if (outcome == Outcome::kCrash || outcome == Outcome::kTimeout || outcome == Outcome::kInfra ||
      signature.empty()) {
    return std::string(OutcomeName(outcome));
  }
  const size_t end = signature.find_first_of(" :(");
  return signature.substr(0, end == 0 ? std::string::npos : end);
}

TrialSummary SummarizeTrials(const std::vector<PointOutcome>& trials) {
  TrialSummary summary;
  for (const PointOutcome& trial : trials) {
    if (trial.outcome == Outcome::kSkip) {
      ++summary.skipped;
      continue;
    }
    ++summary.trials;
    summary.worst = std::max(summary.worst, trial.outcome);
    if (trial.outcome == Outcome::kPass) continue;
    ++summary.failed;
    ++summary.labels[FailureLabel(trial.outcome, trial.signature)];
    ++summary.signatures[trial.signature];
  }
  return summary;
}

bool TrialsFailed(const TrialSummary& summary, const TrialVerdictRule& rule) {
  if (summary.trials == 0) return false;
  if (rule.kind == TrialVerdictRule::Kind::kAnyFailure) return summary.failed > 0;
  return static_cast<double>(summary.failed) / summary.trials > rule.threshold;
}

bool TrialsMeetExpectation(const Expectation& expected, const TrialSummary& summary,
                           const TrialVerdictRule& rule) {
  // A trial the machinery failed says nothing about the point: it cannot be judged.
  if (summary.worst == Outcome::kInfra) return false;
  if (expected.outcome == Outcome::kSkip) return summary.trials == 0 && summary.skipped > 0;
  const bool failed = TrialsFailed(summary, rule);
  if (expected.outcome == Outcome::kPass) return !failed;
  if (!failed) return false;
  if (!expected.signature_regex.has_value()) return true;
  absl::StatusOr<Regex> pattern = Regex::Compile(*expected.signature_regex);
  if (!pattern.ok()) return false;  // the loader validated it; an unusable pattern never matches
  for (const auto& [signature, count] : summary.signatures) {
    if (pattern->Search(signature)) return true;
  }
  return false;
}

std::string RenderTrialSummary(const TrialSummary& summary) {
  std::string text = absl::StrCat(summary.trials, summary.trials == 1 ? " trial, " : " trials, ",
                                  summary.failed, " failed");
  if (!summary.labels.empty()) {
    std::vector<std::pair<std::string, int>> labels(summary.labels.begin(), summary.labels.end());
    std::stable_sort(labels.begin(), labels.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    text += " (";
    for (size_t i = 0; i < labels.size(); ++i) {
      absl::StrAppend(&text, i == 0 ? "" : ", ", labels[i].second, " ", labels[i].first);
    }
    text += ")";
  }
  if (summary.skipped > 0) absl::StrAppend(&text, ", ", summary.skipped, " skipped");
  return text;
}

}  // namespace gh
