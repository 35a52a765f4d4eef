// One probe of a bisect: the trials run on one version, how each trial is classified against the
// failure being hunted, and the verdict (good, bad, other, skip) a sequential test gives.
#ifndef GPUHARNESS_BISECT_PROBE_H_
#define GPUHARNESS_BISECT_PROBE_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/outcome.h"
#include "harness/bisect/sprt.h"
#include "harness/core/regex.h"

namespace gh {

// An infrastructure failure under a trial that was then run again (driver/job_pool.h):
// not a trial of the version, kept so the reports can show it.
struct InfraAttempt {
  std::string signature;  // "infrastructure: srun: error: ... (job exited with status 1)"
  std::string detail;     // the attempt's trial directory
};

// One trial of one version: a job's outcome reduced over the points it ran.
struct TrialResult {
  Outcome outcome = Outcome::kPass;
  std::string signature;
  bool setup_failed = false;  // the version could not be set up: no trial ran
  std::string detail;         // set-up failure text, or the trial's directory
  double wall_s = 0;
  std::string point = {};     // the point whose record gave the outcome ("" when none ran)
  // The passing records' metrics with their samples pooled (the perf bisect's measurements,
  // bisect/perf_probe.h); not kept in bisect_state.json.
  std::vector<Metric> metrics = {};
  // The attempts before this one that ended infra and were run again, oldest first.
  std::vector<InfraAttempt> infra_attempts = {};
  // Nothing of the version could be judged: it could not be set up, or the trial's job ended
  // infra (the launcher or MPI start-up failed, a node died, driver/job_failure_kind.h) on
  // every attempt. Such a trial counts neither good nor bad: its probe is skipped.
  bool unrunnable() const { return setup_failed || outcome == Outcome::kInfra; }
  // Why, for an unrunnable trial: the set-up failure text, or the infra signature, with
  // " after N attempts" when it was retried.
  std::string unrunnable_reason() const;
};

// The failure being hunted: an outcome and a regex searched in the signature.
struct HuntSpec {
  std::optional<Outcome> outcome;          // unset: taken from the bad end
  std::optional<std::string> signature;    // RE2 regex; unset: from the bad end
  bool other_as_bad = false;               // count other failures as bad
  std::string ToString() const;            // "fail ~ /wrong data/"
};

// The --hunt-signature regex, compiled; InvalidArgument "--hunt-signature: bad regex '...':
// <RE2's reason>" when it does not compile.
absl::StatusOr<Regex> CompileHuntSignature(std::string_view signature_regex);

// A HuntSpec with both parts known and the regex compiled.
class Hunt {
 public:
  // InvalidArgument "--hunt-signature: bad regex '...': <RE2's reason>" for an invalid regex.
  static absl::StatusOr<Hunt> Create(Outcome outcome, std::string signature_regex, bool other_as_bad);
  // Fills what `spec` leaves unset from the bad end's observed failure (the most common
  // non-pass, non-skip, non-infra outcome and signature among `bad_end_trials`). NotFound when the bad
  // end never failed and the spec does not say what to hunt.
  static absl::StatusOr<Hunt> Resolve(const HuntSpec& spec, const std::vector<TrialResult>& bad_end_trials);

  enum class TrialClass { kPass, kHunted, kOther, kSkip };
  TrialClass Classify(const TrialResult& trial) const;

  Outcome outcome() const { return outcome_; }
  const std::string& signature_regex() const { return regex_.pattern(); }
  bool other_as_bad() const { return other_as_bad_; }
  std::string ToString() const;

 private:
  Hunt(Outcome outcome, Regex regex, bool other_as_bad)
      : outcome_(outcome), regex_(std::move(regex)), other_as_bad_(other_as_bad) {}
  Outcome outcome_;
  Regex regex_;  // compiled once, searched in every trial's signature
  bool other_as_bad_;
};

// A regex matching `signature` literally, without the " [ranks 1,3]" suffix the rank reduction
// appends (which ranks fail may vary between trials).
std::string SignatureToRegex(const std::string& signature);

enum class ProbeVerdict { kUndecided, kGood, kBad, kOther, kSkip };
std::string_view ProbeVerdictName(ProbeVerdict verdict);  // "undecided", "good", "bad", "other", "skip"
absl::StatusOr<ProbeVerdict> ParseProbeVerdict(std::string_view name);

// Counts over a version's trials and the verdict they give.
struct ProbeTally {
  int trials = 0;
  int passes = 0;
  int hunted = 0;
  int others = 0;
  int skips = 0;
  std::map<std::string, int> signatures;  // "<outcome>: <signature>" -> trials, non-pass only
  ProbeVerdict verdict = ProbeVerdict::kUndecided;
  bool truncated = false;  // decided at the trial cap without reaching an SPRT boundary
  double llr = 0;          // of the hunted-failure test
  std::string setup_failure;  // the version could not be set up: why
  // Infra on every attempt of a trial: "infrastructure: ... after 3 attempts".
  std::string infra_failure;
  int infra_retried = 0;   // infra attempts that were run again (not trials: not in `trials`)
  // Why the probe could not be judged: "set-up failed: ...", the infra failure, or "".
  std::string Unrunnable() const;
  // "3 trials: 1 pass, 2 hunted", then "; 1 infra attempt retried" when there were some.
  std::string Counts() const;
};

// A probe skipped because of `trial` (unrunnable): its verdict and setup_failure or infra_failure.
void MarkUnrunnable(const TrialResult& trial, ProbeTally& tally);

// Classifies `trials` in order and stops at the first trial after which the verdict is known:
// an unrunnable trial (set-up failure, infra on every attempt) or a skipped trial -> skip; the hunted-failure SPRT accepting "bad" -> bad;
// the other-failure SPRT accepting "bad" while no hunted failure was seen -> other; both
// accepting "good" -> good. Trials after the deciding one are not counted; the infra attempts
// retried under the counted ones (and the deciding one) are, in infra_retried.
// Adds one trial to the tally's counts (trials, passes, hunted, others, skips, signatures,
// infra_retried).
void CountTrial(const Hunt& hunt, const TrialResult& trial, ProbeTally& tally);
ProbeTally TallyTrials(const Hunt& hunt, const SprtConfig& sprt, const std::vector<TrialResult>& trials);

}  // namespace gh

#endif  // GPUHARNESS_BISECT_PROBE_H_
