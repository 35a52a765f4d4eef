// A cell's job, the one way the sweep, bisect, minimize and --dry-run make and run it:
// MakeCellJobSpec decides everything (argv through the launcher, environment, cwd, log, --out,
// the run list, the timeout) from the planned cell without touching the system, so --dry-run
// prints exactly what would run; RunningJob starts it through the ProcessRunner seam in its own
// process group, enforces its deadline (SIGTERM, then SIGKILL after the kill grace) and
// collects how it ended.
#ifndef GPUHARNESS_DRIVER_CELL_JOB_H_
#define GPUHARNESS_DRIVER_CELL_JOB_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/driver/cell_records.h"
#include "harness/driver/clock.h"
#include "harness/driver/process_runner.h"
#include "harness/driver/sweep_plan.h"

namespace gh::driver {

struct CellJobInputs {
  const PlannedCell* cell = nullptr;
  const PlannedJob* job = nullptr;      // the scenario files
  const CellJob* cell_job = nullptr;    // its --filter and the runs it owns
  // The runs to list with --runs instead of the cell job's own (a continuation's); null: the
  // cell job's, listed only when it needs a list.
  const std::vector<ExpectedPoint>* runs = nullptr;
  std::string program;                  // the gpuharness binary
  std::string dir;                      // cwd; the job's files are <dir>/<name>{,.log,.runs}
  std::string name;                     // "job", "job1", "job.cont1"
  std::string version_dir;              // replaces {version_dir}; "" without a version
  std::vector<std::string> base_env;    // NAME=VALUE, before the cell's changes
  std::optional<std::vector<std::string>> devices;  // set: CUDA_VISIBLE_DEVICES (GPU packing)
  std::vector<std::string> step_args;   // srun's placement in a Slurm allocation (slurm_step.h)
};

struct CellJobSpec {
  ProcessSpec process;     // argv, env, cwd, log path
  std::string out_dir;     // the job's --out
  std::string runs_path;   // the --runs file, "" for none
  std::string runs_text;   // its contents (written by RunningJob::Start)
  size_t listed_runs = 0;  // runs in it
  std::map<std::string, std::string> cell_env;  // the variables the cell sets, as the job sees them
  absl::Duration timeout;  // the cell's: the deadline is this after the start
};

// Pure: every placeholder ({version_dir} in args, env and launcher_prefix) resolved.
// Errors: the launcher's (InvalidArgument).
absl::StatusOr<CellJobSpec> MakeCellJobSpec(const CellJobInputs& inputs);

// How a started job ended, for CollectJobRecords.
class RunningJob {
 public:
  // Writes the run list (if any) and starts the process. The deadline is `deadline` when given
  // (a continuation keeps its job's), else the start plus the spec's timeout.
  static absl::StatusOr<RunningJob> Start(const CellJobSpec& spec, ProcessRunner& runner,
                                          Clock& clock,
                                          std::optional<absl::Time> deadline = std::nullopt);

  // Non-blocking. While it runs: SIGTERM to its group at the deadline, SIGKILL `kill_grace`
  // after any SIGTERM. Once it has ended: whatever is left in its group is killed and the end
  // is returned (every later call returns it again).
  std::optional<JobEnd> Poll(absl::Duration kill_grace);
  // SIGTERM now (the driver is stopping); Poll then escalates after the grace.
  void Terminate();
  // SIGKILL to the group now.
  void Kill();

  bool running() const { return !end_.has_value(); }
  absl::Time started() const { return started_; }
  absl::Time deadline() const { return deadline_; }

 private:
  RunningJob(ProcessRunner& runner, Clock& clock) : runner_(&runner), clock_(&clock) {}

  ProcessRunner* runner_;
  Clock* clock_;
  ProcessId pid_ = 0;
  JobEnd pending_end_;  // log, out, timeout, filled at the start
  absl::Time started_, deadline_;
  std::optional<absl::Time> term_sent_;
  bool kill_sent_ = false;
  std::optional<JobEnd> end_;
};

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_CELL_JOB_H_
