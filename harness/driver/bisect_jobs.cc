#include "harness/driver/bisect_jobs.h"

#include <signal.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "harness/core/file_util.h"
#include "harness/core/records_file.h"
#include "harness/driver/cell_plan.h"
#include "harness/driver/cell_records.h"
#include "harness/driver/version_setup.h"
#include "nlohmann/json.hpp"

namespace gh {

namespace fs = std::filesystem;
using driver::Allocation;
using driver::ProcessExit;
using driver::ProcessId;
using driver::ResourcePool;

std::string ProbeVersionDir(const std::string& out_dir, const ProbeConfig& config) {
  const std::string& version = config.cell.plan.version;
  return version.empty() ? "" : absl::StrCat(out_dir, "/versions/", driver::SafeDirName(version));
}

std::string ProbeTrialDir(const std::string& out_dir, const ProbeConfig& config, int trial) {
  return absl::StrCat(out_dir, "/probes/", config.dir_name, "/trial", trial);
}

TrialResult ReduceJobRecords(const std::vector<Record>& records) {
  TrialResult trial;
  if (!records.empty()) trial.point = records.front().point;
  for (const Record& record : records) {
    if (static_cast<int>(record.result.outcome) > static_cast<int>(trial.outcome)) {
      trial.outcome = record.result.outcome;
      trial.signature = record.result.signature;
      trial.point = record.point;
    }
  }
  return trial;
}

struct JobTrialRunner::Running {
  size_t slot = 0;  // position in the batch
  const ProbeConfig* config = nullptr;
  int trial = 0;
  std::string dir;
  Allocation allocation;
  ProcessId pid = 0;
  absl::Time started, deadline;
  std::optional<absl::Time> term_sent;
  bool kill_sent = false;
  bool timed_out = false;
};

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
  const std::string run_dir = job.dir + "/job";
  std::map<std::string, std::string> extra;
  if (options_.resources.gpu_mode) {
    extra["CUDA_VISIBLE_DEVICES"] = absl::StrJoin(job.allocation.devices, ",");
  }
  driver::LaunchInputs inputs;
  inputs.ranks = c.ranks;
  inputs.program = options_.program;
  inputs.args = driver::RunArguments(options_.job, c, run_dir, version_dir);
  inputs.env_names = c.env.Names();
  for (const auto& [name, value] : extra) {
    if (std::find(inputs.env_names.begin(), inputs.env_names.end(), name) == inputs.env_names.end()) {
      inputs.env_names.push_back(name);
    }
  }
  for (const std::string& p : c.launcher_prefix) {
    inputs.prefix.push_back(absl::StrReplaceAll(p, {{"{version_dir}", version_dir}}));
  }
  absl::StatusOr<std::vector<std::string>> argv = driver::ExpandLauncherArgv(job.config->cell.launcher, inputs);
  if (!argv.ok()) return argv.status();
  driver::ProcessSpec spec;
  spec.argv = *argv;
  spec.env = driver::ApplyEnvPlan(options_.base_env, c.env, extra, version_dir);
  spec.cwd = job.dir;
  spec.log_path = job.dir + "/job.log";
  // What repro replays: the exact command, the variables the cell sets, where it ran.
  nlohmann::json env_json = nlohmann::json::object();
  for (const std::string& name : inputs.env_names) {
    for (const std::string& entry : spec.env) {
      if (entry.compare(0, name.size() + 1, name + "=") == 0) env_json[name] = entry.substr(name.size() + 1);
    }
  }
  nlohmann::json labels = nlohmann::json::object();
  for (const auto& [axis, label] : c.labels) labels[axis] = label;
  nlohmann::json job_json = {{"config", job.config->label},
                             {"version", c.version},
                             {"labels", labels},
                             {"trial", job.trial},
                             {"argv", spec.argv},
                             {"env", env_json},
                             {"cwd", spec.cwd},
                             {"out", run_dir},
                             {"log", spec.log_path},
                             {"version_dir", version_dir},
                             {"setup", job.config->setup},
                             {"timeout_s", absl::ToDoubleSeconds(c.timeout)}};
  if (absl::Status st = WriteFileAtomically(job.dir + "/job.json", job_json.dump(2) + "\n"); !st.ok()) {
    return st;
  }
  job.started = clock_.Now();
  job.deadline = job.started + c.timeout;
  absl::StatusOr<ProcessId> pid = runner_.Start(spec);
  if (!pid.ok()) return pid.status();
  job.pid = *pid;
  return absl::OkStatus();
}

absl::StatusOr<TrialResult> JobTrialRunner::Finish(Running& job, const ProcessExit& exit) {
  runner_.SignalGroup(job.pid, SIGKILL);  // orphans left in the job's group go with it
  const driver::CellPlan& c = job.config->cell.plan;
  driver::JobEnd end;
  end.timed_out = job.timed_out;
  end.timeout = c.timeout;
  end.exit = exit;
  end.log_path = job.dir + "/job.log";
  end.run_dir = job.dir + "/job";
  driver::JobRecordsInfo info{c.backend, c.ranks, c.share_gpu, c.LabelMap(),
                              driver::ApplyEnvPlan(options_.base_env, c.env, {},
                                                   ProbeVersionDir(options_.out_dir, *job.config))};
  absl::StatusOr<std::vector<driver::ExpectedPoint>> expected = driver::ExpectedPoints(options_.job.files, c.ranks, c.points);
  if (!expected.ok()) return expected.status();
  absl::StatusOr<std::vector<Record>> records = driver::CollectJobRecords(*expected, end, info, /*only_expected=*/true);
  if (!records.ok()) return records.status();
  if (absl::Status st = WriteRecordsFile(job.dir + "/records.jsonl", *records); !st.ok()) return st;
  TrialResult trial = ReduceJobRecords(*records);
  trial.wall_s = absl::ToDoubleSeconds(clock_.Now() - job.started);
  trial.detail = job.dir;
  return trial;
}

absl::StatusOr<std::vector<TrialResult>> JobTrialRunner::RunTrials(const std::vector<Request>& batch) {
  std::vector<TrialResult> results(batch.size());
  std::deque<Running> pending;
  for (size_t i = 0; i < batch.size(); ++i) {
    const ProbeConfig& config = configs_.at(batch[i].version);
    std::string detail;
    absl::StatusOr<bool> ready = EnsureSetup(config, &detail);
    if (!ready.ok()) return ready.status();
    if (!*ready) {
      results[i].setup_failed = true;
      results[i].outcome = Outcome::kError;
      results[i].signature = absl::StrCat("version setup failed: ", detail);
      results[i].detail = detail;
      continue;
    }
    Running job;
    job.slot = i;
    job.config = &config;
    job.trial = batch[i].trial;
    job.dir = ProbeTrialDir(options_.out_dir, config, batch[i].trial);
    pending.push_back(std::move(job));
  }
  ResourcePool pool(options_.resources);
  std::vector<Running> running;
  while (!pending.empty() || !running.empty()) {
    while (!pending.empty()) {
      const driver::CellPlan& c = pending.front().config->cell.plan;
      std::optional<Allocation> allocation = pool.TryAcquire(pool.Need(c.ranks, c.share_gpu));
      if (!allocation) break;
      Running job = std::move(pending.front());
      pending.pop_front();
      job.allocation = *allocation;
      if (absl::Status st = Start(job); !st.ok()) {
        for (Running& r : running) runner_.SignalGroup(r.pid, SIGKILL);
        return st;
      }
      running.push_back(std::move(job));
    }
    for (auto it = running.begin(); it != running.end();) {
      std::optional<ProcessExit> exit = runner_.Poll(it->pid);
      const absl::Time now = clock_.Now();
      if (!exit) {
        if (!it->term_sent && now >= it->deadline) {
          it->timed_out = true;
          it->term_sent = now;
          runner_.SignalGroup(it->pid, SIGTERM);
        } else if (it->term_sent && !it->kill_sent && now >= *it->term_sent + options_.kill_grace) {
          it->kill_sent = true;
          runner_.SignalGroup(it->pid, SIGKILL);
        }
        ++it;
        continue;
      }
      absl::StatusOr<TrialResult> trial = Finish(*it, *exit);
      if (!trial.ok()) {
        for (Running& r : running) runner_.SignalGroup(r.pid, SIGKILL);
        return trial.status();
      }
      results[it->slot] = *std::move(trial);
      pool.Release(it->allocation);
      it = running.erase(it);
    }
    if (!running.empty()) clock_.SleepFor(options_.poll_interval);
  }
  return results;
}

}  // namespace gh
