#include "harness/bisect/sprt.h"

#include <cmath>

#include "absl/strings/str_format.h"

namespace gh {

absl::Status SprtConfig::Validate() const {
  if (!(p_good > 0 && p_good < 1)) {
    return absl::InvalidArgumentError(absl::StrFormat("p_good: must be in (0, 1), got %g", p_good));
  }
  if (!(p_bad > p_good && p_bad < 1)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("p_bad: must be in (p_good=%g, 1), got %g", p_good, p_bad));
  }
  if (!(alpha > 0 && alpha < 0.5)) {
    return absl::InvalidArgumentError(absl::StrFormat("alpha: must be in (0, 0.5), got %g", alpha));
  }
  if (!(beta > 0 && beta < 0.5)) {
    return absl::InvalidArgumentError(absl::StrFormat("beta: must be in (0, 0.5), got %g", beta));
  }
  if (min_trials < 1) {
    return absl::InvalidArgumentError(absl::StrFormat("min_trials: must be >= 1, got %d", min_trials));
  }
  if (max_trials < min_trials) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "max_trials: must be >= min_trials (%d), got %d", min_trials, max_trials));
  }
  return absl::OkStatus();
}

std::string SprtConfig::ToString() const {
  return absl::StrFormat("p_good=%g p_bad=%g alpha=%g beta=%g trials=%d..%d", p_good, p_bad,
                         alpha, beta, min_trials, max_trials);
}

double SprtUpperBound(const SprtConfig& config) {
  return std::log((1 - config.beta) / config.alpha);
}

double SprtLowerBound(const SprtConfig& config) {
  return std::log(config.beta / (1 - config.alpha));
}

SprtState EvaluateSprt(const SprtConfig& config, int trials, int failures) {
  SprtState state;
  const int passes = trials - failures;
  state.llr = failures * std::log(config.p_bad / config.p_good) +
              passes * std::log((1 - config.p_bad) / (1 - config.p_good));
  if (trials < config.min_trials) return state;
  if (state.llr >= SprtUpperBound(config)) {
    state.decision = SprtDecision::kBad;
  } else if (state.llr <= SprtLowerBound(config)) {
    state.decision = SprtDecision::kGood;
  } else if (trials >= config.max_trials) {
    // Truncated test: the hypothesis the evidence leans to. With max_trials = 1 this is the
    // plain "one trial, fail means bad" of a deterministic bisect.
    state.truncated = true;
    state.decision = state.llr > 0 ? SprtDecision::kBad : SprtDecision::kGood;
  }
  return state;
}

}  // namespace gh
