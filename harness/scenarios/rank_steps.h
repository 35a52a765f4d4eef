// What the scenario kinds' rank code shares about where a rank is and how it ends: the step it
// is in, and an error outcome that keeps what the point measured before it failed. Plain C++:
// both backends use it.
#ifndef GPUHARNESS_SCENARIOS_RANK_STEPS_H_
#define GPUHARNESS_SCENARIOS_RANK_STEPS_H_

#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "harness/core/outcome.h"
#include "harness/runtime/point_context.h"

namespace gh {

// The step a rank is in, which its error outcome names (`step_`).
class RankSteps {
 protected:
  explicit RankSteps(PointContext& ctx) : steps_ctx_(ctx) {}

  // Enters `step` (and tells the context, which the watchdog and the crash record read).
  void Step(const char* step, const char* operation = nullptr, int64_t bytes = 0) {
    step_ = step;
    steps_ctx_.SetStep(step, operation, bytes);
  }

  const char* step_ = "setup";

 private:
  PointContext& steps_ctx_;
};

// Keeps what `out` measured so far, as the error record shows it ("" leaves the step unset).
inline RankOutcome ErrorKeepingMetrics(RankOutcome out, std::string signature,
                                       std::string step = "") {
  RankOutcome error = RankOutcome::Error(std::move(signature), std::move(step));
  error.metrics = std::move(out.metrics);
  return error;
}

inline RankOutcome ErrorKeepingMetrics(RankOutcome out, const absl::Status& status,
                                       std::string step = "") {
  return ErrorKeepingMetrics(std::move(out), std::string(status.message()), std::move(step));
}

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_RANK_STEPS_H_
