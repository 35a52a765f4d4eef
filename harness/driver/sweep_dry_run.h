// What a sweep would do, without doing it: nothing runs and nothing is written.
//   `sweep --dry-run`: the cells and, for each, exactly the command lines the sweep would start
//     (its environment changes and argv, quoted as a shell reads them back), and each version's
//     set-up as it would run.
//   `sweep --collect-only`: the cells and, for each, the points its jobs would record (after
//     --filter and the cell's own `points:`), as pytest --collect-only lists tests.
#ifndef GPUHARNESS_DRIVER_SWEEP_DRY_RUN_H_
#define GPUHARNESS_DRIVER_SWEEP_DRY_RUN_H_

#include <cstdio>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "harness/driver/sweep_plan.h"

namespace gh::driver {

struct DryRunInputs {
  std::string out_dir;   // "" prints DIR
  std::string program;   // the gpuharness binary the jobs run
  int processes = 1;     // --processes
  std::vector<std::string> base_env;
};

// What Sweep starts for each cell's jobs, from the same spec (MakeCellJobSpec).
absl::Status PrintDryRun(const SweepPlan& plan, const DryRunInputs& inputs, std::FILE* out);

// "sweep NAME: C cells, P points, R runs", then per cell its id and its points, one a line, in
// run order ("  (3 trials)" after a point run several times).
void PrintCollectedPoints(const SweepPlan& plan, std::FILE* out);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_SWEEP_DRY_RUN_H_
