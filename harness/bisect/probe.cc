#include "harness/bisect/probe.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace gh {

std::string TrialResult::unrunnable_reason() const {
  if (setup_failed) return detail;
  if (infra_attempts.empty()) return signature;
  return absl::StrCat(signature, " after ", infra_attempts.size() + 1, " attempts");
}

std::string HuntSpec::ToString() const {
  std::string out = outcome ? std::string(OutcomeName(*outcome)) : "<bad end's outcome>";
  absl::StrAppend(&out, " ~ /", signature ? *signature : "<bad end's signature>", "/");
  if (other_as_bad) absl::StrAppend(&out, " (other failures count as bad)");
  return out;
}

absl::StatusOr<Hunt> Hunt::Create(Outcome outcome, std::string signature_regex, bool other_as_bad) {
  if (outcome == Outcome::kPass || outcome == Outcome::kSkip || outcome == Outcome::kInfra) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--hunt-outcome: must be a failure (fail, error, timeout, crash), got '",
        std::string(OutcomeName(outcome)), "'"));
  }
  absl::StatusOr<Regex> regex = CompileHuntSignature(signature_regex);
  if (!regex.ok()) return regex.status();
  return Hunt(outcome, *std::move(regex), other_as_bad);
}

absl::StatusOr<Regex> CompileHuntSignature(std::string_view signature_regex) {
  absl::StatusOr<Regex> regex = Regex::Compile(signature_regex);
  if (!regex.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--hunt-signature: bad regex '", std::string(signature_regex),
                                                   "': ", regex.status().message()));
  }
  return regex;
}

std::string SignatureToRegex(const std::string& signature) {
  std::string text = signature;
  // Drop a trailing " [ranks ...]" (the reduction's note of which ranks ended so).
  if (size_t at = text.rfind(" [ranks "); at != std::string::npos && text.back() == ']') {
    text.resize(at);
  }
  std::string out;
  for (char c : text) {
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

absl::StatusOr<Hunt> Hunt::Resolve(const HuntSpec& spec, const std::vector<TrialResult>& bad_end_trials) {
  if (spec.outcome && spec.signature) return Create(*spec.outcome, *spec.signature, spec.other_as_bad);
  // The most common failure among the bad end's trials (first seen wins ties).
  std::vector<std::pair<const TrialResult*, int>> seen;
  for (const TrialResult& trial : bad_end_trials) {
    if (trial.unrunnable() || trial.outcome == Outcome::kPass || trial.outcome == Outcome::kSkip) continue;
    if (spec.outcome && trial.outcome != *spec.outcome) continue;
    std::string regex = SignatureToRegex(trial.signature);
    auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& entry) {
      return entry.first->outcome == trial.outcome && SignatureToRegex(entry.first->signature) == regex;
    });
    if (it == seen.end()) {
      seen.emplace_back(&trial, 1);
    } else {
      ++it->second;
    }
  }
  if (seen.empty()) {
    return absl::NotFoundError(absl::StrCat(
        "the bad end showed no ",
        spec.outcome ? std::string(OutcomeName(*spec.outcome)) : std::string("failure"),
        " to hunt: pass --hunt-outcome and --hunt-signature"));
  }
  auto best = std::max_element(seen.begin(), seen.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  Outcome outcome = spec.outcome ? *spec.outcome : best->first->outcome;
  std::string regex = spec.signature ? *spec.signature : SignatureToRegex(best->first->signature);
  return Create(outcome, std::move(regex), spec.other_as_bad);
}

Hunt::TrialClass Hunt::Classify(const TrialResult& trial) const {
  if (trial.unrunnable() || trial.outcome == Outcome::kSkip) return TrialClass::kSkip;
  if (trial.outcome == Outcome::kPass) return TrialClass::kPass;
  if (trial.outcome == outcome_ && regex_.Search(trial.signature)) return TrialClass::kHunted;
  return other_as_bad_ ? TrialClass::kHunted : TrialClass::kOther;
}

std::string Hunt::ToString() const {
  std::string out = absl::StrCat(std::string(OutcomeName(outcome_)), " ~ /", regex_.pattern(), "/");
  if (other_as_bad_) absl::StrAppend(&out, " (other failures count as bad)");
  return out;
}

std::string_view ProbeVerdictName(ProbeVerdict verdict) {
  switch (verdict) {
    case ProbeVerdict::kUndecided: return "undecided";
    case ProbeVerdict::kGood: return "good";
    case ProbeVerdict::kBad: return "bad";
    case ProbeVerdict::kOther: return "other";
    case ProbeVerdict::kSkip: return "skip";
  }
  return "undecided";
}

absl::StatusOr<ProbeVerdict> ParseProbeVerdict(std::string_view name) {
  for (ProbeVerdict v : {ProbeVerdict::kUndecided, ProbeVerdict::kGood, ProbeVerdict::kBad,
                         ProbeVerdict::kOther, ProbeVerdict::kSkip}) {
    if (ProbeVerdictName(v) == name) return v;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown probe verdict '", std::string(name), "'"));
}

std::string ProbeTally::Unrunnable() const {
  if (!setup_failure.empty()) return absl::StrCat("set-up failed: ", setup_failure);
  return infra_failure;
}

std::string ProbeTally::Counts() const {
  std::vector<std::string> parts;
  if (passes) parts.push_back(absl::StrCat(passes, " pass"));
  if (hunted) parts.push_back(absl::StrCat(hunted, " hunted"));
  if (others) parts.push_back(absl::StrCat(others, " other"));
  if (skips) parts.push_back(absl::StrCat(skips, " skip"));
  std::string out = absl::StrCat(trials, trials == 1 ? " trial" : " trials");
  if (!parts.empty()) absl::StrAppend(&out, ": ", absl::StrJoin(parts, ", "));
  if (infra_retried > 0) {
    absl::StrAppend(&out, "; ", infra_retried, infra_retried == 1 ? " infra attempt" : " infra attempts", " retried");
  }
  return out;
}

void MarkUnrunnable(const TrialResult& trial, ProbeTally& tally) {
  tally.verdict = ProbeVerdict::kSkip;
  (trial.setup_failed ? tally.setup_failure : tally.infra_failure) = trial.unrunnable_reason();
}

void CountTrial(const Hunt& hunt, const TrialResult& trial, ProbeTally& tally) {
    tally.infra_retried += static_cast<int>(trial.infra_attempts.size());
    ++tally.trials;
    switch (hunt.Classify(trial)) {
      case Hunt::TrialClass::kPass: ++tally.passes; break;
      case Hunt::TrialClass::kHunted: ++tally.hunted; break;
      case Hunt::TrialClass::kOther: ++tally.others; break;
      case Hunt::TrialClass::kSkip: ++tally.skips; break;
    }
    if (trial.outcome != Outcome::kPass) {
      ++tally.signatures[absl::StrCat(std::string(OutcomeName(trial.outcome)), ": ", trial.signature)];
    }
}

ProbeTally TallyTrials(const Hunt& hunt, const SprtConfig& sprt, const std::vector<TrialResult>& trials) {
  ProbeTally tally;
  for (const TrialResult& trial : trials) {
    if (trial.unrunnable()) {
      tally.infra_retried += static_cast<int>(trial.infra_attempts.size());
      MarkUnrunnable(trial, tally);
      return tally;
    }
    CountTrial(hunt, trial, tally);
    if (tally.skips > 0) {  // the scenario declined to run here: it will again
      tally.verdict = ProbeVerdict::kSkip;
      return tally;
    }
    SprtState hunted = EvaluateSprt(sprt, tally.trials, tally.hunted);
    SprtState other = EvaluateSprt(sprt, tally.trials, tally.others);
    tally.llr = hunted.llr;
    if (hunted.decision == SprtDecision::kBad) {
      tally.verdict = ProbeVerdict::kBad;
      tally.truncated = hunted.truncated;
      return tally;
    }
    if (other.decision == SprtDecision::kBad && (tally.hunted == 0 || hunted.decision == SprtDecision::kGood)) {
      tally.verdict = ProbeVerdict::kOther;
      tally.truncated = other.truncated;
      return tally;
    }
    if (hunted.decision == SprtDecision::kGood && other.decision == SprtDecision::kGood) {
      tally.verdict = ProbeVerdict::kGood;
      tally.truncated = hunted.truncated || other.truncated;
      return tally;
    }
  }
  return tally;
}

}  // namespace gh
