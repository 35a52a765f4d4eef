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
#include "harness/driver/sweep_outputs.h"
#include "harness/report/sweep_info.h"

namespace gh::driver {

struct SweepOptions {
  std::string matrix_path;
  std::string out_dir;
  std::string baseline_dir;           // "" for none
  // Axes left out when cells meet their baseline cells (--baseline-ignore; a version axis).
  std::set<std::string> baseline_ignore_axes;
  PerfOptions perf;  // how metrics compare with the baseline's (--perf-threshold, --perf-warn-only)
  std::string program;                // the gpuharness binary the jobs run
  bool dry_run = false;               // print the cells and their command lines, write nothing
  bool collect_only = false;          // print the cells and their points, write nothing
  int max_fail = 0;                   // --maxfail N, -x: stop once N points were unmet (0: never)
  absl::Duration kill_grace = absl::Seconds(10);  // SIGTERM to SIGKILL
  absl::Duration poll_interval = absl::Milliseconds(20);
  absl::Duration setup_timeout = absl::Minutes(30);
  int setup_jobs = 1;        // --setup-jobs N: version set-ups run at once (each just before its first cell)
  std::string filter;        // --filter GLOB: only these points, for the whole sweep ("" all)
  bool rerun_failed = false; // --rerun-failed: only done cells' points unmet or regressed
  bool fresh = false;        // --fresh: remove what an earlier sweep left in DIR, then run
  // --processes N: each cell's jobs run N times, each time new processes, one after another;
  // process k of every cell runs before process k + 1 of any (drift spreads over all cells).
  // Records say their process (Record::process) when N > 1; a cell is done when N ran.
  int processes = 1;
  absl::Duration heartbeat = absl::Seconds(60);  // plain progress: a line at least this often
};

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
