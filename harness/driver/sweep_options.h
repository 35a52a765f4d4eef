// `gpuharness sweep`'s options, and what makes a combination of them bad input.
#ifndef GPUHARNESS_DRIVER_SWEEP_OPTIONS_H_
#define GPUHARNESS_DRIVER_SWEEP_OPTIONS_H_

#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "harness/core/perf_comparison.h"

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

// InvalidArgument naming the flags that do not go together (--fresh with --rerun-failed,
// --processes with --rerun-failed) or a value out of range (--processes 0).
absl::Status CheckSweepOptions(const SweepOptions& options);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_SWEEP_OPTIONS_H_
