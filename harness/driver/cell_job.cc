#include "harness/driver/cell_job.h"

#include <signal.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "harness/core/file_util.h"
#include "harness/core/run_list.h"
#include "harness/driver/launcher.h"

namespace gh::driver {
namespace {

std::string WithVersionDir(const std::string& text, const std::string& version_dir) {
  return absl::StrReplaceAll(text, {{"{version_dir}", version_dir}});
}

// The `gpuharness run` arguments of the job.
std::vector<std::string> RunArguments(const CellJobInputs& in, const std::string& out_dir,
                                      const std::string& runs_path) {
  const CellPlan& cell = in.cell->plan;
  std::vector<std::string> args = {"run"};
  for (const JobScenarioFile& f : in.job->files) args.push_back(f.path);
  args.insert(args.end(), {"--out", out_dir, "--backend", cell.backend});
  if (cell.share_gpu) args.push_back("--share-gpu");
  if (!in.cell_job->filter.empty()) args.insert(args.end(), {"--filter", in.cell_job->filter});
  for (const std::string& a : cell.args) args.push_back(WithVersionDir(a, in.version_dir));
  if (!runs_path.empty()) args.insert(args.end(), {"--runs", runs_path});
  return args;
}

}  // namespace

absl::StatusOr<CellJobSpec> MakeCellJobSpec(const CellJobInputs& in) {
  const CellPlan& c = in.cell->plan;
  CellJobSpec spec;
  spec.out_dir = absl::StrCat(in.dir, "/", in.name);
  const std::vector<ExpectedPoint>* listed =
      in.runs != nullptr ? in.runs : (in.cell_job->list_runs ? &in.cell_job->points : nullptr);
  if (listed != nullptr) {
    std::vector<RunKey> runs = RunsOf(*listed);
    spec.runs_path = absl::StrCat(in.dir, "/", in.name, ".runs");
    spec.runs_text = FormatRunList(runs);
    spec.listed_runs = runs.size();
  }
  std::map<std::string, std::string> extra;
  if (in.devices) extra["CUDA_VISIBLE_DEVICES"] = absl::StrJoin(*in.devices, ",");
  LaunchInputs launch;
  launch.ranks = c.ranks;
  launch.program = in.program;
  launch.args = RunArguments(in, spec.out_dir, spec.runs_path);
  launch.env_names = c.env.Names();
  launch.step_args = in.step_args;
  for (const auto& [name, value] : extra) {
    if (std::find(launch.env_names.begin(), launch.env_names.end(), name) == launch.env_names.end()) {
      launch.env_names.push_back(name);
    }
  }
  for (const std::string& p : c.launcher_prefix) {
    launch.prefix.push_back(WithVersionDir(p, in.version_dir));
  }
  absl::StatusOr<std::vector<std::string>> argv = ExpandLauncherArgv(in.cell->launcher, launch);
  if (!argv.ok()) return argv.status();
  spec.process.argv = *std::move(argv);
  spec.process.env = ApplyEnvPlan(in.base_env, c.env, extra, in.version_dir);
  // The version the cell runs, for `known:` expectations' version ranges (core/expectation.h);
  // not a setting of the cell, so not among its variables.
  if (!c.version.empty()) {
    spec.process.env->push_back(absl::StrCat("GH_VERSION=", c.version));
    spec.process.env->push_back(absl::StrCat("GH_VERSION_NAME=", c.version_axis));
  }
  spec.process.cwd = in.dir;
  spec.process.log_path = absl::StrCat(in.dir, "/", in.name, ".log");
  for (const std::string& name : launch.env_names) {
    for (const std::string& entry : *spec.process.env) {
      if (entry.compare(0, name.size() + 1, name + "=") == 0) {
        spec.cell_env[name] = entry.substr(name.size() + 1);
      }
    }
  }
  spec.timeout = c.timeout;
  return spec;
}

absl::StatusOr<RunningJob> RunningJob::Start(const CellJobSpec& spec, ProcessRunner& runner,
                                             Clock& clock, std::optional<absl::Time> deadline) {
  if (!spec.runs_path.empty()) {
    if (absl::Status st = WriteFileAtomically(spec.runs_path, spec.runs_text); !st.ok()) return st;
  }
  RunningJob job(runner, clock);
  job.pending_end_.timeout = spec.timeout;
  job.pending_end_.log_path = spec.process.log_path;
  job.pending_end_.run_dir = spec.out_dir;
  job.started_ = clock.Now();
  job.pending_end_.started = job.pending_end_.ended = job.started_;
  job.deadline_ = deadline ? *deadline : job.started_ + spec.timeout;
  absl::StatusOr<ProcessId> pid = runner.Start(spec.process);
  if (!pid.ok()) return pid.status();
  job.pid_ = *pid;
  return job;
}

std::optional<JobEnd> RunningJob::Poll(absl::Duration kill_grace) {
  if (end_) return end_;
  std::optional<ProcessExit> exit = runner_->Poll(pid_);
  const absl::Time now = clock_->Now();
  if (!exit) {
    if (!term_sent_ && now >= deadline_) {
      pending_end_.timed_out = true;
      term_sent_ = now;
      runner_->SignalGroup(pid_, SIGTERM);
    } else if (term_sent_ && !kill_sent_ && now >= *term_sent_ + kill_grace) {
      kill_sent_ = true;
      runner_->SignalGroup(pid_, SIGKILL);
    }
    return std::nullopt;
  }
  // Whatever the job left behind in its group (orphaned ranks) goes with it.
  runner_->SignalGroup(pid_, SIGKILL);
  end_ = pending_end_;
  end_->exit = *exit;
  end_->ended = now;
  return end_;
}

void RunningJob::Terminate() {
  if (end_ || term_sent_) return;
  term_sent_ = clock_->Now();
  runner_->SignalGroup(pid_, SIGTERM);
}

void RunningJob::Kill() {
  if (end_) return;
  kill_sent_ = true;
  runner_->SignalGroup(pid_, SIGKILL);
}

}  // namespace gh::driver
