// `gpuharness bisect` end to end, without the flag parsing: plan (nothing written when the input
// is bad), resume from DIR/bisect_state.json, probe through real jobs, write summary.md,
// summary.json and the repro scripts. The process and clock seams come from the caller.
#ifndef GPUHARNESS_BISECT_BISECT_SESSION_H_
#define GPUHARNESS_BISECT_BISECT_SESSION_H_

#include <atomic>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/bisect/bisect_levels.h"
#include "harness/bisect/bisect_runner.h"
#include "harness/bisect/param_bisect.h"
#include "harness/bisect/perf_probe.h"
#include "harness/driver/driver_env.h"
#include "harness/report/failure_lines.h"

namespace gh {

struct BisectOptions {
  std::string matrix_path;
  std::string scenario_path;  // --scenario ("" : the matrix's scenarios)
  std::string points;         // --points GLOB
  std::string cell;           // --cell axis=label,... fixing the flag axes
  std::string good, bad;      // version labels
  HuntSpec hunt;
  SprtConfig sprt;
  // --hunt-metric: a perf bisect (bisect/perf_probe.h); each probe is then one decided trial.
  std::optional<PerfHunt> perf;
  int jobs = 1;
  BisectFind find = BisectFind::kBug;  // --find fix: the first good version after bad ones
  // --refine: once the version axis has answered, go on over its `versions.refine` axis between
  // the answer's two ends (bisect_levels.h); that level's reports go to DIR/refine/.
  bool refine = false;
  // --param NAME: a boundary search over a scenario parameter's values within one cell
  // (param_bisect.h); --good/--bad are then values of NAME.
  std::optional<ParamSearch> param;
  int estimate_trials = BisectConfig().estimate_trials;  // --estimate-trials
  std::string out_dir;
  std::string program;        // the gpuharness binary the jobs run
  absl::Duration kill_grace = absl::Seconds(10);
  absl::Duration setup_timeout = absl::Minutes(30);
};

struct BisectSessionResult {
  BisectResult result;  // the last level's (with --refine: the finer level's, when it ran)
  // 0 found, 1 an end contradicts what it was said to be, 3 an end could not run at all (its
  // set-up failed, or its trials ended infra on every attempt): no verdict on the code
  int exit_status = 0;
  int cached_trials = 0;   // served from DIR/bisect_state.json
  std::vector<std::string> written;  // files written into DIR
  // "first bad: v07, last good: v06; 9 probes, 23 trials (4 cached); see DIR/summary.md", or
  // "no answer: <why>; see ...".
  std::string headline;
  std::vector<FailureLine> failures;  // ProbeFailureLines: what the console ends with
  // With --refine: every level's answer, coarse first (bisect_levels.h).
  std::vector<LevelAnswer> levels;
};

// InvalidArgument for bad input (exit 2, nothing written); other errors are infrastructure.
// Progress (one line per probe) goes to env.progress; env.stop stops the trials (Cancelled).
absl::StatusOr<BisectSessionResult> RunBisectSession(const BisectOptions& options, driver::DriverEnv& env);

}  // namespace gh

#endif  // GPUHARNESS_BISECT_BISECT_SESSION_H_
