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
  if (!signature && family) return absl::StrCat(family->ToString(), other_as_bad ? " (other failures count as bad)" : "");
  std::string out = outcome ? std::string(OutcomeName(*outcome)) : "<bad end's outcome>";
  absl::StrAppend(&out, " ~ /", signature ? *signature : "<bad end's failure family>", "/");
  if (other_as_bad) absl::StrAppend(&out, " (other failures count as bad)");
  return out;
}

namespace {

absl::Status CheckHuntOutcome(Outcome outcome) {
  if (outcome == Outcome::kPass || outcome == Outcome::kSkip || outcome == Outcome::kInfra) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--hunt-outcome: must be a failure (fail, error, timeout, crash), got '", std::string(OutcomeName(outcome)),
        "'"));
  }
  return absl::OkStatus();
}

bool Failed(const TrialResult& trial) {
  return !trial.unrunnable() && trial.outcome != Outcome::kPass && trial.outcome != Outcome::kSkip;
}

}  // namespace

std::string MostCommonLine(const std::vector<std::string>& lines) {
  std::vector<std::pair<std::string, int>> counts;
  for (const std::string& line : lines) {
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == line; });
    if (it == counts.end()) {
      counts.emplace_back(line, 1);
    } else {
      ++it->second;
    }
  }
  if (counts.empty()) return "";
  return std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second < b.second; })
      ->first;
}

absl::StatusOr<Hunt> Hunt::Create(Outcome outcome, std::string signature_regex, bool other_as_bad,
                                  std::string example) {
  if (absl::Status st = CheckHuntOutcome(outcome); !st.ok()) return st;
  absl::StatusOr<Regex> regex = CompileHuntSignature(signature_regex);
  if (!regex.ok()) return regex.status();
  return Hunt(outcome, *std::move(regex), std::nullopt, std::move(example), other_as_bad);
}

absl::StatusOr<Hunt> Hunt::OfFamily(FailureFamily family, bool other_as_bad) {
  if (absl::Status st = CheckHuntOutcome(family.outcome); !st.ok()) return st;
  absl::StatusOr<Regex> regex = CompileHuntSignature(SignatureToRegex(family.example));
  if (!regex.ok()) return regex.status();
  const Outcome outcome = family.outcome;
  std::string example = family.example;
  return Hunt(outcome, *std::move(regex), std::move(family), std::move(example), other_as_bad);
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
  std::string out;
  for (char c : WithoutRankList(signature)) {
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

absl::StatusOr<Hunt> Hunt::Resolve(const HuntSpec& spec, const std::vector<TrialResult>& bad_end_trials) {
  std::optional<Hunt> hunt;
  if (spec.signature) {
    Outcome outcome = Outcome::kFail;
    if (spec.outcome) {
      outcome = *spec.outcome;
    } else {
      // The outcome most common among the bad end's failures the regex finds (among all its
      // failures when it finds none: the bad end then failed differently).
      absl::StatusOr<Regex> regex = CompileHuntSignature(*spec.signature);
      if (!regex.ok()) return regex.status();
      std::vector<std::string> matching, all;
      for (const TrialResult& t : bad_end_trials) {
        if (!Failed(t)) continue;
        all.emplace_back(OutcomeName(t.outcome));
        if (regex->Search(t.signature)) matching.emplace_back(OutcomeName(t.outcome));
      }
      if (all.empty()) {
        return absl::NotFoundError("the bad end showed no failure to hunt: pass --hunt-outcome and --hunt-signature");
      }
      outcome = *ParseOutcome(MostCommonLine(matching.empty() ? all : matching));
    }
    absl::StatusOr<Hunt> created = Create(outcome, *spec.signature, spec.other_as_bad);
    if (!created.ok()) return created.status();
    hunt = *std::move(created);
  } else if (spec.family) {
    return OfFamily(*spec.family, spec.other_as_bad);
  } else {
    // The most common family among the bad end's failures (first seen wins ties).
    std::vector<std::pair<FailureFamily, int>> families;
    for (const TrialResult& trial : bad_end_trials) {
      if (!Failed(trial) || (spec.outcome && trial.outcome != *spec.outcome)) continue;
      const FailureFamily family = trial.family();
      auto it = std::find_if(families.begin(), families.end(),
                             [&](const auto& f) { return SameFailureFamily(f.first, family); });
      if (it == families.end()) {
        families.emplace_back(family, 1);
      } else {
        ++it->second;
      }
    }
    if (families.empty()) {
      return absl::NotFoundError(absl::StrCat(
          "the bad end showed no ", spec.outcome ? std::string(OutcomeName(*spec.outcome)) : std::string("failure"),
          " to hunt: pass --hunt-outcome and --hunt-signature"));
    }
    auto best = std::max_element(families.begin(), families.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    absl::StatusOr<Hunt> of = OfFamily(best->first, spec.other_as_bad);
    if (!of.ok()) return of.status();
    hunt = *std::move(of);
  }
  // The line the reports quote: the most common hunted line of the bad end, as printed.
  std::vector<std::string> lines;
  for (const TrialResult& trial : bad_end_trials) {
    if (Failed(trial) && hunt->outcome() == trial.outcome && hunt->Matches(trial)) {
      lines.emplace_back(WithoutRankList(trial.signature));
    }
  }
  const std::string example = MostCommonLine(lines);
  if (example.empty()) return *std::move(hunt);
  if (hunt->family_) {  // the family's example becomes the line most often printed
    FailureFamily family = *hunt->family_;
    family.example = example;
    return OfFamily(std::move(family), spec.other_as_bad);
  }
  hunt->example_ = example;
  return *std::move(hunt);
}

bool Hunt::Matches(const TrialResult& trial) const {
  if (trial.outcome != outcome_) return false;
  if (!family_) return regex_.Search(trial.signature);
  // The line hunted itself needs no normalising (the same message is the same family).
  return WithoutRankList(trial.signature) == family_->example || SameFailureFamily(trial.family(), *family_);
}

Hunt::TrialClass Hunt::Classify(const TrialResult& trial) const {
  if (trial.unrunnable() || trial.outcome == Outcome::kSkip) return TrialClass::kSkip;
  if (trial.outcome == Outcome::kPass) return TrialClass::kPass;
  if (Matches(trial)) return TrialClass::kHunted;
  return other_as_bad_ ? TrialClass::kHunted : TrialClass::kOther;
}

bool Hunt::Reworded(const TrialResult& trial) const {
  return !example_.empty() && Failed(trial) && Matches(trial) && WithoutRankList(trial.signature) != example_;
}

std::string Hunt::ToString() const {
  std::string out = family_ ? absl::StrCat(std::string(OutcomeName(outcome_)), " \"", example_, "\" (family: ",
                                         family_->ToString(), ")")
                            : absl::StrCat(std::string(OutcomeName(outcome_)), " ~ /", regex_.pattern(), "/");
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

std::string_view ProbeVerdictText(ProbeVerdict verdict) {
  switch (verdict) {
    case ProbeVerdict::kOther: return "failed differently";
    case ProbeVerdict::kSkip: return "could not be tested";
    default: return ProbeVerdictName(verdict);
  }
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
  if (hunt.Reworded(trial)) ++tally.reworded;
  if (trial.outcome != Outcome::kPass) {
    ++tally.signatures[absl::StrCat(std::string(OutcomeName(trial.outcome)), ": ", trial.signature)];
  }
}

ProbeTally CountEveryTrial(const Hunt& hunt, const std::vector<TrialResult>& trials) {
  ProbeTally tally;
  for (const TrialResult& trial : trials) CountTrial(hunt, trial, tally);
  return tally;
}

ProbeTally TallyTrials(const Hunt& hunt, const ProbeRule& rule, const std::vector<TrialResult>& trials) {
  ProbeTally tally;
  auto decide = [&](ProbeVerdict verdict, bool truncated) {
    tally.verdict = verdict;
    tally.truncated = truncated;
    return tally;
  };
  for (const TrialResult& trial : trials) {
    if (trial.unrunnable()) {
      tally.infra_retried += static_cast<int>(trial.infra_attempts.size());
      MarkUnrunnable(trial, tally);
      return tally;
    }
    CountTrial(hunt, trial, tally);
    if (tally.skips > 0) return decide(ProbeVerdict::kSkip, false);  // the scenario declined to run here: it will again
    if (rule.first_trial_decides) {
      return decide(tally.hunted > 0 ? ProbeVerdict::kBad : tally.others > 0 ? ProbeVerdict::kOther : ProbeVerdict::kGood,
                    false);
    }
    const SprtState hunted = EvaluateSprt(rule.sprt, tally.trials, tally.hunted);
    const SprtState other = EvaluateSprt(rule.sprt, tally.trials, tally.others);
    tally.llr = hunted.llr;
    if (hunted.decision == SprtDecision::kBad) return decide(ProbeVerdict::kBad, hunted.truncated);
    if (tally.hunted == 0 && other.decision == SprtDecision::kBad) return decide(ProbeVerdict::kOther, other.truncated);
    if (hunted.decision == SprtDecision::kGood) {
      // A version that failed is never good: other failures make it "failed differently", a
      // hunted one bad (at the cap, when the test still leans to good).
      if (tally.hunted == 0) return decide(tally.others > 0 ? ProbeVerdict::kOther : ProbeVerdict::kGood, hunted.truncated);
      if (tally.trials >= rule.sprt.max_trials) return decide(ProbeVerdict::kBad, true);
    }
  }
  return tally;
}

ProbeTally TallyTrials(const Hunt& hunt, const SprtConfig& sprt, const std::vector<TrialResult>& trials) {
  return TallyTrials(hunt, ProbeRule{sprt, false}, trials);
}

}  // namespace gh
