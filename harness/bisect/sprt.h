// Wald's sequential probability ratio test over pass/fail trials: decides whether a version
// fails rarely (good: failure probability <= p_good) or often (bad: >= p_bad) with stated error
// rates, so a clean version needs few trials and an ambiguous one gets more, up to a cap.
#ifndef GPUHARNESS_BISECT_SPRT_H_
#define GPUHARNESS_BISECT_SPRT_H_

#include <string>

#include "absl/status/status.h"

namespace gh {

struct SprtConfig {
  double p_good = 0.01;  // H0: a good version fails at most this often
  double p_bad = 0.3;    // H1: a bad version fails at least this often
  double alpha = 0.01;   // P(call a good version bad)
  double beta = 0.01;    // P(call a bad version good)
  int min_trials = 1;    // never decide before this many trials
  int max_trials = 20;   // at this many the test is truncated: the sign of the LLR decides

  // InvalidArgument naming the field when 0 < p_good < p_bad < 1, 0 < alpha, beta < 0.5,
  // 1 <= min_trials <= max_trials does not hold.
  absl::Status Validate() const;
  std::string ToString() const;  // "p_good=0.01 p_bad=0.3 alpha=0.01 beta=0.01 trials=1..20"
};

enum class SprtDecision { kContinue, kGood, kBad };

struct SprtState {
  SprtDecision decision = SprtDecision::kContinue;
  double llr = 0;          // log-likelihood ratio log(P(data|bad) / P(data|good))
  bool truncated = false;  // decided at max_trials without crossing a boundary
};

// The test after `trials` trials of which `failures` failed.
SprtState EvaluateSprt(const SprtConfig& config, int trials, int failures);

// Boundaries: decide bad when llr >= UpperBound, good when llr <= LowerBound.
double SprtUpperBound(const SprtConfig& config);  // log((1 - beta) / alpha)
double SprtLowerBound(const SprtConfig& config);  // log(beta / (1 - alpha))

}  // namespace gh

#endif  // GPUHARNESS_BISECT_SPRT_H_
