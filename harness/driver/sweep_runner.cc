#include "harness/driver/sweep_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "harness/core/file_util.h"
#include "harness/core/records_file.h"
#include "harness/core/run_list.h"
#include "harness/driver/cell_records.h"
#include "harness/driver/sweep_outputs.h"
#include "harness/driver/sweep_plan.h"
#include "harness/driver/sweep_progress.h"
#include "harness/driver/version_setup.h"
#include "harness/core/duration_text.h"
#include "harness/core/comparison.h"
#include "harness/report/results_dir.h"
#include "nlohmann/json.hpp"

namespace gh::driver {
namespace {

namespace fs = std::filesystem;

std::string Absolute(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

bool Exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

// A running (or about to run) cell: its jobs run one after the other in its allocation.
struct ActiveCell {
  size_t index = 0;
  Allocation allocation;
  std::string dir;
  std::string version_dir;
  std::vector<size_t> job_order;  // the plan's jobs with points for this cell
  size_t job = 0;                 // index into job_order
  ProcessId pid = 0;
  bool job_running = false;
  absl::Time cell_started, job_started, deadline;
  std::optional<absl::Time> term_sent;
  bool kill_sent = false;
  bool timed_out = false;
  std::vector<Record> records;
  nlohmann::json jobs = nlohmann::json::array();
  bool abnormal = false;
  std::string how;
  std::set<std::string> expected_points;  // claimed by this cell's earlier jobs
  // The current job's runs still to record, and which continuation of it is running (0: the
  // job itself; N: its N-th continuation after it ended early, see PlanContinuation).
  std::vector<ExpectedPoint> pending;
  std::set<std::string> earlier;  // expected_points before the current job
  int continuation = 0;
};

class Sweep {
 public:
  Sweep(const SweepOptions& options, SweepEnvironment& env, SweepPlan plan)
      : options_(options), env_(env), plan_(std::move(plan)), pool_(env.resources) {}

  absl::StatusOr<SweepResult> Run();

 private:
  std::string CellDir(size_t i) const {
    return absl::StrCat(out_dir_, "/cells/", plan_.cells[i].plan.dir_name);
  }
  std::string VersionDir(const CellPlan& c) const {
    return c.version.empty() ? "" : absl::StrCat(out_dir_, "/versions/", SafeDirName(c.version));
  }
  bool IsDone(size_t i) const;
  std::string JobName(const ActiveCell& cell) const {
    std::string name =
        plan_.jobs.size() == 1 ? "job" : absl::StrCat("job", cell.job_order[cell.job]);
    if (cell.continuation > 0) absl::StrAppend(&name, ".cont", cell.continuation);
    return name;
  }
  absl::Status RunSetups(const std::vector<size_t>& todo);
  absl::Status StartCell(ActiveCell& cell);
  absl::Status StartJob(ActiveCell& cell);
  // Returns true when the cell has finished (all jobs).
  absl::StatusOr<bool> Service(ActiveCell& cell);
  absl::Status FinishCell(ActiveCell& cell);
  absl::Status CheckIgnoredAxes(const BaselineMatch& match,
                                const std::vector<Record>* baseline) const;
  void KillAll(std::deque<ActiveCell>& running);
  absl::Status WriteSweepJson();
  absl::Status WriteSetupFailedRecords(size_t i);

  const SweepOptions& options_;
  SweepEnvironment& env_;
  SweepPlan plan_;
  ResourcePool pool_;
  std::string out_dir_;
  std::vector<CellStatus> status_;
  std::optional<SweepProgress> progress_;
  SweepResult result_;
};

bool Sweep::IsDone(size_t i) const {
  std::string dir = CellDir(i);
  absl::StatusOr<std::string> text = ReadFileToString(dir + "/done.json");
  if (!text.ok() || !Exists(dir + "/records.jsonl")) return false;
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  return j.is_object() && j.value("hash", "") == plan_.cells[i].hash &&
         j.value("id", "") == plan_.cells[i].plan.id;
}

absl::Status Sweep::WriteSweepJson() {
  return WriteFileAtomically(out_dir_ + "/sweep.json",
                             MakeSweepInfo(plan_, status_).ToJson().dump(2) + "\n");
}

absl::Status Sweep::WriteSetupFailedRecords(size_t i) {
  const PlannedCell& cell = plan_.cells[i];
  std::string dir = CellDir(i);
  std::error_code ec;
  fs::remove_all(dir, ec);
  absl::Status st = MakeDirectories(dir);
  if (!st.ok()) return st;
  JobRecordsInfo info{cell.plan.backend, cell.plan.ranks, cell.plan.share_gpu, cell.plan.LabelMap(),
                      ApplyEnvPlan(env_.base_env, cell.plan.env, {}, VersionDir(cell.plan))};
  const EnvironmentFacts facts = DriverKnownFacts(info);
  std::vector<Record> records;
  std::set<std::string> seen;
  for (const PlannedJob& job : plan_.jobs) {
    absl::StatusOr<std::vector<ExpectedPoint>> expected =
        ExpectedPoints(job.files, cell.plan.ranks, cell.plan.points);
    if (!expected.ok()) return expected.status();
    for (const ExpectedPoint& p : *expected) {
      if (!seen.insert(p.point.name).second) continue;
      for (int trial = 0; trial < p.spec->trials; ++trial) {
        records.push_back(SynthesizedRecord(p, trial, facts, info.cell, Outcome::kError,
                                            absl::StrCat("version setup failed: ", status_[i].detail)));
      }
    }
  }
  return WriteRecordsFile(dir + "/records.jsonl", records);
}

absl::Status Sweep::RunSetups(const std::vector<size_t>& todo) {
  std::map<std::string, VersionSetupResult> done;
  for (size_t i : todo) {
    const CellPlan& c = plan_.cells[i].plan;
    if (c.version.empty()) continue;
    // The setup command is the version value's (the same for every cell of the version).
    std::string command;
    for (const AxisValue& v : plan_.matrix.axes.back().values) {
      if (v.label == c.version) command = v.settings.setup;
    }
    if (command.empty()) continue;
    auto it = done.find(c.version);
    if (it == done.end()) {
      std::fprintf(env_.progress, "version %s: set-up...\n", c.version.c_str());
      std::fflush(env_.progress);
      VersionSetupResult r = RunVersionSetup(c.version, command, VersionDir(c), env_.base_env,
                                             options_.setup_timeout, *env_.runner, *env_.clock);
      std::fprintf(env_.progress, "version %s: set-up %s%s%s\n", c.version.c_str(),
                   r.ok ? (r.cached ? "cached" : "done") : "FAILED", r.ok ? "" : ": ",
                   r.detail.c_str());
      it = done.emplace(c.version, r).first;
    }
    if (!it->second.ok) {
      status_[i].status = "setup_failed";
      status_[i].detail = it->second.detail;
      absl::Status st = WriteSetupFailedRecords(i);
      if (!st.ok()) return st;
      ++result_.cells_setup_failed;
    }
  }
  return absl::OkStatus();
}

absl::Status Sweep::StartJob(ActiveCell& cell) {
  const PlannedCell& pc = plan_.cells[cell.index];
  const CellPlan& c = pc.plan;
  std::string name = JobName(cell);
  std::string run_dir = absl::StrCat(cell.dir, "/", name);
  std::map<std::string, std::string> extra;
  if (env_.resources.gpu_mode) extra["CUDA_VISIBLE_DEVICES"] = absl::StrJoin(cell.allocation.devices, ",");
  LaunchInputs inputs;
  inputs.ranks = c.ranks;
  inputs.program = options_.program;
  inputs.args = RunArguments(plan_.jobs[cell.job_order[cell.job]], c, run_dir, cell.version_dir);
  if (cell.continuation > 0) {
    // Only the runs the previous attempt did not get to.
    std::vector<RunKey> runs;
    for (const ExpectedPoint& p : cell.pending) {
      for (int trial : p.Trials()) runs.push_back(RunKey{p.point.name, trial});
    }
    const std::string runs_path = absl::StrCat(cell.dir, "/", name, ".runs");
    if (absl::Status st = WriteFileAtomically(runs_path, FormatRunList(runs)); !st.ok()) return st;
    inputs.args.insert(inputs.args.end(), {"--runs", runs_path});
  }
  inputs.env_names = c.env.Names();
  for (const auto& [k, v] : extra) {
    if (std::find(inputs.env_names.begin(), inputs.env_names.end(), k) == inputs.env_names.end()) {
      inputs.env_names.push_back(k);
    }
  }
  for (const std::string& p : c.launcher_prefix) {
    inputs.prefix.push_back(absl::StrReplaceAll(p, {{"{version_dir}", cell.version_dir}}));
  }
  absl::StatusOr<std::vector<std::string>> argv = ExpandLauncherArgv(pc.launcher, inputs);
  if (!argv.ok()) return argv.status();
  ProcessSpec spec;
  spec.argv = *argv;
  spec.env = ApplyEnvPlan(env_.base_env, c.env, extra, cell.version_dir);
  spec.cwd = cell.dir;
  spec.log_path = absl::StrCat(cell.dir, "/", name, ".log");
  nlohmann::json job = {{"argv", spec.argv}, {"log", spec.log_path}, {"out", run_dir}};
  nlohmann::json env_json = nlohmann::json::object();
  for (const std::string& n : inputs.env_names) {
    for (const std::string& e : spec.env) {
      if (e.compare(0, n.size() + 1, n + "=") == 0) env_json[n] = e.substr(n.size() + 1);
    }
  }
  job["env"] = env_json;
  cell.jobs.push_back(job);
  absl::Status st = WriteFileAtomically(
      cell.dir + "/cell.json",
      nlohmann::json({{"id", c.id}, {"hash", pc.hash}, {"labels", c.LabelMap()},
                      {"ranks", c.ranks}, {"timeout", FormatDurationText(c.timeout)},
                      {"devices", cell.allocation.devices}, {"jobs", cell.jobs}})
              .dump(2) + "\n");
  if (!st.ok()) return st;
  cell.job_started = env_.clock->Now();
  // A continuation finishes the job's work within the job's timeout, not a new one.
  if (cell.continuation == 0) cell.deadline = cell.job_started + c.timeout;
  cell.term_sent.reset();
  cell.kill_sent = false;
  cell.timed_out = false;
  absl::StatusOr<ProcessId> pid = env_.runner->Start(spec);
  if (!pid.ok()) return pid.status();
  cell.pid = *pid;
  cell.job_running = true;
  return absl::OkStatus();
}

absl::Status Sweep::StartCell(ActiveCell& cell) {
  cell.dir = CellDir(cell.index);
  cell.version_dir = VersionDir(plan_.cells[cell.index].plan);
  std::error_code ec;
  fs::remove_all(cell.dir, ec);  // an interrupted earlier attempt: start clean
  absl::Status st = MakeDirectories(cell.dir);
  if (!st.ok()) return st;
  cell.cell_started = env_.clock->Now();
  cell.job = 0;
  const CellPlan& c = plan_.cells[cell.index].plan;
  for (size_t j = 0; j < plan_.jobs.size(); ++j) {
    absl::StatusOr<std::vector<ExpectedPoint>> expected = ExpectedPoints(plan_.jobs[j].files, c.ranks, c.points);
    if (!expected.ok()) return expected.status();
    if (!expected->empty()) cell.job_order.push_back(j);
  }
  return StartJob(cell);
}

absl::StatusOr<bool> Sweep::Service(ActiveCell& cell) {
  const CellPlan& c = plan_.cells[cell.index].plan;
  std::optional<ProcessExit> exit = env_.runner->Poll(cell.pid);
  absl::Time now = env_.clock->Now();
  if (!exit) {
    if (!cell.term_sent && now >= cell.deadline) {
      cell.timed_out = true;
      cell.term_sent = now;
      env_.runner->SignalGroup(cell.pid, SIGTERM);
    } else if (cell.term_sent && !cell.kill_sent && now >= *cell.term_sent + options_.kill_grace) {
      cell.kill_sent = true;
      env_.runner->SignalGroup(cell.pid, SIGKILL);
    }
    return false;
  }
  // Whatever the job left behind in its group (orphaned ranks) goes with it.
  env_.runner->SignalGroup(cell.pid, SIGKILL);
  cell.job_running = false;
  std::string name = JobName(cell);
  JobEnd end;
  end.timed_out = cell.timed_out;
  end.timeout = c.timeout;
  end.exit = *exit;
  end.log_path = absl::StrCat(cell.dir, "/", name, ".log");
  end.run_dir = absl::StrCat(cell.dir, "/", name);
  JobRecordsInfo info{c.backend, c.ranks, c.share_gpu, c.LabelMap(),
                      ApplyEnvPlan(env_.base_env, c.env, {}, cell.version_dir)};
  const PlannedJob& job = plan_.jobs[cell.job_order[cell.job]];
  if (cell.continuation == 0) {
    absl::StatusOr<std::vector<ExpectedPoint>> all = ExpectedPoints(job.files, c.ranks, c.points);
    if (!all.ok()) return all.status();
    cell.pending.clear();
    cell.earlier = cell.expected_points;
    for (ExpectedPoint& p : *all) {
      if (cell.expected_points.insert(p.point.name).second) cell.pending.push_back(std::move(p));
    }
  }
  absl::StatusOr<std::vector<Record>> records = CollectJobRecords(
      cell.pending, end, info, JobRunsSuperset(job, c) || cell.continuation > 0);
  if (!records.ok()) return records.status();
  // A job that ended early hands what it did not get to to a new job; its records of those
  // runs ("not run", or synthesized) give way to the new job's.
  absl::StatusOr<Continuation> next = PlanContinuation(cell.pending, end);
  if (!next.ok()) return next.status();
  for (Record& r : *records) {
    if (cell.earlier.count(r.point) == 0 && next->keys.count(RunKey{r.point, r.trial}) == 0) {
      cell.records.push_back(std::move(r));
    }
  }
  bool abnormal = end.timed_out || exit->signaled || (exit->code != 0 && exit->code != 1);
  cell.abnormal = cell.abnormal || abnormal;
  std::string how = end.timed_out ? absl::StrCat("timeout after ", FormatDurationText(c.timeout))
                                  : exit->ToString();
  if (cell.how.empty() || abnormal) cell.how = how;
  cell.jobs.back()["end"] = how;
  cell.jobs.back()["wall_s"] = absl::ToDoubleSeconds(now - cell.job_started);
  if (!next->empty()) cell.jobs.back()["continued_runs"] = next->keys.size();
  // The reports look for each cell's environment at cells/<cell>/environment.json.
  std::string env_src = end.run_dir + "/environment.json";
  if (!Exists(cell.dir + "/environment.json") && Exists(env_src)) {
    std::error_code ec;
    fs::copy_file(env_src, cell.dir + "/environment.json", ec);
  }
  if (!next->empty()) {
    cell.pending = std::move(next->points);
    ++cell.continuation;
    absl::Status st = StartJob(cell);
    if (!st.ok()) return st;
    return false;
  }
  cell.continuation = 0;
  if (++cell.job < cell.job_order.size()) {
    absl::Status st = StartJob(cell);
    if (!st.ok()) return st;
    return false;
  }
  absl::Status st = FinishCell(cell);
  if (!st.ok()) return st;
  return true;
}

absl::Status Sweep::FinishCell(ActiveCell& cell) {
  const PlannedCell& pc = plan_.cells[cell.index];
  absl::Time now = env_.clock->Now();
  double wall = absl::ToDoubleSeconds(now - cell.cell_started);
  CellSummary summary;
  summary.id = pc.plan.id;
  summary.records = static_cast<int>(cell.records.size());
  for (const Record& r : cell.records) {
    if (r.result.outcome == Outcome::kPass) ++summary.passed;
    if (!r.matched) ++summary.unmet;
  }
  summary.failed = summary.unmet > 0 || cell.abnormal;
  summary.how = cell.how;
  summary.wall_s = wall;
  absl::Status st = WriteRecordsFile(cell.dir + "/records.jsonl", cell.records);
  if (!st.ok()) return st;
  // Written last: its presence means the cell's records are complete.
  st = WriteFileAtomically(
      cell.dir + "/done.json",
      nlohmann::json({{"id", pc.plan.id}, {"hash", pc.hash}, {"status", "done"},
                      {"end", cell.how}, {"wall_s", wall}, {"records", summary.records},
                      {"unmet", summary.unmet}, {"jobs", cell.jobs}})
              .dump(2) + "\n");
  if (!st.ok()) return st;
  status_[cell.index].status = "done";
  status_[cell.index].wall_s = wall;
  status_[cell.index].detail = cell.abnormal ? cell.how : "";
  ++result_.cells_run;
  if (summary.failed) ++result_.cells_failed;
  pool_.Release(cell.allocation);
  progress_->CellFinished(summary, now);
  return WriteSweepJson();
}

void Sweep::KillAll(std::deque<ActiveCell>& running) {
  for (ActiveCell& c : running) {
    if (c.job_running) env_.runner->SignalGroup(c.pid, SIGTERM);
  }
  absl::Time give_up = env_.clock->Now() + options_.kill_grace;
  bool any = true;
  while (any) {
    any = false;
    for (ActiveCell& c : running) {
      if (!c.job_running) continue;
      if (env_.runner->Poll(c.pid)) {
        c.job_running = false;
        env_.runner->SignalGroup(c.pid, SIGKILL);
      } else {
        any = true;
      }
    }
    if (any && env_.clock->Now() >= give_up) {
      for (ActiveCell& c : running) {
        if (c.job_running) env_.runner->SignalGroup(c.pid, SIGKILL);
      }
      give_up = absl::InfiniteFuture();
    }
    if (any) env_.clock->SleepFor(options_.poll_interval);
  }
}

// --baseline-ignore names axes of this matrix, needs a baseline, and must not make two cells
// of either side one.
absl::Status Sweep::CheckIgnoredAxes(const BaselineMatch& match,
                                     const std::vector<Record>* baseline) const {
  if (match.ignore_axes.empty()) return absl::OkStatus();
  if (baseline == nullptr) return absl::InvalidArgumentError("--baseline-ignore needs --baseline");
  std::vector<std::string> names;
  for (const MatrixAxis& axis : plan_.matrix.axes) names.push_back(axis.name);
  for (const std::string& axis : match.ignore_axes) {
    if (std::find(names.begin(), names.end(), axis) == names.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--baseline-ignore: the matrix has no axis '", axis, "' (its axes: ",
                       names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
    }
  }
  std::vector<std::map<std::string, std::string>> cells;
  for (const PlannedCell& cell : plan_.cells) cells.push_back(cell.plan.LabelMap());
  absl::Status checked = CheckBaselineMatch(cells, match, "the matrix");
  if (!checked.ok()) return checked;
  return CheckBaselineMatch(*baseline, match, options_.baseline_dir);
}

absl::StatusOr<SweepResult> Sweep::Run() {
  // The baseline is input too: a bad one is reported before anything is written.
  std::optional<ResultsDir> baseline;
  if (!options_.baseline_dir.empty()) {
    absl::StatusOr<ResultsDir> b = LoadResultsDir(options_.baseline_dir);
    if (!b.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--baseline: ", b.status().message()));
    }
    baseline = *std::move(b);
  }
  const BaselineMatch match{options_.baseline_ignore_axes};
  if (absl::Status checked = CheckIgnoredAxes(match, baseline ? &baseline->records : nullptr);
      !checked.ok()) {
    return checked;
  }
  out_dir_ = Absolute(options_.out_dir);
  absl::Status st = MakeDirectories(out_dir_ + "/cells");
  if (!st.ok()) return absl::InvalidArgumentError(absl::StrCat("--out: ", st.message()));
  // One sweep per DIR at a time; the lock goes with the process, however it ends.
  int lock_fd = open((out_dir_ + "/.sweep.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd < 0 || flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
    if (lock_fd >= 0) close(lock_fd);
    return absl::UnavailableError(absl::StrCat(out_dir_, ": another sweep is running there"));
  }
  struct LockGuard {
    int fd;
    ~LockGuard() { close(fd); }
  } lock_guard{lock_fd};

  result_.cells = static_cast<int>(plan_.cells.size());
  status_.assign(plan_.cells.size(), CellStatus{});
  std::vector<size_t> todo;
  for (size_t i = 0; i < plan_.cells.size(); ++i) {
    if (IsDone(i)) {
      absl::StatusOr<std::string> text = ReadFileToString(CellDir(i) + "/done.json");
      nlohmann::json j = nlohmann::json::parse(text.ok() ? *text : "{}", nullptr, false);
      status_[i].status = "done";
      status_[i].wall_s = j.is_object() ? j.value("wall_s", 0.0) : 0.0;
      ++result_.cells_resumed;
    } else {
      todo.push_back(i);
    }
  }
  st = WriteSweepJson();
  if (!st.ok()) return st;
  std::fprintf(env_.progress, "sweep %s: %zu cells (%d already done), %s\n",
               plan_.matrix.name.c_str(), plan_.cells.size(), result_.cells_resumed,
               env_.resources.ToString().c_str());
  st = RunSetups(todo);
  if (!st.ok()) return st;
  std::deque<size_t> pending;
  for (size_t i : todo) {
    if (status_[i].status == "pending") pending.push_back(i);
  }
  absl::Time start = env_.clock->Now();
  progress_.emplace(env_.progress, env_.interactive, result_.cells,
                    result_.cells_resumed + result_.cells_setup_failed, start);

  std::deque<ActiveCell> running;
  while (!pending.empty() || !running.empty()) {
    if (env_.stop != nullptr && env_.stop->load()) {
      KillAll(running);
      result_.interrupted = true;
      break;
    }
    // Start every pending cell that fits now, in matrix order (smaller ones may pass a larger
    // one that waits for devices).
    for (auto it = pending.begin(); it != pending.end();) {
      const CellPlan& c = plan_.cells[*it].plan;
      std::optional<Allocation> a = pool_.TryAcquire(pool_.Need(c.ranks, c.share_gpu));
      if (!a) {
        ++it;
        continue;
      }
      running.push_back(ActiveCell{});
      running.back().index = *it;
      running.back().allocation = *a;
      st = StartCell(running.back());
      if (!st.ok()) {
        KillAll(running);
        return st;
      }
      progress_->CellStarted(env_.clock->Now());
      it = pending.erase(it);
    }
    bool finished_any = false;
    for (auto it = running.begin(); it != running.end();) {
      absl::StatusOr<bool> finished = Service(*it);
      if (!finished.ok()) {
        KillAll(running);
        return finished.status();
      }
      if (*finished) {
        it = running.erase(it);
        finished_any = true;
      } else {
        ++it;
      }
    }
    progress_->Tick(env_.clock->Now());
    if (!finished_any) env_.clock->SleepFor(options_.poll_interval);
  }
  progress_->Finish(env_.clock->Now());

  absl::StatusOr<SweepOutputsResult> outputs =
      WriteSweepOutputs(plan_, status_, out_dir_, baseline ? &baseline->records : nullptr,
                        options_.baseline_dir, match);
  if (!outputs.ok()) return outputs.status();
  result_.records = outputs->records;
  result_.unmet = outputs->unmet;
  result_.regressions = outputs->regressions;
  result_.exit_status = outputs->exit_status;
  result_.headline = outputs->headline;
  return result_;
}

void PrintDryRun(const SweepPlan& plan, const SweepOptions& options, std::FILE* out) {
  std::fprintf(out, "sweep %s: %zu cells, %zu job(s) per cell\n", plan.matrix.name.c_str(),
               plan.cells.size(), plan.jobs.size());
  for (const PlannedCell& pc : plan.cells) {
    const CellPlan& c = pc.plan;
    std::string version_dir = c.version.empty() ? "" : absl::StrCat(options.out_dir, "/versions/", SafeDirName(c.version));
    std::fprintf(out, "%s  (ranks %d, timeout %s, launcher %s)\n", c.id.c_str(), c.ranks,
                 FormatDurationText(c.timeout).c_str(), pc.launcher.name.c_str());
    for (const std::string& n : c.env.Names()) {
      std::vector<std::string> env = ApplyEnvPlan({}, c.env, {}, version_dir);
      for (const std::string& e : env) {
        if (e.compare(0, n.size() + 1, n + "=") == 0) std::fprintf(out, "    %s\n", e.c_str());
      }
    }
    for (size_t j = 0; j < plan.jobs.size(); ++j) {
      std::string name = plan.jobs.size() == 1 ? "job" : absl::StrCat("job", j);
      LaunchInputs inputs;
      inputs.ranks = c.ranks;
      inputs.program = options.program;
      inputs.args = RunArguments(plan.jobs[j], c,
                                 absl::StrCat(options.out_dir, "/cells/", c.dir_name, "/", name),
                                 version_dir);
      inputs.env_names = c.env.Names();
      inputs.prefix = c.launcher_prefix;
      absl::StatusOr<std::vector<std::string>> argv = ExpandLauncherArgv(pc.launcher, inputs);
      if (argv.ok()) std::fprintf(out, "    $ %s\n", absl::StrJoin(*argv, " ").c_str());
    }
  }
}

}  // namespace

absl::StatusOr<SweepResult> RunSweep(const SweepOptions& options, SweepEnvironment& env) {
  absl::StatusOr<SweepPlan> plan = PlanSweep(options.matrix_path);
  if (!plan.ok()) return plan.status();
  if (options.dry_run) {
    PrintDryRun(*plan, options, env.progress);
    SweepResult result;
    result.cells = static_cast<int>(plan->cells.size());
    return result;
  }
  Sweep sweep(options, env, *std::move(plan));
  return sweep.Run();
}

}  // namespace gh::driver
