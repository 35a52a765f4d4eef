// Trials of bisect and minimize probes as real jobs: each trial of a configuration (a matrix
// cell: its version's set-up, environment, launcher and launcher prefix) runs the scenario as
// one `gpuharness run` job through the sweep driver's launcher, process seam and job pool, with
// the cell's timeout and a session of its own; the job's records (plus the driver's synthesized
// crash and timeout records) are reduced to one TrialResult.
//
// Layout under the output DIR: versions/<version>/ (set-up, as a sweep), and
// probes/<config>/trial<k>/{job/ (the job's --out), job.log, job.json (argv, env, cwd: what
// `gpuharness repro` replays; in node mode also `hosts`, the step's node per rank)}; a trial run
// again after an infra attempt in probes/<config>/trial<k>.retry<N>/, the attempt before it kept.
#ifndef GPUHARNESS_BISECT_BISECT_JOBS_H_
#define GPUHARNESS_BISECT_BISECT_JOBS_H_

#include <functional>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/core/record.h"
#include "harness/bisect/bisect_runner.h"
#include "harness/driver/cell_records.h"
#include "harness/driver/driver_env.h"
#include "harness/driver/job_pool.h"
#include "harness/driver/sweep_plan.h"
#include "harness/driver/version_setup_queue.h"

namespace gh {

// One configuration probes run: a planned cell, maybe with its environment changed (minimize).
// Its `cell.jobs` holds exactly one job: the probe job's points at the cell (PlanCellJobs).
struct ProbeConfig {
  std::string label;     // version label (bisect) or change-set name (minimize)
  std::string dir_name;  // filesystem-safe, unique among the configs
  driver::PlannedCell cell;
  std::string setup;     // the version's set-up command, "" for none
  // Set: the scenario files this config's jobs run instead of ProbeJobOptions::job (a boundary
  // search's per-value scenario copy, param_bisect.h).
  std::optional<driver::PlannedJob> job;
};

struct ProbeJobOptions {
  std::string out_dir;                  // absolute
  std::string program;                  // the gpuharness binary the jobs run
  driver::PlannedJob job;               // scenario files and point filters
  absl::Duration kill_grace = absl::Seconds(10);
  absl::Duration poll_interval = absl::Milliseconds(20);
  absl::Duration setup_timeout = absl::Minutes(30);
};

// The version directory a config's set-up runs in ("" for a config without a version).
std::string ProbeVersionDir(const std::string& out_dir, const ProbeConfig& config);
// probes/<config>/trial<k> under out_dir; attempt 2 and up: trial<k>.retry<attempt - 1>.
std::string ProbeTrialDir(const std::string& out_dir, const ProbeConfig& config, int trial, int attempt = 1);

// One job's records reduced to a trial: the most severe outcome (pass < skip < fail < error <
// timeout < crash) with the signature of its first record; pass when every record passed.
TrialResult ReduceJobRecords(const std::vector<Record>& records);

// Trials as jobs scheduled by the driver's job pool (driver/job_pool.h): as many at once as the
// resources allow (GPU mode: disjoint devices; CPU mode: rank slots; inside a Slurm allocation
// whose probes start through srun: job steps packed across its nodes), each with its cell's
// timeout; a version's set-up runs (in the background, stoppable) before its first trial. A
// trial whose job ended infra runs again, up to driver::kMaxJobAttempts attempts, saying so on
// the progress stream; what comes back carries those attempts (TrialResult::infra_attempts), and
// only infra on every attempt comes back infra. A node srun says died takes no trial again; a
// trial the live nodes can no longer hold ends infra at once, naming the dead nodes. Errors:
// infrastructure (cannot create directories or start processes), or Cancelled ("stopped; its
// running trials were ended") once the environment's stop flag is set.
class JobTrialRunner : public TrialRunner, private driver::PoolClient {
 public:
  // `configs` is indexed by Request::version; it may grow between batches (minimize adds
  // configurations as it goes) and must outlive the runner. Jobs start through `runner` (the
  // results DIR's ledger).
  JobTrialRunner(ProbeJobOptions options, const std::vector<ProbeConfig>& configs, const driver::DriverEnv& env,
                 driver::ProcessRunner& runner);
  ~JobTrialRunner() override;

  absl::StatusOr<std::vector<TrialResult>> RunTrials(const std::vector<Request>& batch) override;
  absl::Status Start(const Request& request) override;
  absl::StatusOr<Finished> Wait() override;

 private:
  // One requested trial, across its attempts.
  struct Trial {
    Request request;
    const ProbeConfig* config = nullptr;
    std::string dir;                           // the running attempt's
    absl::Time started;
    std::optional<TrialResult> result;         // the last attempt's
    std::vector<InfraAttempt> infra_attempts;  // those run again, oldest first
  };
  // Once, before the first trial: node mode when the resources hold a Slurm allocation and
  // every configuration starts through srun (InvalidArgument when one needs more than it holds).
  absl::Status UsePool();
  size_t Queue(const Request& request);
  absl::Status RunPool(const std::function<bool()>& until);
  TrialResult Take(size_t unit);

  absl::StatusOr<Readiness> Ready(size_t unit) override;
  absl::StatusOr<driver::RunningJob> StartJob(size_t unit, const driver::Allocation& where, int attempt) override;
  absl::StatusOr<After> JobEnded(size_t unit, const driver::PooledJobEnd& ended) override;
  void Retry(size_t unit, int attempt, const std::string& line) override;
  absl::Status EndInfra(size_t unit) override;
  absl::Status Strand(size_t unit, const std::string& why) override;
  void Tick(absl::Time) override { setups_.Poll(); }
  std::string Label(size_t unit) const override;

  ProbeJobOptions options_;
  const std::vector<ProbeConfig>& configs_;
  const driver::DriverEnv& env_;
  driver::ProcessRunner& runner_;
  driver::Resources resources_;  // env's, node mode decided once
  std::map<size_t, Trial> trials_;
  size_t next_unit_ = 0;
  std::deque<size_t> finished_;     // rolling: units done, in the order they ended
  driver::VersionSetupQueue setups_;
  std::optional<driver::JobPool> pool_;
};

}  // namespace gh

#endif  // GPUHARNESS_BISECT_BISECT_JOBS_H_
