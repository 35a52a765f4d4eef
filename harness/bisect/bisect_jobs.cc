#include "harness/bisect/bisect_jobs.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "harness/core/file_util.h"
#include "harness/core/path_under.h"
#include "harness/core/perf_comparison.h"
#include "harness/core/records_file.h"
#include "harness/core/status_macros.h"
#include "harness/driver/cell_job.h"
#include "harness/driver/slurm_step.h"
#include "harness/driver/slurm_sweep.h"
#include "nlohmann/json.hpp"

namespace gh {

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
      trial.point = record.point;
    }
  }
  return trial;
}

JobTrialRunner::JobTrialRunner(ProbeJobOptions options, const std::vector<ProbeConfig>& configs,
                               const driver::DriverEnv& env, driver::ProcessRunner& runner)
    : options_(std::move(options)), configs_(configs), env_(env), runner_(runner), resources_(env.resources),
      setups_(1, runner, *env.clock, env.progress) {}

JobTrialRunner::~JobTrialRunner() = default;

absl::Status JobTrialRunner::UsePool() {
  if (pool_) return absl::OkStatus();
  std::vector<const driver::PlannedCell*> cells;
  for (const ProbeConfig& config : configs_) cells.push_back(&config.cell);
  GH_RETURN_IF_ERROR(driver::UseSlurmAllocation(cells, resources_, env_.progress));
  if (resources_.slurm) env_.Print(absl::StrCat("probes: ", resources_.ToString()));
  pool_.emplace(resources_, driver::JobPoolOptions{options_.kill_grace, options_.poll_interval, env_.stop},
                *env_.clock, static_cast<driver::PoolClient&>(*this));
  return absl::OkStatus();
}

size_t JobTrialRunner::Queue(const Request& request) {
  const size_t unit = next_unit_++;
  Trial& trial = trials_[unit];
  trial.request = request;
  trial.config = &configs_.at(request.version);
  pool_->Add(unit, trial.config->cell.plan.ranks, trial.config->cell.plan.share_gpu);
  return unit;
}

absl::Status JobTrialRunner::RunPool(const std::function<bool()>& until) {
  absl::Status ran = pool_->Run(until);
  if (absl::IsCancelled(ran)) return absl::CancelledError("stopped; its running trials were ended");
  return ran;
}

TrialResult JobTrialRunner::Take(size_t unit) {
  Trial trial = std::move(trials_.at(unit));
  trials_.erase(unit);
  TrialResult result = trial.result.value_or(TrialResult{});
  result.infra_attempts = std::move(trial.infra_attempts);
  return result;
}

absl::StatusOr<std::vector<TrialResult>> JobTrialRunner::RunTrials(const std::vector<Request>& batch) {
  GH_RETURN_IF_ERROR(UsePool());
  std::vector<size_t> units;
  for (const Request& request : batch) units.push_back(Queue(request));
  GH_RETURN_IF_ERROR(RunPool(nullptr));
  std::vector<TrialResult> results;
  for (size_t unit : units) results.push_back(Take(unit));
  finished_.clear();
  return results;
}

absl::Status JobTrialRunner::Start(const Request& request) {
  GH_RETURN_IF_ERROR(UsePool());
  Queue(request);
  return absl::OkStatus();
}

absl::StatusOr<TrialRunner::Finished> JobTrialRunner::Wait() {
  if (trials_.empty()) return absl::InternalError("trial runner: Wait with no trial started");
  if (finished_.empty()) GH_RETURN_IF_ERROR(RunPool([this] { return !finished_.empty(); }));
  if (finished_.empty()) return absl::InternalError("trial runner: no trial ended");
  const size_t unit = finished_.front();
  finished_.pop_front();
  Request request = trials_.at(unit).request;
  request.attempt = 1;  // the caller's request, as it started it
  return Finished{request, Take(unit)};
}

absl::StatusOr<driver::PoolClient::Readiness> JobTrialRunner::Ready(size_t unit) {
  Trial& trial = trials_.at(unit);
  const ProbeConfig& config = *trial.config;
  if (config.setup.empty()) return Readiness::kReady;
  std::optional<driver::VersionSetupResult> r = setups_.Need(
      {config.cell.plan.version, config.setup, ProbeVersionDir(options_.out_dir, config), env_.base_env,
       options_.setup_timeout});
  if (!r) return Readiness::kWait;
  if (r->ok) return Readiness::kReady;
  trial.result = TrialResult{.outcome = Outcome::kError,
                             .signature = absl::StrCat("version setup failed: ", r->detail),
                             .setup_failed = true,
                             .detail = r->detail};
  finished_.push_back(unit);
  return Readiness::kEnded;
}

absl::StatusOr<driver::RunningJob> JobTrialRunner::StartJob(size_t unit, const driver::Allocation& where,
                                                             int attempt) {
  Trial& trial = trials_.at(unit);
  const ProbeConfig& config = *trial.config;
  const driver::CellPlan& c = config.cell.plan;
  trial.dir = ProbeTrialDir(options_.out_dir, config, trial.request.trial, attempt);
  const std::string version_dir = ProbeVersionDir(options_.out_dir, config);
  std::error_code ec;
  std::filesystem::remove_all(trial.dir, ec);  // an interrupted earlier attempt: start clean
  GH_RETURN_IF_ERROR(MakeDirectories(trial.dir));
  driver::CellJobInputs inputs;
  inputs.cell = &config.cell;
  inputs.job = config.job.has_value() ? &*config.job : &options_.job;
  inputs.cell_job = &config.cell.jobs.at(0);
  inputs.program = options_.program;
  inputs.dir = trial.dir;
  inputs.name = "job";
  inputs.version_dir = version_dir;
  inputs.base_env = env_.base_env;
  if (resources_.gpu_mode && !resources_.slurm) inputs.devices = where.devices;
  std::vector<std::string> hosts;  // node mode: the step's nodes, one per rank
  if (!where.nodes.empty()) {
    inputs.step_args = driver::SrunStepArgs(where.nodes, resources_.SlurmGpuMode(), c.share_gpu);
    for (const driver::StepNode& n : where.nodes) hosts.insert(hosts.end(), n.tasks, n.name);
  }
  GH_ASSIGN_OR_RETURN(driver::CellJobSpec spec, driver::MakeCellJobSpec(inputs));
  // What repro replays: the exact command, the variables the cell sets, where it ran.
  nlohmann::json labels = nlohmann::json::object();
  for (const auto& [axis, label] : c.labels) labels[axis] = label;
  nlohmann::json job_json = {{"config", config.label}, {"version", c.version}, {"labels", labels},
                             {"trial", trial.request.trial}, {"attempt", attempt}, {"argv", spec.process.argv},
                             {"env", spec.cell_env}, {"cwd", spec.process.cwd}, {"out", spec.out_dir},
                             {"log", spec.process.log_path}, {"version_dir", version_dir}, {"setup", config.setup},
                             {"timeout_s", absl::ToDoubleSeconds(c.timeout)}};
  if (!hosts.empty()) job_json["hosts"] = hosts;
  GH_RETURN_IF_ERROR(WriteFileAtomically(trial.dir + "/job.json", job_json.dump(2) + "\n"));
  GH_ASSIGN_OR_RETURN(driver::RunningJob job, driver::RunningJob::Start(spec, runner_, *env_.clock));
  trial.started = job.started();
  return job;
}

absl::StatusOr<driver::PoolClient::After> JobTrialRunner::JobEnded(size_t unit, const driver::PooledJobEnd& ended) {
  Trial& trial = trials_.at(unit);
  const driver::CellPlan& c = trial.config->cell.plan;
  driver::JobRecordsInfo info{c.backend, c.ranks, c.share_gpu, c.LabelMap(),
                              driver::ApplyEnvPlan(env_.base_env, c.env, {},
                                                   ProbeVersionDir(options_.out_dir, *trial.config))};
  GH_ASSIGN_OR_RETURN(std::vector<Record> records,
                      driver::CollectJobRecords(trial.config->cell.jobs.at(0).points, ended.end, info, true));
  GH_RETURN_IF_ERROR(WriteRecordsFile(trial.dir + "/records.jsonl", records));
  TrialResult result = ReduceJobRecords(records);
  result.wall_s = absl::ToDoubleSeconds(env_.clock->Now() - trial.started);
  result.detail = trial.dir;
  const bool infra = result.outcome == Outcome::kInfra;
  const std::string why = result.signature;
  trial.result = std::move(result);
  if (infra || ended.lost) return After{After::kInfra, ended.lost && !infra ? ended.lost->line : why};
  finished_.push_back(unit);
  return After{After::kDone};
}

void JobTrialRunner::Retry(size_t unit, int attempt, const std::string& line) {
  Trial& trial = trials_.at(unit);
  trial.infra_attempts.push_back({trial.result->signature, trial.result->detail});
  trial.result.reset();
  env_.Print(line);
}

absl::Status JobTrialRunner::EndInfra(size_t unit) {
  finished_.push_back(unit);
  return absl::OkStatus();
}

absl::Status JobTrialRunner::Strand(size_t unit, const std::string& why) {
  Trial& trial = trials_.at(unit);
  trial.result = TrialResult{.outcome = Outcome::kInfra,
                             .signature = absl::StrCat("infrastructure: ", why),
                             .detail = ProbeTrialDir(options_.out_dir, *trial.config, trial.request.trial)};
  return EndInfra(unit);
}

std::string JobTrialRunner::Label(size_t unit) const {
  const Trial& trial = trials_.at(unit);
  return absl::StrCat(trial.config->label, " trial ", trial.request.trial);
}

}  // namespace gh
