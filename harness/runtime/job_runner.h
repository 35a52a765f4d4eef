// One `gpuharness run` job on this rank: MPI start-up, backend and GPU binding, the results
// directory, then every planned point × trial under the watchdog and the crash guard, outcomes
// gathered and reduced to rank 0, which alone writes records.jsonl and environment.json and,
// at the end, hands every record to the caller's JobReporter (junit.xml, the console table).
#ifndef GPUHARNESS_RUNTIME_JOB_RUNNER_H_
#define GPUHARNESS_RUNTIME_JOB_RUNNER_H_

#include <vector>

#include "harness/core/job_reporter.h"
#include "harness/runtime/run_options.h"
#include "harness/runtime/run_plan.h"

namespace gh {

// `scenarios` were loaded and validated before MPI starts. Returns the exit status, the same
// on every rank: 0 every outcome met its expectation, 1 some did not, 2 bad input (nothing
// written), 3 infrastructure failure (a report `reporter` could not write included). A timeout
// ends the process from the watchdog instead, after `reporter` ran. `reporter` is used on rank
// 0 only and must outlive the call.
int RunJob(const RunOptions& options, const std::vector<LoadedScenario>& scenarios,
           JobReporter& reporter, int* argc, char*** argv);

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_JOB_RUNNER_H_
