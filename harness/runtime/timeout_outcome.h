// The outcome of a point × trial that outlived its timeout, from the watchdogs' reports: which
// rank was in which step.
#ifndef GPUHARNESS_RUNTIME_TIMEOUT_OUTCOME_H_
#define GPUHARNESS_RUNTIME_TIMEOUT_OUTCOME_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "harness/core/outcome.h"
#include "harness/runtime/watchdog.h"

namespace gh {

// Steps the runtime itself labels, outside any scenario's code.
inline constexpr char kStepStart[] = "start";
inline constexpr char kStepCollect[] = "collect results";

// Every rank ends as `timeout` with its step. The signature groups ranks by step, the
// scenario's own steps first, then the runtime's, then unresponsive ranks:
//   "timeout after 5s in step 'exchange' [ranks 0,1]; step 'collect results' [ranks 2];
//    unresponsive [ranks 3]"
// `hosts` and `devices` are per rank (for the details). Each rank's entry carries its stack
// and note from its report; the outcome's hang report, the summary lines and the divergence
// line (hang_report.h). NCCL's view is the caller's to add.
PointOutcome TimeoutOutcome(absl::Duration timeout, const std::vector<WatchdogReport>& reports,
                            const std::vector<std::string>& hosts, const std::vector<int>& devices);

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_TIMEOUT_OUTCOME_H_
