// `gpuharness sweep`: loads and validates the matrix (nothing is written when it is bad),
// runs every cell not already done as its own job(s) through a launcher, scheduled by the job
// pool (job_pool.h: packed onto the resources, each job with its own timeout and session, a cell
// whose attempt ended infra run again), then writes DIR/records.jsonl, junit.xml, sweep.json,
// summary.md and report.html from the cells and compares.
//
// DIR layout (docs/reference/sweep.md): cells/<cell>/{cell.json, job<k>/ (the job's --out), job<k>.log,
// records.jsonl, environment.json, done.json}, versions/<label>/{setup.log, setup.json};
// with --processes N, process k >= 1's jobs in cells/<cell>/process<k>/.
// A cell is done when its done.json exists with the hash of its current definition (and,
// with --processes N, says at least N processes ran); one whose records ended infra runs again.
#ifndef GPUHARNESS_DRIVER_SWEEP_RUNNER_H_
#define GPUHARNESS_DRIVER_SWEEP_RUNNER_H_

#include <atomic>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/core/comparison.h"
#include "harness/driver/driver_env.h"
#include "harness/driver/sweep_options.h"
#include "harness/driver/sweep_outputs.h"
#include "harness/report/sweep_info.h"

namespace gh::driver {

// The outputs' counts and comparison (SweepOutputsResult: records, unmet, regressions,
// exit_status — 0 met, 1 unmet or regression, 3 a point ended infra —, headline, cells_failed
// from every record in DIR, resumed cells' too, comparison, sweep) and this invocation's cells.
struct SweepResult : SweepOutputsResult {
  int cells = 0;
  int cells_run = 0;         // by this invocation
  int cells_resumed = 0;     // done before, skipped
  int cells_setup_failed = 0;
  int cells_rerun = 0;       // --rerun-failed: cells whose failing points ran again
  int cells_infra_rerun = 0; // cells that had ended infra, run again by this invocation
  bool interrupted = false;  // stopped by `stop`; the outputs hold the done cells only
  // Stopped by --maxfail: the running jobs ended, the outputs hold the done cells only.
  bool stopped_at_max_fail = false;
  int unmet_at_stop = 0;     // the unmet points counted when it stopped (>= --maxfail)
  int cells_not_run = 0;     // cells this invocation left undone (stopped or interrupted)
};

// InvalidArgument: bad matrix, launcher, scenario file or option (exit 2, nothing written).
// Other errors: infrastructure (exit 3).
absl::StatusOr<SweepResult> RunSweep(const SweepOptions& options, DriverEnv& env);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_SWEEP_RUNNER_H_
