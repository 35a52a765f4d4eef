#include "harness/bisect/bisect_jobs.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/core/file_util.h"
#include "harness/core/perf_comparison.h"
#include "harness/core/records_file.h"
#include "harness/driver/cell_job.h"
#include "harness/driver/cell_plan.h"
#include "harness/driver/cell_records.h"
#include "harness/driver/slurm_node_failure.h"
#include "harness/driver/slurm_step.h"
#include "harness/driver/slurm_sweep.h"
#include "harness/driver/version_setup.h"
#include "nlohmann/json.hpp"

namespace gh {

namespace fs = std::filesystem;
using driver::Allocation;
using driver::ResourcePool;

std::string ProbeVersionDir(const std::string& out_dir, const ProbeConfig& config) {
  const std::string& version = config.cell.plan.version;
  return version.empty() ? "" : absl::StrCat(out_dir, "/versions/", SafeDirName(version));
}

std::string ProbeTrialDir(const std::string& out_dir, const ProbeConfig& config, int trial, int attempt) {
  // SafeDirName is the identity on its own results: a dir_name made elsewhere still stays inside.
  std::string dir = absl::StrCat(out_dir, "/probes/", SafeDirName(config.dir_name), "/trial", trial);
  if (attempt > 1) absl::StrAppend(&dir, ".retry", attempt - 1);
  return dir;
}

TrialResult ReduceJobRecords(const std::vector<Record>& records) {
  TrialResult trial;
  if (!records.empty()) trial.point = records.front().point;
  for (const Record& record : records) {
    if (record.result.outcome == Outcome::kPass) PoolMetricSamples(record.result.metrics, trial.metrics);
    if (static_cast<int>(record.result.outcome) > static_cast<int>(trial.outcome)) {
      trial.outcome = record.result.outcome;
      trial.signature = record.result.signature;
      trial.where = FailureWhere(record.result);
      trial.point = record.point;
    }
  }
  return trial;
}

struct JobTrialRunner::Running {
  size_t slot = 0;  // position in the batch
  Request request;  // rolling trials
  const ProbeConfig* config = nullptr;
  int trial = 0;
  int attempt = 1;
  std::string dir;
  Allocation allocation;
  std::optional<driver::RunningJob> job;
};

struct JobTrialRunner::Rolling {
  explicit Rolling(const driver::Resources& resources) : pool(resources) {}
  ResourcePool pool;
  std::deque<Running> pending;
  std::vector<Running> running;
  std::deque<Finished> ready;  // set-up failures: no job ran
};

JobTrialRunner::JobTrialRunner(ProbeJobOptions options, const std::vector<ProbeConfig>& configs,
                               driver::ProcessRunner& runner, driver::Clock& clock)
    : options_(std::move(options)), configs_(configs), runner_(runner), clock_(clock) {}

JobTrialRunner::~JobTrialRunner() = default;

absl::StatusOr<bool> JobTrialRunner::EnsureSetup(const ProbeConfig& config, std::string* detail) {
  if (config.setup.empty()) return true;
  const std::string dir = ProbeVersionDir(options_.out_dir, config);
  auto it = setups_.find(dir);
  if (it == setups_.end()) {
    if (options_.progress) {
      std::fprintf(options_.progress, "version %s: set-up...\n", config.cell.plan.version.c_str());
      std::fflush(options_.progress);
    }
    driver::VersionSetupResult r =
        driver::RunVersionSetup(config.cell.plan.version, config.setup, dir, options_.base_env,
                                options_.setup_timeout, runner_, clock_);
    if (options_.progress) {
      std::fprintf(options_.progress, "version %s: set-up %s%s%s\n", config.cell.plan.version.c_str(),
                   r.ok ? (r.cached ? "cached" : "done") : "FAILED", r.ok ? "" : ": ", r.detail.c_str());
      std::fflush(options_.progress);
    }
    it = setups_.emplace(dir, std::make_pair(r.ok, r.detail)).first;
  }
  *detail = it->second.second;
  return it->second.first;
}

absl::Status JobTrialRunner::Start(Running& job) {
  const driver::CellPlan& c = job.config->cell.plan;
  const std::string version_dir = ProbeVersionDir(options_.out_dir, *job.config);
  std::error_code ec;
  fs::remove_all(job.dir, ec);  // an interrupted earlier attempt: start clean
  if (absl::Status st = MakeDirectories(job.dir); !st.ok()) return st;
  driver::CellJobInputs inputs;
  inputs.cell = &job.config->cell;
  inputs.job = job.config->job.has_value() ? &*job.config->job : &options_.job;
  inputs.cell_job = &job.config->cell.jobs.at(0);
  inputs.program = options_.program;
  inputs.dir = job.dir;
  inputs.name = "job";
  inputs.version_dir = version_dir;
  inputs.base_env = options_.base_env;
  if (options_.resources.gpu_mode && !options_.resources.slurm) inputs.devices = job.allocation.devices;
  std::vector<std::string> hosts;  // node mode: the step's nodes, one per rank
  if (!job.allocation.nodes.empty()) {
    inputs.step_args = driver::SrunStepArgs(job.allocation.nodes, options_.resources.SlurmGpuMode(), c.share_gpu);
    for (const driver::StepNode& n : job.allocation.nodes) hosts.insert(hosts.end(), n.tasks, n.name);
  }
  absl::StatusOr<driver::CellJobSpec> spec = driver::MakeCellJobSpec(inputs);
  if (!spec.ok()) return spec.status();
  // What repro replays: the exact command, the variables the cell sets, where it ran.
  nlohmann::json labels = nlohmann::json::object();
  for (const auto& [axis, label] : c.labels) labels[axis] = label;
  nlohmann::json job_json = {{"config", job.config->label},
                             {"version", c.version},
                             {"labels", labels},
                             {"trial", job.trial},
                             {"attempt", job.attempt},
                             {"argv", spec->process.argv},
                             {"env", spec->cell_env},
                             {"cwd", spec->process.cwd},
                             {"out", spec->out_dir},
                             {"log", spec->process.log_path},
                             {"version_dir", version_dir},
                             {"setup", job.config->setup},
                             {"timeout_s", absl::ToDoubleSeconds(c.timeout)}};
  if (!hosts.empty()) job_json["hosts"] = hosts;
  if (absl::Status st = WriteFileAtomically(job.dir + "/job.json", job_json.dump(2) + "\n"); !st.ok()) {
    return st;
  }
  absl::StatusOr<driver::RunningJob> running = driver::RunningJob::Start(*spec, runner_, clock_);
  if (!running.ok()) return running.status();
  job.job = *std::move(running);
  return absl::OkStatus();
}

absl::StatusOr<TrialResult> JobTrialRunner::Finish(Running& job, const driver::JobEnd& end) {
  const driver::CellPlan& c = job.config->cell.plan;
  driver::JobRecordsInfo info{c.backend, c.ranks, c.share_gpu, c.LabelMap(),
                              driver::ApplyEnvPlan(options_.base_env, c.env, {},
                                                   ProbeVersionDir(options_.out_dir, *job.config))};
  absl::StatusOr<std::vector<Record>> records = driver::CollectJobRecords(
      job.config->cell.jobs.at(0).points, end, info, /*only_expected=*/true);
  if (!records.ok()) return records.status();
  if (absl::Status st = WriteRecordsFile(job.dir + "/records.jsonl", *records); !st.ok()) return st;
  TrialResult trial = ReduceJobRecords(*records);
  trial.wall_s = absl::ToDoubleSeconds(clock_.Now() - job.job->started());
  trial.detail = job.dir;
  return trial;
}

absl::Status JobTrialRunner::StopAll(std::vector<Running>& running) {
  for (Running& r : running) r.job->Terminate();
  for (bool any = true; any;) {
    any = false;
    for (Running& r : running) any = !r.job->Poll(options_.kill_grace) || any;
    if (any) clock_.SleepFor(options_.poll_interval);
  }
  return absl::CancelledError("stopped; its running trials were ended");
}

absl::StatusOr<std::optional<TrialResult>> JobTrialRunner::SetUpFor(const Request& request) {
  std::string detail;
  absl::StatusOr<bool> ready = EnsureSetup(configs_.at(request.version), &detail);
  if (!ready.ok()) return ready.status();
  if (*ready) return std::nullopt;
  TrialResult failed;
  failed.setup_failed = true;
  failed.outcome = Outcome::kError;
  failed.signature = absl::StrCat("version setup failed: ", detail);
  failed.detail = detail;
  return failed;
}

absl::Status JobTrialRunner::StartPending(std::deque<Running>& pending, std::vector<Running>& running,
                                          ResourcePool& pool, std::vector<Running>& stranded) {
  while (!pending.empty()) {
    const driver::CellPlan& c = pending.front().config->cell.plan;
    if (!pool.FitsLiveNodes(c.ranks, c.share_gpu)) {
      stranded.push_back(std::move(pending.front()));
      pending.pop_front();
      continue;
    }
    std::optional<Allocation> allocation = pool.TryAcquireCell(c.ranks, c.share_gpu);
    if (!allocation) break;
    Running job = std::move(pending.front());
    pending.pop_front();
    job.allocation = *allocation;
    if (absl::Status st = Start(job); !st.ok()) {
      for (Running& r : running) r.job->Kill();
      return st;
    }
    running.push_back(std::move(job));
  }
  return absl::OkStatus();
}

TrialResult JobTrialRunner::NoLiveNode(const Running& job) const {
  TrialResult trial;
  trial.outcome = Outcome::kInfra;
  trial.signature = absl::StrCat("infrastructure: no node of the ", options_.resources.slurm->ToString(),
                                 " left alive for ", job.config->cell.plan.ranks, " ranks (dead: ",
                                 absl::StrJoin(dead_nodes_, ","), ")");
  trial.detail = job.dir;
  return trial;
}

void JobTrialRunner::LeaveOutDeadNodes(const Running& job, const driver::JobEnd& end, ResourcePool& pool) {
  if (!options_.resources.slurm) return;
  std::optional<driver::SlurmNodeFailure> lost = driver::FindSlurmNodeFailure(end.log_path);
  if (!lost) return;
  for (const std::string& node : lost->nodes) {
    pool.ExcludeNode(node);
    if (std::find(dead_nodes_.begin(), dead_nodes_.end(), node) == dead_nodes_.end()) dead_nodes_.push_back(node);
  }
  if (options_.progress != nullptr) {
    std::fprintf(options_.progress, "%s trial %d: %s: its trials go to the live nodes (%s left out)\n",
                 job.config->label.c_str(), job.trial, lost->line.c_str(), absl::StrJoin(dead_nodes_, ",").c_str());
    std::fflush(options_.progress);
  }
}

absl::Status JobTrialRunner::UseSlurmAllocation() {
  if (allocation_checked_) return absl::OkStatus();
  allocation_checked_ = true;
  std::vector<const driver::PlannedCell*> cells;
  for (const ProbeConfig& config : configs_) cells.push_back(&config.cell);
  if (absl::Status st = driver::UseSlurmAllocation(cells, options_.resources, options_.progress); !st.ok()) {
    return st;
  }
  if (options_.resources.slurm && options_.progress != nullptr) {
    std::fprintf(options_.progress, "probes: %s\n", options_.resources.ToString().c_str());
    std::fflush(options_.progress);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<TrialResult>> JobTrialRunner::RunTrials(const std::vector<Request>& batch) {
  if (absl::Status st = UseSlurmAllocation(); !st.ok()) return st;
  std::vector<TrialResult> results(batch.size());
  std::deque<Running> pending;
  for (size_t i = 0; i < batch.size(); ++i) {
    absl::StatusOr<std::optional<TrialResult>> failed = SetUpFor(batch[i]);
    if (!failed.ok()) return failed.status();
    if (failed->has_value()) {
      results[i] = **failed;
      continue;
    }
    const ProbeConfig& config = configs_.at(batch[i].version);
    Running job;
    job.slot = i;
    job.config = &config;
    job.trial = batch[i].trial;
    job.attempt = batch[i].attempt;
    job.dir = ProbeTrialDir(options_.out_dir, config, batch[i].trial, batch[i].attempt);
    pending.push_back(std::move(job));
  }
  ResourcePool pool(options_.resources);
  for (const std::string& node : dead_nodes_) pool.ExcludeNode(node);
  std::vector<Running> running;
  while (!pending.empty() || !running.empty()) {
    if (options_.stop != nullptr && options_.stop->load()) return StopAll(running);
    std::vector<Running> stranded;
    if (absl::Status st = StartPending(pending, running, pool, stranded); !st.ok()) return st;
    for (const Running& job : stranded) results[job.slot] = NoLiveNode(job);
    for (auto it = running.begin(); it != running.end();) {
      std::optional<driver::JobEnd> end = it->job->Poll(options_.kill_grace);
      if (!end) {
        ++it;
        continue;
      }
      absl::StatusOr<TrialResult> trial = Finish(*it, *end);
      if (!trial.ok()) {
        for (Running& r : running) r.job->Kill();
        return trial.status();
      }
      results[it->slot] = *std::move(trial);
      LeaveOutDeadNodes(*it, *end, pool);  // first: a dead node's share is not given back
      pool.Release(it->allocation);
      it = running.erase(it);
    }
    if (!running.empty()) clock_.SleepFor(options_.poll_interval);
  }
  return results;
}

absl::Status JobTrialRunner::Start(const Request& request) {
  if (absl::Status st = UseSlurmAllocation(); !st.ok()) return st;
  absl::StatusOr<std::optional<TrialResult>> failed = SetUpFor(request);
  if (!failed.ok()) return failed.status();
  if (!rolling_) rolling_ = std::make_unique<Rolling>(options_.resources);
  if (failed->has_value()) {
    rolling_->ready.push_back({request, **failed});
    return absl::OkStatus();
  }
  const ProbeConfig& config = configs_.at(request.version);
  Running job;
  job.request = request;
  job.config = &config;
  job.trial = request.trial;
  job.attempt = request.attempt;
  job.dir = ProbeTrialDir(options_.out_dir, config, request.trial, request.attempt);
  rolling_->pending.push_back(std::move(job));
  return absl::OkStatus();
}

absl::StatusOr<TrialRunner::Finished> JobTrialRunner::Wait() {
  if (!rolling_ || (rolling_->ready.empty() && rolling_->pending.empty() && rolling_->running.empty())) {
    return absl::InternalError("trial runner: Wait with no trial started");
  }
  Rolling& r = *rolling_;
  if (!r.ready.empty()) {
    Finished done = std::move(r.ready.front());
    r.ready.pop_front();
    return done;
  }
  for (;;) {
    if (options_.stop != nullptr && options_.stop->load()) return StopAll(r.running);
    std::vector<Running> stranded;
    if (absl::Status st = StartPending(r.pending, r.running, r.pool, stranded); !st.ok()) return st;
    for (const Running& job : stranded) r.ready.push_back({job.request, NoLiveNode(job)});
    if (!r.ready.empty()) {
      Finished done = std::move(r.ready.front());
      r.ready.pop_front();
      return done;
    }
    for (auto it = r.running.begin(); it != r.running.end(); ++it) {
      std::optional<driver::JobEnd> end = it->job->Poll(options_.kill_grace);
      if (!end) continue;
      absl::StatusOr<TrialResult> trial = Finish(*it, *end);
      if (!trial.ok()) {
        for (Running& other : r.running) other.job->Kill();
        return trial.status();
      }
      Finished done{it->request, *std::move(trial)};
      LeaveOutDeadNodes(*it, *end, r.pool);  // first: a dead node's share is not given back
      r.pool.Release(it->allocation);
      r.running.erase(it);
      return done;
    }
    clock_.SleepFor(options_.poll_interval);
  }
}

}  // namespace gh
