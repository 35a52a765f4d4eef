// Trials as a first-class result: a point run N times is judged on all N together. The trials'
// outcomes are counted (k of N failed, each failure's label with its count) and a rule the
// scenario states (`verdict: any_failure` or `verdict: {failure_rate_above: 0.2}`) decides
// whether the point as a whole failed. Races such as the stream-capture one in seed 001 only
// show as a rate: one trial proves little either way.
#ifndef GPUHARNESS_CORE_TRIAL_VERDICT_H_
#define GPUHARNESS_CORE_TRIAL_VERDICT_H_

#include <map>
#include <string>
#include <vector>

#include "harness/core/expectation.h"
#include "harness/core/outcome.h"

namespace gh {

// The scenario's rule for when a point's trials add up to a failure.
struct TrialVerdictRule {
  enum class Kind { kAnyFailure, kFailureRateAbove };
  Kind kind = Kind::kAnyFailure;
  double threshold = 0;  // kFailureRateAbove: failed/N strictly above this fails the point
  std::string ToString() const;  // "any_failure", "failure_rate_above 0.2"
};

// What N trials of one point added up to.
struct TrialSummary {
  int trials = 0;   // trials that ran (skips are left out)
  int skipped = 0;
  int failed = 0;   // fail, error, timeout, crash or infra
  // A label per failure class with its count, "swallowed" -> 9, "crash" -> 1: crashes and
  // timeouts (and infra) by their outcome, others by the signature's first word ("swallowed 200/200" ->
  // "swallowed", "cudaErrorStreamCaptureInvalidated in ..." -> that error name).
  std::map<std::string, int> labels;
  // Every distinct full signature of a failed trial with its count.
  std::map<std::string, int> signatures;
  Outcome worst = Outcome::kPass;  // the most severe outcome of any trial
};

// The label a failed trial is counted under (see TrialSummary::labels).
std::string FailureLabel(Outcome outcome, const std::string& signature);

// Counts the trials' outcomes (one PointOutcome per trial).
TrialSummary SummarizeTrials(const std::vector<PointOutcome>& trials);

// Whether the trials add up to a failed point under `rule`. No trial ran: not failed.
bool TrialsFailed(const TrialSummary& summary, const TrialVerdictRule& rule);

// Whether the point's trials meet its expectation: never when a trial ended infra. Expected pass: the rule must not call the
// point failed. Expected any other outcome: the rule must call it failed, and when a signature
// regex is given, at least one failed trial's signature must match it. Expected skip: every
// trial skipped.
bool TrialsMeetExpectation(const Expectation& expected, const TrialSummary& summary,
                           const TrialVerdictRule& rule);

// "10 trials, 10 failed (9 swallowed, 1 crash)", "10 trials, 0 failed"; labels by count,
// largest first, then by name; skips appended as ", 2 skipped".
std::string RenderTrialSummary(const TrialSummary& summary);

}  // namespace gh

#endif  // GPUHARNESS_CORE_TRIAL_VERDICT_H_
