// Trials of bisect and minimize probes as real jobs: each trial of a configuration (a matrix
// cell: its version's set-up, environment, launcher and launcher prefix) runs the scenario as
// one `gpuharness run` job through the sweep driver's launcher and process seams, with the cell's
// timeout and its own process group; the job's records (plus the driver's synthesized crash and
// timeout records) are reduced to one TrialResult.
//
// Layout under the output DIR: versions/<version>/ (set-up, as a sweep), and
// probes/<config>/trial<k>/{job/ (the job's --out), job.log, job.json (argv, env, cwd: what
// `gpuharness repro` replays; in node mode also `hosts`, the step's node per rank)}; a trial run
// again after an infra attempt (infra_retry.h) in probes/<config>/trial<k>.retry<N>/, the
// attempt before it kept.
#ifndef GPUHARNESS_BISECT_BISECT_JOBS_H_
#define GPUHARNESS_BISECT_BISECT_JOBS_H_

#include <atomic>
#include <cstdio>
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
#include "harness/driver/clock.h"
#include "harness/driver/process_runner.h"
#include "harness/driver/resource_pool.h"
#include "harness/driver/sweep_plan.h"

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
  std::string out_dir;
  std::string program;                  // the gpuharness binary the jobs run
  driver::PlannedJob job;               // scenario files and point filters
  std::vector<std::string> base_env;    // NAME=VALUE, before the cell's changes
  driver::Resources resources;
  absl::Duration kill_grace = absl::Seconds(10);
  absl::Duration poll_interval = absl::Milliseconds(20);
  absl::Duration setup_timeout = absl::Minutes(30);
  std::FILE* progress = nullptr;        // set-up messages; null: quiet
  // Set: RunTrials stops its jobs (SIGTERM, SIGKILL after the grace) and returns Cancelled.
  const std::atomic<bool>* stop = nullptr;
};

// The version directory a config's set-up runs in ("" for a config without a version).
std::string ProbeVersionDir(const std::string& out_dir, const ProbeConfig& config);
// probes/<config>/trial<k> under out_dir; attempt 2 and up: trial<k>.retry<attempt - 1>.
std::string ProbeTrialDir(const std::string& out_dir, const ProbeConfig& config, int trial, int attempt = 1);

// One job's records reduced to a trial: the most severe outcome (pass < skip < fail < error <
// timeout < crash) with the signature of its first record; pass when every record passed.
TrialResult ReduceJobRecords(const std::vector<Record>& records);

class JobTrialRunner : public TrialRunner {
 public:
  // `configs` is indexed by Request::version; it may grow between batches (minimize adds
  // configurations as it goes) and must outlive the runner.
  JobTrialRunner(ProbeJobOptions options, const std::vector<ProbeConfig>& configs,
                 driver::ProcessRunner& runner, driver::Clock& clock);
  ~JobTrialRunner() override;

  // Runs the batch's jobs concurrently as far as the resources allow (GPU mode: disjoint
  // devices; CPU mode: rank slots; inside a Slurm allocation whose probes start through srun:
  // job steps packed across its nodes, as a sweep's cells), each with its cell's timeout. A node
  // srun says died under a step ("Node failure on X", driver/slurm_node_failure.h) takes no
  // trial again, as in a sweep (ResourcePool::ExcludeNode); a trial the live nodes can no longer
  // hold ends infra at once, naming the dead nodes. An error only for
  // infrastructure failures (cannot create directories, cannot start processes), or Cancelled
  // when `stop` was set (the running jobs stopped, no result kept).
  absl::StatusOr<std::vector<TrialResult>> RunTrials(const std::vector<Request>& batch) override;

  // Rolling trials: Start sets the version up (a set-up failure is finished at once) and queues
  // the job; Wait starts queued jobs as the resources free and returns the first to end.
  absl::Status Start(const Request& request) override;
  absl::StatusOr<Finished> Wait() override;

 private:
  struct Running;
  // Once, before the first trial: node mode when `resources` hold a Slurm allocation and every
  // configuration starts through srun (InvalidArgument when one needs more than it holds).
  absl::Status UseSlurmAllocation();
  absl::StatusOr<bool> EnsureSetup(const ProbeConfig& config, std::string* detail);
  // Nullopt when the version is ready; else its set-up failure as a trial.
  absl::StatusOr<std::optional<TrialResult>> SetUpFor(const Request& request);
  absl::Status Start(Running& job);
  // Starts pending jobs while `pool` has room for them; a job the live nodes can never hold
  // moves to `stranded`.
  absl::Status StartPending(std::deque<Running>& pending, std::vector<Running>& running, driver::ResourcePool& pool,
                            std::vector<Running>& stranded);
  // A stranded job's trial: infra, naming the dead nodes.
  TrialResult NoLiveNode(const Running& job) const;
  // After a job ended: the nodes srun says died under it leave `pool`, now and in later batches.
  void LeaveOutDeadNodes(const Running& job, const driver::JobEnd& end, driver::ResourcePool& pool);
  absl::StatusOr<TrialResult> Finish(Running& job, const driver::JobEnd& end);
  absl::Status StopAll(std::vector<Running>& running);  // after a stop request

  ProbeJobOptions options_;
  const std::vector<ProbeConfig>& configs_;
  driver::ProcessRunner& runner_;
  driver::Clock& clock_;
  std::map<std::string, std::pair<bool, std::string>> setups_;  // version dir -> ok, detail
  struct Rolling;                    // rolling trials (Start/Wait) between calls
  std::unique_ptr<Rolling> rolling_;
  bool allocation_checked_ = false;
  std::vector<std::string> dead_nodes_;  // node mode: excluded from every pool
};

}  // namespace gh

#endif  // GPUHARNESS_BISECT_BISECT_JOBS_H_
