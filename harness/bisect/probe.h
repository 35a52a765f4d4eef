// One probe of a bisect: the trials run on one version, how each trial is classified against the
// failure being hunted, and the verdict (good, bad, other, skip) a sequential test gives.
#ifndef GPUHARNESS_BISECT_PROBE_H_
#define GPUHARNESS_BISECT_PROBE_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/bisect/sprt.h"
#include "harness/core/failure_family.h"
#include "harness/core/outcome.h"
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
  // Where it failed (core/failure_family.h FailureWhere): the user's failing source line, or the
  // step; "" when unknown or passed.
  std::string where = {};
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
  FailureFamily family() const { return FailureFamilyOf(outcome, signature, where); }
};

// The failure being hunted. By default the bad end's most common failure family
// (core/failure_family.h: the same exception or signal at the same place, however it is
// worded); --hunt-signature: a regex searched in the signature instead.
struct HuntSpec {
  std::optional<Outcome> outcome;          // unset: taken from the bad end
  std::optional<std::string> signature;    // RE2 regex; unset: the bad end's failure family
  bool other_as_bad = false;               // count other failures as bad
  // A family already resolved (a finer level hunts what its coarse level hunted); used when no
  // signature regex is given.
  std::optional<FailureFamily> family = {};
  std::string ToString() const;            // "fail ~ /wrong data/", "<the bad end's failure family>"
};

// The --hunt-signature regex, compiled; InvalidArgument "--hunt-signature: bad regex '...':
// <RE2's reason>" when it does not compile.
absl::StatusOr<Regex> CompileHuntSignature(std::string_view signature_regex);

// A HuntSpec with both parts known: a failure family, or an outcome and a compiled regex.
class Hunt {
 public:
  // A regex hunt; `example` the failing line it was seen as (example()). InvalidArgument
  // "--hunt-signature: bad regex '...': <RE2's reason>" for an invalid regex, "--hunt-outcome:
  // must be a failure ..." for pass, skip or infra.
  static absl::StatusOr<Hunt> Create(Outcome outcome, std::string signature_regex, bool other_as_bad,
                                     std::string example = "");
  // A family hunt: a trial is hunted when its failure is of `family` (SameFailureFamily).
  static absl::StatusOr<Hunt> OfFamily(FailureFamily family, bool other_as_bad);
  // Fills what `spec` leaves unset from the bad end's observed failures (pass, skip and
  // unrunnable trials aside): the most common family (of `spec.outcome` when given), or the
  // outcome most common among the trials the regex finds. The line the report quotes is the
  // most common line as printed among the bad end's hunted trials. NotFound when the bad end
  // never failed and the spec does not say what to hunt.
  static absl::StatusOr<Hunt> Resolve(const HuntSpec& spec, const std::vector<TrialResult>& bad_end_trials);

  enum class TrialClass { kPass, kHunted, kOther, kSkip };
  TrialClass Classify(const TrialResult& trial) const;
  // The hunted failure in other words than the line hunted (a release that words the same
  // error differently): hunted, and its line (without " [ranks ...]") is not example().
  bool Reworded(const TrialResult& trial) const;

  Outcome outcome() const { return outcome_; }
  // The regex: --hunt-signature's, or for a family hunt its example matched literally.
  const std::string& signature_regex() const { return regex_.pattern(); }
  const std::optional<FailureFamily>& family() const { return family_; }
  // The failing line as printed that the reports quote ("" when the bad end never showed it).
  const std::string& example() const { return example_; }
  bool other_as_bad() const { return other_as_bad_; }
  std::string ToString() const;

 private:
  bool Matches(const TrialResult& trial) const;  // of the outcome, and of the family or the regex
  Hunt(Outcome outcome, Regex regex, std::optional<FailureFamily> family, std::string example, bool other_as_bad)
      : outcome_(outcome), regex_(std::move(regex)), family_(std::move(family)), example_(std::move(example)),
        other_as_bad_(other_as_bad) {}
  Outcome outcome_;
  Regex regex_;  // compiled once, searched in every trial's signature (regex hunts)
  std::optional<FailureFamily> family_;
  std::string example_;
  bool other_as_bad_;
};

// The most common of `lines` (the first seen wins ties); "" when there are none.
std::string MostCommonLine(const std::vector<std::string>& lines);

// A regex matching `signature` literally, without the " [ranks 1,3]" suffix the rank reduction
// appends (which ranks fail may vary between trials).
std::string SignatureToRegex(const std::string& signature);

// kOther: the version failed, but not with the failure hunted ("failed differently"): it cannot
// be classified. No verdict but kBad and kOther ever holds a failed trial.
enum class ProbeVerdict { kUndecided, kGood, kBad, kOther, kSkip };
std::string_view ProbeVerdictName(ProbeVerdict verdict);  // "undecided", "good", "bad", "other", "skip"
absl::StatusOr<ProbeVerdict> ParseProbeVerdict(std::string_view name);
// For people: "good", "bad", "failed differently", "could not be tested", "undecided".
std::string_view ProbeVerdictText(ProbeVerdict verdict);

// Counts over a version's trials and the verdict they give.
struct ProbeTally {
  int trials = 0;
  int passes = 0;
  int hunted = 0;
  int others = 0;
  int skips = 0;
  int reworded = 0;  // of the hunted, those in other words than the line hunted (Hunt::Reworded)
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

// How a probe's trials decide its verdict: Wald's test (sprt.h), or, once the bad end has shown
// a deterministic failure, the first trial alone (as git bisect decides a commit).
struct ProbeRule {
  SprtConfig sprt;
  bool first_trial_decides = false;
};

// Adds one trial to the tally's counts (trials, passes, hunted, reworded, others, skips,
// signatures, infra_retried).
void CountTrial(const Hunt& hunt, const TrialResult& trial, ProbeTally& tally);

// Counts over every trial of a version, no verdict (the bad end's estimate, pooled probes, a
// confirmed pair).
ProbeTally CountEveryTrial(const Hunt& hunt, const std::vector<TrialResult>& trials);

// Classifies `trials` in order and stops at the first trial after which the verdict is known:
// an unrunnable trial (set-up failure, infra on every attempt) or a skipped trial -> skip. With
// first_trial_decides the first trial decides: a pass good, the hunted failure bad, another
// failure other. Else by the tests: the hunted-failure SPRT accepting "bad" -> bad; the
// other-failure SPRT accepting "bad" while no hunted failure was seen -> other; the hunted test
// accepting "good" -> good when no trial failed, other when only other failures were seen, and
// (any hunted failure makes a version bad, never good) undecided until the cap, bad there. At
// the cap the sign of the llr decides the rest (truncated). Trials after the deciding one are
// not counted; the infra attempts retried under the counted ones (and the deciding one) are, in
// infra_retried.
ProbeTally TallyTrials(const Hunt& hunt, const ProbeRule& rule, const std::vector<TrialResult>& trials);
ProbeTally TallyTrials(const Hunt& hunt, const SprtConfig& sprt, const std::vector<TrialResult>& trials);

}  // namespace gh

#endif  // GPUHARNESS_BISECT_PROBE_H_
