// One `gpuharness run` job on this rank: MPI start-up, backend and GPU binding, the results
// directory, then every planned point × trial under the watchdog and the crash guard, outcomes
// gathered and reduced to rank 0, which alone writes records.jsonl, environment.json,
// junit.xml and the console table.
#ifndef GPUHARNESS_RUNTIME_JOB_RUNNER_H_
#define GPUHARNESS_RUNTIME_JOB_RUNNER_H_

#include <vector>

#include "harness/runtime/run_options.h"
#include "harness/runtime/run_plan.h"

namespace gh {

// `scenarios` were loaded and validated before MPI starts. Returns the exit status, the same
// on every rank: 0 every outcome met its expectation, 1 some did not, 2 bad input (nothing
// written), 3 infrastructure failure. A timeout ends the process from the watchdog instead.
int RunJob(const RunOptions& options, const std::vector<LoadedScenario>& scenarios, int* argc,
           char*** argv);

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_JOB_RUNNER_H_
