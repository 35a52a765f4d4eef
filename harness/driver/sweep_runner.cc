#include "harness/driver/sweep_runner.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "harness/core/file_util.h"
#include "harness/core/records_file.h"
#include "harness/core/run_list.h"
#include "harness/driver/cell_job.h"
#include "harness/driver/cell_records.h"
#include "harness/driver/dir_lock.h"
#include "harness/driver/job_ledger.h"
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
  size_t job = 0;                 // index into the planned cell's jobs
  std::optional<RunningJob> running;
  absl::Time cell_started;
  std::vector<Record> records;
  nlohmann::json jobs = nlohmann::json::array();
  bool abnormal = false;
  std::string how;
  // The current job's runs still to record, and which continuation of it is running (0: the
  // job itself; N: its N-th continuation after it ended early, see PlanContinuation).
  std::vector<ExpectedPoint> pending;
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
    std::string name = plan_.cells[cell.index].jobs[cell.job].name;
    if (cell.continuation > 0) absl::StrAppend(&name, ".cont", cell.continuation);
    return name;
  }
  // One sweep, bisect or minimize per DIR at a time; then no job of an earlier one is left.
  absl::Status ClaimOutDir();
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
  // Held while the sweep runs: DIR's lock, its job ledger, and env_.runner behind the ledger.
  std::optional<DirLock> lock_;
  std::optional<JobLedger> ledger_;
  std::optional<LedgeredProcessRunner> runner_;
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
  for (const CellJob& job : cell.jobs) {
    for (const ExpectedPoint& p : job.points) {
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
                                             options_.setup_timeout, *runner_, *env_.clock);
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
  const CellJob& cell_job = pc.jobs[cell.job];
  CellJobInputs inputs;
  inputs.cell = &pc;
  inputs.job = &plan_.jobs[cell_job.job];
  inputs.cell_job = &cell_job;
  // A continuation runs only the runs the previous attempt did not get to.
  if (cell.continuation > 0) inputs.runs = &cell.pending;
  inputs.program = options_.program;
  inputs.dir = cell.dir;
  inputs.name = JobName(cell);
  inputs.version_dir = cell.version_dir;
  inputs.base_env = env_.base_env;
  if (env_.resources.gpu_mode) inputs.devices = cell.allocation.devices;
  absl::StatusOr<CellJobSpec> spec = MakeCellJobSpec(inputs);
  if (!spec.ok()) return spec.status();
  nlohmann::json job = {{"argv", spec->process.argv},
                        {"log", spec->process.log_path},
                        {"out", spec->out_dir},
                        {"env", spec->cell_env}};
  cell.jobs.push_back(job);
  const CellPlan& c = pc.plan;
  absl::Status st = WriteFileAtomically(
      cell.dir + "/cell.json",
      nlohmann::json({{"id", c.id}, {"hash", pc.hash}, {"labels", c.LabelMap()},
                      {"ranks", c.ranks}, {"timeout", FormatDurationText(c.timeout)},
                      {"devices", cell.allocation.devices}, {"jobs", cell.jobs}})
              .dump(2) + "\n");
  if (!st.ok()) return st;
  // A continuation finishes the job's work within the job's timeout, not a new one.
  std::optional<absl::Time> deadline;
  if (cell.continuation > 0 && cell.running) deadline = cell.running->deadline();
  absl::StatusOr<RunningJob> running = RunningJob::Start(*spec, *runner_, *env_.clock, deadline);
  if (!running.ok()) return running.status();
  cell.running = *std::move(running);
  if (cell.continuation == 0) cell.pending = cell_job.points;
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
  return StartJob(cell);
}

absl::StatusOr<bool> Sweep::Service(ActiveCell& cell) {
  const CellPlan& c = plan_.cells[cell.index].plan;
  std::optional<JobEnd> ended = cell.running->Poll(options_.kill_grace);
  if (!ended) return false;
  const JobEnd& end = *ended;
  const absl::Time now = env_.clock->Now();
  JobRecordsInfo info{c.backend, c.ranks, c.share_gpu, c.LabelMap(),
                      ApplyEnvPlan(env_.base_env, c.env, {}, cell.version_dir)};
  // The job was given exactly `pending` (its filter, or --runs): nothing else counts.
  absl::StatusOr<std::vector<Record>> records =
      CollectJobRecords(cell.pending, end, info, /*only_expected=*/true);
  if (!records.ok()) return records.status();
  // A job that ended early hands what it did not get to to a new job; its records of those
  // runs ("not run", or synthesized) give way to the new job's.
  absl::StatusOr<Continuation> next = PlanContinuation(cell.pending, end);
  if (!next.ok()) return next.status();
  for (Record& r : *records) {
    if (next->keys.count(RunKey{r.point, r.trial}) == 0) {
      cell.records.push_back(std::move(r));
    }
  }
  const ProcessExit& exit = end.exit;
  bool abnormal = end.timed_out || exit.signaled || (exit.code != 0 && exit.code != 1);
  cell.abnormal = cell.abnormal || abnormal;
  std::string how = end.timed_out ? absl::StrCat("timeout after ", FormatDurationText(c.timeout))
                                  : exit.ToString();
  if (cell.how.empty() || abnormal) cell.how = how;
  cell.jobs.back()["end"] = how;
  cell.jobs.back()["wall_s"] = absl::ToDoubleSeconds(now - cell.running->started());
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
  if (++cell.job < plan_.cells[cell.index].jobs.size()) {
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
    if (c.running) c.running->Terminate();
  }
  for (bool any = true; any;) {
    any = false;
    for (ActiveCell& c : running) {
      if (c.running && !c.running->Poll(options_.kill_grace)) any = true;
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

absl::Status Sweep::ClaimOutDir() {
  absl::StatusOr<DirLock> lock = DirLock::Acquire(out_dir_);
  if (!lock.ok()) return lock.status();
  lock_.emplace(*std::move(lock));
  ledger_.emplace(out_dir_);
  absl::StatusOr<int> stopped = ledger_->StopLeftovers(options_.kill_grace, *env_.clock, env_.progress);
  if (!stopped.ok()) return stopped.status();
  runner_.emplace(*env_.runner, *ledger_);
  return absl::OkStatus();
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
  if (absl::Status claimed = ClaimOutDir(); !claimed.ok()) return claimed;

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

// What Sweep::StartJob would start for each cell's first job(s), from the same spec.
absl::Status PrintDryRun(const SweepPlan& plan, const SweepOptions& options,
                         const std::vector<std::string>& base_env, std::FILE* out) {
  std::fprintf(out, "sweep %s: %zu cells, %zu job(s) per cell\n", plan.matrix.name.c_str(),
               plan.cells.size(), plan.jobs.size());
  const std::string out_dir = options.out_dir.empty() ? "DIR" : Absolute(options.out_dir);
  for (const PlannedCell& pc : plan.cells) {
    const CellPlan& c = pc.plan;
    std::fprintf(out, "%s  (ranks %d, timeout %s, launcher %s)\n", c.id.c_str(), c.ranks,
                 FormatDurationText(c.timeout).c_str(), pc.launcher.name.c_str());
    for (const CellJob& cell_job : pc.jobs) {
      CellJobInputs inputs;
      inputs.cell = &pc;
      inputs.job = &plan.jobs[cell_job.job];
      inputs.cell_job = &cell_job;
      inputs.program = options.program;
      inputs.dir = absl::StrCat(out_dir, "/cells/", c.dir_name);
      inputs.name = cell_job.name;
      inputs.version_dir =
          c.version.empty() ? "" : absl::StrCat(out_dir, "/versions/", SafeDirName(c.version));
      inputs.base_env = base_env;
      absl::StatusOr<CellJobSpec> spec = MakeCellJobSpec(inputs);
      if (!spec.ok()) return spec.status();
      if (&cell_job == &pc.jobs.front()) {
        for (const auto& [name, value] : spec->cell_env) {
          std::fprintf(out, "    %s=%s\n", name.c_str(), value.c_str());
        }
      }
      std::fprintf(out, "    $ %s\n", absl::StrJoin(spec->process.argv, " ").c_str());
      if (!spec->runs_path.empty()) {
        std::fprintf(out, "      (%s lists its %zu runs)\n", spec->runs_path.c_str(),
                     spec->listed_runs);
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SweepResult> RunSweep(const SweepOptions& options, SweepEnvironment& env) {
  absl::StatusOr<SweepPlan> plan = PlanSweep(options.matrix_path);
  if (!plan.ok()) return plan.status();
  if (options.dry_run) {
    if (absl::Status st = PrintDryRun(*plan, options, env.base_env, env.progress); !st.ok()) {
      return st;
    }
    SweepResult result;
    result.cells = static_cast<int>(plan->cells.size());
    return result;
  }
  Sweep sweep(options, env, *std::move(plan));
  return sweep.Run();
}

}  // namespace gh::driver
