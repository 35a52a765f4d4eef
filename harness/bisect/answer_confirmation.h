// A deterministic failure is searched with one trial per probe, as git bisect does: a bet that
// every run of a bad version fails. Before such an answer stands its pair is confirmed: the
// first bad version fails again, and the last good one passes (or the first bad fails) more
// times until the risk the bet takes is at most the bound. A confirming trial that disagrees
// with its version's first (a pass of the first bad, any failure of the last good) ends the
// bet: the failure is flaky, and the caller searches again with every trial pooled.
#ifndef GPUHARNESS_BISECT_ANSWER_CONFIRMATION_H_
#define GPUHARNESS_BISECT_ANSWER_CONFIRMATION_H_

#include <map>

#include "absl/status/status.h"
#include "harness/bisect/bisect_runner.h"
#include "harness/bisect/probe.h"

namespace gh {

// One version's trials as evidence about the change point: the hunted failures and the passes.
struct VersionEvidence {
  int hunted = 0;
  int passes = 0;
};

// Where the change can be and how a flaky failure would behave there.
struct RiskModel {
  int good = 0;  // the ends (good < bad): the change point c is in good..bad (c = good: the
  int bad = 0;   // good end itself fails)
  double min_rate = 0.3;  // a flaky bad version fails at a rate q in [min_rate, 1]
  double p_good = 0.01;   // a good version shows the hunted failure this often
};

// The risk a one-trial-per-probe answer (last_good, first_bad] takes: the largest, over the
// failure rates q of the model, of the probability that a failure changing anywhere outside
// (last_good, first_bad] gives exactly `evidence` (version -> counts), summed over those change
// points. For a flaky failure at any one rate and a change point anywhere, this economy's
// answers are wrong at most this often on average, when each answer holds it below a bound.
double FlakyAnswerRisk(const std::map<int, VersionEvidence>& evidence, const RiskModel& model, int last_good,
                       int first_bad);

// Confirms result.answer (of a search whose probes took one trial each, in result.probes):
// trials of the first bad until it failed twice, then of whichever of the pair lowers the risk
// most, up to config.jobs at once, until FlakyAnswerRisk is at most config.sprt.beta or both are
// at config.sprt.max_trials. Appends the trials to the two probes (their counts over every
// trial), adds them to result.total_trials and fills result.economy's confirmation, risk,
// risk_bound and risk_note; a disagreeing trial sets result.economy.turned_flaky instead and
// stops. Only a runner error is an error.
absl::Status ConfirmAnswer(const BisectConfig& config, TrialRunner& runner, const Hunt& hunt, BisectResult& result);

}  // namespace gh

#endif  // GPUHARNESS_BISECT_ANSWER_CONFIRMATION_H_
