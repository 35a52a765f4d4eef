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
#include "harness/core/point.h"
#include "harness/core/records_file.h"
#include "harness/core/run_list.h"
#include "harness/core/shell_quote.h"
#include "harness/core/state_json.h"
#include "harness/core/status_macros.h"
#include "harness/core/writable_dir.h"
#include "harness/driver/cell_job.h"
#include "harness/driver/cell_records.h"
#include "harness/driver/dir_lock.h"
#include "harness/driver/job_ledger.h"
#include "harness/driver/sweep_narrowing.h"
#include "harness/driver/sweep_outputs.h"
#include "harness/driver/sweep_plan.h"
#include "harness/driver/job_attempts.h"
#include "harness/driver/slurm_node_failure.h"
#include "harness/driver/slurm_sweep.h"
#include "harness/driver/sweep_progress.h"
#include "harness/driver/version_setup.h"
#include "harness/driver/version_setup_queue.h"
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
  // Per-point progress: the current job's records.jsonl, the bytes of it read so far and the
  // runs (lines) they hold; read at most once a second.
  std::string job_records;
  uintmax_t job_read = 0;
  size_t job_runs = 0;
  absl::Time last_read = absl::InfinitePast();
  // --rerun-failed: the cell's records from before; its rerun points' new records replace theirs.
  std::optional<std::vector<Record>> previous;
  // Node mode: 2 and up when a node died under an earlier attempt (retry_of says where).
  int attempt = 1;
  nlohmann::json retry_of;
  // --processes N: which process of the cell this is (0..N-1), the directory its jobs run in
  // (the cell's for process 0, process<k>/ beside), and the earlier processes' records and wall
  // time, which its records.jsonl and done.json add to.
  int process = 0;
  std::string job_dir;
  std::vector<Record> earlier;
  double earlier_wall_s = 0;
};

// A rerun cell's records: the earlier ones in their order, each rerun point's new records
// where its old ones were (a point new to the cell at the end).
std::vector<Record> MergeRerunRecords(const std::vector<Record>& previous, std::vector<Record> fresh) {
  std::set<std::string> rerun, placed;
  for (const Record& r : fresh) rerun.insert(r.point);
  std::vector<Record> out;
  auto place = [&](const std::string& point) {
    if (!placed.insert(point).second) return;
    for (Record& r : fresh) {
      if (r.point == point) out.push_back(std::move(r));
    }
  };
  for (const Record& r : previous) {
    if (rerun.count(r.point) == 0) {
      out.push_back(r);
    } else {
      place(r.point);
    }
  }
  for (const std::string& point : rerun) place(point);
  return out;
}

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
  // The cell's wall time and unmet count when its done.json says it finished under this plan; nullopt when it
  // did not (no done.json, or one of another plan); InvalidArgument naming the file and the key
  // when done.json is malformed.
  struct Resumed {
    double wall_s = 0;
    double unmet = 0;  // the cell's unmet expectations when it finished
    int processes = 1;  // --processes: how many of the cell's processes ran (absent: 1)
  };
  absl::StatusOr<std::optional<Resumed>> ResumedCell(size_t i) const;
  // The cell in the progress lines: its id, with --processes N its process too.
  std::string ProgressId(size_t index, int process) const {
    const std::string& id = plan_.cells[index].plan.id;
    return options_.processes > 1 ? absl::StrCat(id, " [process ", process + 1, "/", options_.processes, "]") : id;
  }
  std::string JobName(const ActiveCell& cell) const {
    std::string name = plan_.cells[cell.index].jobs[cell.job].name;
    if (cell.attempt > 1) absl::StrAppend(&name, ".retry", cell.attempt - 1);
    if (cell.continuation > 0) absl::StrAppend(&name, ".cont", cell.continuation);
    return name;
  }
  // One sweep, bisect or minimize per DIR at a time; then no job of an earlier one is left.
  absl::Status ClaimOutDir();
  absl::StatusOr<bool> SetupReady(size_t i, bool* failed);
  absl::Status StartCell(ActiveCell& cell);
  absl::Status StartJob(ActiveCell& cell);
  // Returns true when the cell has finished (all jobs).
  absl::StatusOr<bool> Service(ActiveCell& cell);
  absl::Status FinishCell(ActiveCell& cell);
  // Node mode, after srun said a node of the cell's step died: the node takes no more cells and,
  // when the live nodes can hold it, the cell waits in retries_ to start again (true); false:
  // it ends with the attempt's records (infra for what it did not record).
  bool RetryOnLiveNodes(ActiveCell& cell, const SlurmNodeFailure& lost, const JobEnd& end);
  // A cell the live nodes can no longer hold: every run infra, naming the dead nodes (true).
  absl::StatusOr<bool> EndIfNoLiveNode(size_t i);
  // The cell as its last attempt left it when it waits for a retry, else a new one.
  ActiveCell TakeRetry(size_t i) {
    auto retry = retries_.find(i);
    if (retry == retries_.end()) return ActiveCell{};
    ActiveCell cell = std::move(retry->second);
    retries_.erase(retry);
    return cell;
  }
  absl::Status CheckIgnoredAxes(const BaselineMatch& match,
                                const std::vector<Record>* baseline) const;
  void KillAll(std::deque<ActiveCell>& running);
  absl::Status WriteSweepJson();
  absl::Status WriteSetupFailedRecords(size_t i) {
    return WriteInfraRecords(i, absl::StrCat("version setup failed: ", status_[i].detail));
  }
  // Every run of cell i infra with `signature`, in a fresh cell directory (or, `keep_dir`, beside
  // what earlier attempts left there).
  absl::Status WriteInfraRecords(size_t i, const std::string& signature, bool keep_dir = false);
  void ReadJobProgress(ActiveCell& cell);
  // A cell ended without (all of) its processes running (set-up failed, no live node): each
  // process left counts as done and the cell as failed; no later round runs it.
  void EndCellEarly(size_t i) {
    const int left = std::max(1, options_.processes - next_process_[i]);
    totals_.cells_done += left;
    ++totals_.cells_failed;
    totals_.runs_done += static_cast<int>(CellRuns(plan_.cells[i])) * left;
    next_process_[i] = options_.processes;
  }
  // --fresh: what an earlier sweep wrote into DIR, gone.
  absl::Status RemoveEarlierResults();
  // --rerun-failed: for each done cell, its points whose last result is unmet or a regression.
  absl::StatusOr<std::map<size_t, std::set<std::string>>> FailedPoints(
      const std::vector<Record>* baseline, const BaselineMatch& match) const;
  // Chooses the cells, runs their version set-ups: the cells to start, in matrix order.
  absl::Status RunCells(std::deque<size_t> pending);
  absl::StatusOr<std::deque<size_t>> PrepareCells(const std::vector<Record>* baseline,
                                                  const BaselineMatch& match);
  // Which cells this invocation runs (`todo`), with progress totals for the rest.
  absl::StatusOr<std::vector<size_t>> ChooseCells(const std::vector<Record>* baseline,
                                                  const BaselineMatch& match);

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
  std::optional<VersionSetupQueue> setups_;  // after runner_: ends its set-ups first
  ProgressTotals totals_;
  std::set<size_t> rerun_;  // --rerun-failed: cells narrowed to their failed points
  std::map<size_t, ActiveCell> retries_;  // node mode: cells to start again on live nodes
  // --processes: per cell, the process it runs next (how many ran; N or more: done).
  std::vector<int> next_process_;
  SweepResult result_;
};

absl::StatusOr<std::optional<Sweep::Resumed>> Sweep::ResumedCell(size_t i) const {
  const std::string dir = CellDir(i);
  const std::string path = dir + "/done.json";
  if (!Exists(path) || !Exists(dir + "/records.jsonl")) return std::nullopt;
  absl::StatusOr<nlohmann::json> json = ParseStateFile(path);
  if (!json.ok()) return absl::InvalidArgumentError(json.status().message());
  const StateJson done(*json, path);
  GH_ASSIGN_OR_RETURN(std::string hash, done.String("hash"));
  GH_ASSIGN_OR_RETURN(std::string id, done.String("id"));
  GH_ASSIGN_OR_RETURN(double wall_s, done.NumberOr("wall_s", 0.0));
  GH_ASSIGN_OR_RETURN(double unmet, done.NumberOr("unmet", 0.0));
  GH_ASSIGN_OR_RETURN(double processes, done.NumberOr("processes", 1.0));
  if (processes < 1 || processes != static_cast<int>(processes)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": processes: expected a count of 1 or more, got ", processes));
  }
  if (hash != plan_.cells[i].hash || id != plan_.cells[i].plan.id) return std::nullopt;
  return Resumed{wall_s, unmet, static_cast<int>(processes)};
}

absl::Status Sweep::WriteSweepJson() {
  return WriteFileAtomically(out_dir_ + "/sweep.json",
                             MakeSweepInfo(plan_, status_).ToJson().dump(2) + "\n");
}

absl::Status Sweep::WriteInfraRecords(size_t i, const std::string& signature, bool keep_dir) {
  const PlannedCell& cell = plan_.cells[i];
  std::string dir = CellDir(i);
  std::error_code ec;
  if (!keep_dir) fs::remove_all(dir, ec);
  absl::Status st = MakeDirectories(dir);
  if (!st.ok()) return st;
  JobRecordsInfo info{cell.plan.backend, cell.plan.ranks, cell.plan.share_gpu, cell.plan.LabelMap(),
                      ApplyEnvPlan(env_.base_env, cell.plan.env, {}, VersionDir(cell.plan))};
  const EnvironmentFacts facts = DriverKnownFacts(info);
  std::vector<Record> records;
  for (const CellJob& job : cell.jobs) {
    for (const ExpectedPoint& p : job.points) {
      for (int trial = 0; trial < p.spec->trials; ++trial) {
        records.push_back(SynthesizedRecord(p, trial, facts, info.cell, Outcome::kInfra, signature));
      }
    }
  }
  return WriteRecordsFile(dir + "/records.jsonl", records);
}

// Whether cell `i` may start: its version has no set-up or one that succeeded. A set-up still
// running (or queued behind --setup-jobs others) keeps the cell waiting; a failed one records
// the cell as set-up failed (done: `failed` set).
absl::StatusOr<bool> Sweep::SetupReady(size_t i, bool* failed) {
  *failed = false;
  const CellPlan& c = plan_.cells[i].plan;
  if (c.version.empty()) return true;
  // The setup command is the version value's (the same for every cell of the version).
  std::string command;
  for (const AxisValue& v : plan_.matrix.axes.back().values) {
    if (v.label == c.version) command = v.settings.setup;
  }
  if (command.empty()) return true;
  std::optional<VersionSetupResult> r =
      setups_->Need({c.version, command, VersionDir(c), env_.base_env, options_.setup_timeout});
  if (!r) return false;
  if (r->ok) return true;
  status_[i].status = "setup_failed";
  status_[i].detail = r->detail;
  if (absl::Status st = WriteSetupFailedRecords(i); !st.ok()) return st;
  ++result_.cells_setup_failed;
  EndCellEarly(i);
  *failed = true;
  return false;
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
  inputs.dir = cell.job_dir;
  inputs.name = JobName(cell);
  inputs.version_dir = cell.version_dir;
  inputs.base_env = env_.base_env;
  if (env_.resources.gpu_mode && !env_.resources.slurm) inputs.devices = cell.allocation.devices;
  if (!cell.allocation.nodes.empty()) {
    inputs.step_args = SrunStepArgs(cell.allocation.nodes, env_.resources.SlurmGpuMode(), pc.plan.share_gpu);
  }
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
  cell.job_records = spec->out_dir + "/records.jsonl";
  cell.job_read = 0;
  cell.job_runs = 0;
  return absl::OkStatus();
}

void Sweep::ReadJobProgress(ActiveCell& cell) {
  const absl::Time now = env_.clock->Now();
  if (now - cell.last_read < absl::Seconds(1)) return;
  cell.last_read = now;
  // The job appends one line per finished run; a torn last line is not counted until whole.
  if (std::FILE* f = std::fopen(cell.job_records.c_str(), "rb")) {
    if (std::fseek(f, static_cast<long>(cell.job_read), SEEK_SET) == 0) {
      char buffer[1 << 16];
      for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;) {
        cell.job_runs += static_cast<size_t>(std::count(buffer, buffer + n, '\n'));
        cell.job_read += n;
      }
    }
    std::fclose(f);
  }
  const std::vector<RunKey> runs = RunsOf(cell.pending);
  const std::string point = cell.job_runs < runs.size() ? runs[cell.job_runs].point : "";
  progress_->CellAt(ProgressId(cell.index, cell.process),
                    static_cast<int>(cell.records.size() + std::min(cell.job_runs, runs.size())), point, now);
}

absl::Status Sweep::StartCell(ActiveCell& cell) {
  cell.dir = CellDir(cell.index);
  cell.version_dir = VersionDir(plan_.cells[cell.index].plan);
  cell.job = 0;
  if (cell.attempt > 1) return StartJob(cell);  // beside the dead attempt's job and log
  cell.process = next_process_[cell.index];
  if (cell.process > 0) {  // beside the earlier processes' records, which it adds to
    absl::StatusOr<RecordsFileContents> earlier = ReadRecordsFile(cell.dir + "/records.jsonl");
    if (!earlier.ok()) return earlier.status();
    for (Record& r : earlier->records) {
      if (r.process.value_or(0) < cell.process) cell.earlier.push_back(std::move(r));
    }
    GH_ASSIGN_OR_RETURN(std::optional<Resumed> resumed, ResumedCell(cell.index));
    cell.earlier_wall_s = resumed ? resumed->wall_s : 0;
    cell.job_dir = absl::StrCat(cell.dir, "/process", cell.process);
    std::error_code ec;
    fs::remove_all(cell.job_dir, ec);  // an interrupted earlier attempt of this process
    GH_RETURN_IF_ERROR(MakeDirectories(cell.job_dir));
    cell.cell_started = env_.clock->Now();
    return StartJob(cell);
  }
  cell.job_dir = cell.dir;
  if (rerun_.count(cell.index) != 0) {
    absl::StatusOr<RecordsFileContents> previous = ReadRecordsFile(cell.dir + "/records.jsonl");
    if (!previous.ok()) return previous.status();
    cell.previous = std::move(previous->records);
  }
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
  if (!ended) {
    ReadJobProgress(cell);
    return false;
  }
  const JobEnd& end = *ended;
  const absl::Time now = env_.clock->Now();
  std::optional<SlurmNodeFailure> lost;
  if (env_.resources.slurm) lost = FindSlurmNodeFailure(end.log_path);
  if (lost && RetryOnLiveNodes(cell, *lost, end)) return true;
  JobRecordsInfo info{c.backend, c.ranks, c.share_gpu, c.LabelMap(),
                      ApplyEnvPlan(env_.base_env, c.env, {}, cell.version_dir)};
  // The job was given exactly `pending` (its filter, or --runs): nothing else counts.
  absl::StatusOr<std::vector<Record>> records =
      CollectJobRecords(cell.pending, end, info, /*only_expected=*/true);
  if (!records.ok()) return records.status();
  // A retry that could not run either still names the node the cell first died on.
  if (cell.attempt > 1) {
    for (Record& r : *records) {
      if (r.result.outcome != Outcome::kInfra) continue;
      r.result.signature = absl::StrCat(cell.retry_of["end"].get<std::string>(), "; attempt ", cell.attempt,
                                        ": ", r.result.signature);
    }
  }
  // A job the launcher or MPI start-up failed ends the cell with the launcher's own words.
  std::string infra;
  for (const Record& r : *records) {
    if (r.result.outcome == Outcome::kInfra && infra.empty()) infra = r.result.signature;
  }
  // A job that ended early hands what it did not get to to a new job; its records of those
  // runs ("not run", or synthesized) give way to the new job's.
  absl::StatusOr<Continuation> next = PlanContinuation(cell.pending, end);
  if (!next.ok()) return next.status();
  if (lost) *next = Continuation{};  // its placement has a dead node: nothing runs there again
  for (Record& r : *records) {
    if (next->keys.count(RunKey{r.point, r.trial}) == 0) {
      if (options_.processes > 1) r.process = cell.process;
      cell.records.push_back(std::move(r));
    }
  }
  const ProcessExit& exit = end.exit;
  bool abnormal = end.timed_out || exit.signaled || (exit.code != 0 && exit.code != 1) || !infra.empty();
  cell.abnormal = cell.abnormal || abnormal;
  std::string how = end.timed_out ? absl::StrCat("timeout after ", FormatDurationText(c.timeout))
                    : infra.empty() ? exit.ToString()
                                    : infra;
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
  if (cell.previous) cell.records = MergeRerunRecords(*cell.previous, std::move(cell.records));
  CellSummary summary;  // of this process
  summary.id = ProgressId(cell.index, cell.process);
  summary.runs = static_cast<int>(CellRuns(pc));
  summary.records = static_cast<int>(cell.records.size());
  for (const Record& r : cell.records) {
    if (r.result.outcome == Outcome::kPass) ++summary.passed;
    if (!r.matched) ++summary.unmet;
  }
  summary.failed = summary.unmet > 0 || cell.abnormal;
  summary.how = cell.how;
  summary.wall_s = wall;
  // The cell's records so far: the earlier processes' and this one's.
  std::vector<Record> all = std::move(cell.earlier);
  for (Record& r : cell.records) all.push_back(std::move(r));
  cell.earlier.clear();
  int unmet = 0;
  for (const Record& r : all) unmet += r.matched ? 0 : 1;
  wall += cell.earlier_wall_s;
  absl::Status st = WriteRecordsFile(cell.dir + "/records.jsonl", all);
  if (!st.ok()) return st;
  nlohmann::json done = {{"id", pc.plan.id}, {"hash", pc.hash}, {"status", "done"},
                         {"end", cell.how}, {"wall_s", wall}, {"records", all.size()},
                         {"unmet", unmet}, {"jobs", cell.jobs}};
  // Processes 0..process ran: a resumed sweep runs the rest, a cell is done at N.
  if (options_.processes > 1) done["processes"] = cell.process + 1;
  if (cell.attempt > 1) {
    done["attempt"] = cell.attempt;
    done["retry_of"] = cell.retry_of;
  }
  // Written last: its presence means the cell's records are complete.
  st = WriteFileAtomically(cell.dir + "/done.json", done.dump(2) + "\n");
  if (!st.ok()) return st;
  next_process_[cell.index] = cell.process + 1;
  pool_.Release(cell.allocation);
  progress_->CellFinished(summary, now);
  if (next_process_[cell.index] < options_.processes) return absl::OkStatus();  // more to come
  status_[cell.index].status = "done";
  status_[cell.index].wall_s = wall;
  status_[cell.index].detail = cell.abnormal     ? cell.how
                                : cell.attempt > 1 ? absl::StrCat("attempt ", cell.attempt, " after ",
                                                                  cell.retry_of["end"].get<std::string>())
                                                   : "";
  ++result_.cells_run;
  if (cell.previous) ++result_.cells_rerun;
  return WriteSweepJson();
}

bool Sweep::RetryOnLiveNodes(ActiveCell& cell, const SlurmNodeFailure& lost, const JobEnd& end) {
  const CellPlan& c = plan_.cells[cell.index].plan;
  const absl::Time now = env_.clock->Now();
  for (const std::string& node : lost.nodes) pool_.ExcludeNode(node);
  if (cell.attempt >= kMaxJobAttempts || !pool_.FitsLiveNodes(c.ranks, c.share_gpu)) return false;
  const std::string ended = ClassifyJobFailure(end, 0).signature;
  cell.jobs.back()["end"] = ended;
  cell.jobs.back()["wall_s"] = absl::ToDoubleSeconds(now - cell.running->started());
  std::vector<std::string> hosts;
  for (const StepNode& n : cell.allocation.nodes) hosts.push_back(n.name);
  // What the retry's done.json says of the attempt before it.
  cell.retry_of = {{"attempt", cell.attempt}, {"died_on", lost.nodes}, {"end", ended},
                   {"job", cell.jobs.back()["log"]}, {"hosts", hosts}};
  pool_.Release(cell.allocation);
  progress_->Note(absl::StrCat(c.id, ": ", lost.line, ": retrying on the live nodes (",
                               absl::StrJoin(pool_.DeadNodes(), ","), " left out)"),
                  now);
  ++cell.attempt;
  cell.running.reset();
  cell.records.clear();
  cell.continuation = 0;
  cell.abnormal = false;
  cell.how.clear();
  retries_[cell.index] = std::move(cell);
  return true;
}

absl::StatusOr<bool> Sweep::EndIfNoLiveNode(size_t i) {
  const CellPlan& c = plan_.cells[i].plan;
  if (pool_.FitsLiveNodes(c.ranks, c.share_gpu)) return false;
  std::string why = absl::StrCat("no node of the ", env_.resources.slurm->ToString(), " left alive for ",
                                 c.ranks, " ranks (dead: ", absl::StrJoin(pool_.DeadNodes(), ","), ")");
  auto retry = retries_.find(i);
  const bool retried = retry != retries_.end();
  if (retried) {
    why = absl::StrCat(retry->second.retry_of["end"].get<std::string>(), "; ", why);
    retries_.erase(retry);
  } else {
    why = absl::StrCat("infrastructure: ", why);
  }
  GH_RETURN_IF_ERROR(WriteInfraRecords(i, why, /*keep_dir=*/retried));
  status_[i].status = "done";
  status_[i].detail = why;
  EndCellEarly(i);
  progress_->Note(absl::StrCat(c.id, ": ", why), env_.clock->Now());
  GH_RETURN_IF_ERROR(WriteSweepJson());
  return true;
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

// Starts `pending` (in order, each when it fits) and services the running cells until all have
// finished, or until `stop` (then result_.interrupted).
absl::Status Sweep::RunCells(std::deque<size_t> pending) {
  absl::Status st;
  std::deque<ActiveCell> running;
  while (!pending.empty() || !running.empty()) {
    if (env_.stop != nullptr && env_.stop->load()) {
      KillAll(running);
      result_.interrupted = true;
      break;
    }
    // Start every pending cell that fits now, in matrix order (smaller ones may pass a larger
    // one that waits for devices).
    setups_->Poll();
    for (auto it = pending.begin(); it != pending.end();) {
      const CellPlan& c = plan_.cells[*it].plan;
      bool setup_failed = false;
      absl::StatusOr<bool> ready = SetupReady(*it, &setup_failed);
      if (!ready.ok()) {
        KillAll(running);
        return ready.status();
      }
      if (!*ready) {
        it = setup_failed ? pending.erase(it) : std::next(it);
        continue;
      }
      std::optional<Allocation> a = pool_.TryAcquireCell(c.ranks, c.share_gpu);
      if (!a) {
        absl::StatusOr<bool> dropped = EndIfNoLiveNode(*it);  // nodes died: it never will start
        if (!dropped.ok()) {
          KillAll(running);
          return dropped.status();
        }
        it = *dropped ? pending.erase(it) : std::next(it);
        continue;
      }
      running.push_back(TakeRetry(*it));
      running.back().index = *it;
      running.back().allocation = *a;
      st = StartCell(running.back());
      if (!st.ok()) {
        KillAll(running);
        return st;
      }
      progress_->CellStarted(ProgressId(running.back().index, running.back().process), env_.clock->Now());
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
        if (retries_.count(it->index) != 0) pending.push_front(it->index);  // a node died under it
        it = running.erase(it);
        finished_any = true;
      } else {
        ++it;
      }
    }
    progress_->Tick(env_.clock->Now());
    if (!finished_any) env_.clock->SleepFor(options_.poll_interval);
  }
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
    // --filter narrows the comparison too: the baseline's other points are not "vanished".
    if (!options_.filter.empty()) {
      std::erase_if(baseline->records, [&](const Record& r) { return !PointNameMatches(options_.filter, r.point); });
    }
  }
  const BaselineMatch match{options_.baseline_ignore_axes, options_.perf};
  if (absl::Status checked = CheckIgnoredAxes(match, baseline ? &baseline->records : nullptr);
      !checked.ok()) {
    return checked;
  }
  out_dir_ = Absolute(options_.out_dir);
  if (options_.rerun_failed && !Exists(out_dir_ + "/cells")) {
    return absl::InvalidArgumentError(
        absl::StrCat("--rerun-failed: ", options_.out_dir, " holds no sweep results to rerun from"));
  }
  // An unwritable DIR is said plainly (exit 3), never mistaken for another sweep's lock.
  absl::Status st = EnsureWritableDir(out_dir_);
  if (st.ok()) st = MakeDirectories(out_dir_ + "/cells");
  if (!st.ok()) return st;
  if (absl::Status claimed = ClaimOutDir(); !claimed.ok()) return claimed;

  if (options_.fresh) {
    st = RemoveEarlierResults();
    if (!st.ok()) return st;
  }

  absl::StatusOr<std::deque<size_t>> to_start = PrepareCells(baseline ? &baseline->records : nullptr, match);
  if (!to_start.ok()) return to_start.status();
  const std::deque<size_t> todo = *std::move(to_start);
  setups_.emplace(options_.setup_jobs, *runner_, *env_.clock, env_.progress);
  absl::Time start = env_.clock->Now();
  progress_.emplace(env_.progress, env_.style, totals_, start, options_.heartbeat);

  // Round k runs process k of every cell that needs it; the next round starts when it is over,
  // so process k of every cell runs before process k + 1 of any.
  for (int round = 0; round < options_.processes && !result_.interrupted; ++round) {
    std::deque<size_t> pending;
    for (size_t i : todo) {
      if (next_process_[i] == round) pending.push_back(i);
    }
    if (env_.resources.slurm) pending = LargestCellsFirst(plan_, std::move(pending));
    if (absl::Status ran = RunCells(std::move(pending)); !ran.ok()) return ran;
  }
  progress_->Finish(env_.clock->Now());

  absl::StatusOr<SweepOutputsResult> outputs =
      WriteSweepOutputs(plan_, status_, out_dir_,
                        {baseline ? &baseline->records : nullptr, options_.baseline_dir, match, options_.filter});
  if (!outputs.ok()) return outputs.status();
  result_.records = outputs->records;
  result_.unmet = outputs->unmet;
  result_.regressions = outputs->regressions;
  result_.exit_status = outputs->exit_status;
  result_.headline = outputs->headline;
  result_.cells_failed = outputs->cells_failed;
  result_.comparison = std::move(outputs->comparison);
  result_.sweep = std::move(outputs->sweep);
  return result_;
}

absl::Status Sweep::RemoveEarlierResults() {
  std::error_code ec;
  for (const char* name : {"cells", "versions", "records.jsonl", "junit.xml", "sweep.json", "summary.md",
                           "report.html"}) {
    fs::remove_all(absl::StrCat(out_dir_, "/", name), ec);
    if (ec) return absl::InternalError(absl::StrCat("--fresh: cannot remove ", out_dir_, "/", name, ": ", ec.message()));
  }
  return MakeDirectories(out_dir_ + "/cells");
}

absl::StatusOr<std::map<size_t, std::set<std::string>>> Sweep::FailedPoints(
    const std::vector<Record>* baseline, const BaselineMatch& match) const {
  std::vector<Record> records;
  std::map<std::string, size_t> cell_of;  // CellKey -> plan index
  for (size_t i = 0; i < plan_.cells.size(); ++i) {
    GH_ASSIGN_OR_RETURN(std::optional<Resumed> done, ResumedCell(i));
    if (!done) continue;
    cell_of[CellKey(plan_.cells[i].plan.LabelMap())] = i;
    absl::StatusOr<RecordsFileContents> contents = ReadRecordsFile(CellDir(i) + "/records.jsonl");
    if (!contents.ok()) return contents.status();
    for (Record& r : contents->records) records.push_back(std::move(r));
  }
  std::map<size_t, std::set<std::string>> failed;
  for (const PointComparison& entry : CompareResults(records, baseline, match).points) {
    if (!entry.now || (entry.expectation_met() && entry.change != BaselineChange::kRegression)) continue;
    auto it = cell_of.find(entry.key.cell);
    if (it != cell_of.end()) failed[it->second].insert(entry.key.point);
  }
  return failed;
}

absl::StatusOr<std::deque<size_t>> Sweep::PrepareCells(const std::vector<Record>* baseline,
                                                       const BaselineMatch& match) {
  result_.cells = static_cast<int>(plan_.cells.size());
  status_.assign(plan_.cells.size(), CellStatus{});
  absl::StatusOr<std::vector<size_t>> chosen = ChooseCells(baseline, match);
  if (!chosen.ok()) return chosen.status();
  const std::vector<size_t>& todo = *chosen;
  if (absl::Status st = WriteSweepJson(); !st.ok()) return st;
  std::fprintf(env_.progress, "sweep %s: %zu cells (%d already done), %s\n",
               plan_.matrix.name.c_str(), plan_.cells.size(), result_.cells_resumed,
               env_.resources.ToString().c_str());
  if (options_.rerun_failed) {
    size_t runs = 0;
    for (size_t i : todo) runs += CellRuns(plan_.cells[i]);
    std::fprintf(env_.progress, "--rerun-failed: %zu point runs in %zu cells to rerun%s\n", runs, todo.size(),
                 todo.empty() ? ": every recorded point met its expectation" : "");
  }
  // Set-ups run lazily, just before their version's first cell (SetupReady).
  return std::deque<size_t>(todo.begin(), todo.end());
}

absl::StatusOr<std::vector<size_t>> Sweep::ChooseCells(const std::vector<Record>* baseline,
                                                       const BaselineMatch& match) {
  std::map<size_t, std::set<std::string>> failed;
  if (options_.rerun_failed) {
    absl::StatusOr<std::map<size_t, std::set<std::string>>> points = FailedPoints(baseline, match);
    if (!points.ok()) return points.status();
    failed = *std::move(points);
  }
  std::vector<size_t> todo;
  // Progress counts each process of a cell as a cell.
  const int n = options_.processes;
  totals_.cells = static_cast<int>(plan_.cells.size()) * n;
  next_process_.assign(plan_.cells.size(), 0);
  for (size_t i = 0; i < plan_.cells.size(); ++i) {
    PlannedCell& cell = plan_.cells[i];
    GH_ASSIGN_OR_RETURN(std::optional<Resumed> resumed, ResumedCell(i));
    // Some of its processes ran: the next ones run, in their rounds.
    if (resumed.has_value() && resumed->processes < n) {
      next_process_[i] = resumed->processes;
      totals_.cells_done += resumed->processes;
      totals_.runs_done += static_cast<int>(CellRuns(cell)) * resumed->processes;
      totals_.runs += static_cast<int>(CellRuns(cell)) * n;
      todo.push_back(i);
      continue;
    }
    const bool done = resumed.has_value();
    auto rerun = failed.find(i);
    if (done && rerun != failed.end() &&
        NarrowCell(cell, [&](const std::string& point) { return rerun->second.count(point) != 0; }) > 0) {
      rerun_.insert(i);
      todo.push_back(i);
    } else if (done) {
      status_[i].status = "done";
      status_[i].wall_s = resumed->wall_s;
      next_process_[i] = n;
      ++result_.cells_resumed;
      totals_.cells_done += n;
      if (resumed->unmet > 0) ++totals_.cells_failed;
      totals_.runs_done += static_cast<int>(CellRuns(cell)) * n;
    } else if (!options_.rerun_failed) {
      todo.push_back(i);
    }  // --rerun-failed leaves a cell without a result as it is (pending)
    totals_.runs += static_cast<int>(CellRuns(cell)) * n;
  }
  return todo;
}

// What Sweep::StartJob would start for each cell's first job(s), from the same spec.
absl::Status PrintDryRun(const SweepPlan& plan, const SweepOptions& options,
                         const std::vector<std::string>& base_env, std::FILE* out) {
  std::fprintf(out, "sweep %s: %zu cells, %zu job(s) per cell%s\n", plan.matrix.name.c_str(),
               plan.cells.size(), plan.jobs.size(),
               options.processes > 1
                   ? absl::StrCat(", run ", options.processes, " times (--processes; process k >= 1 in "
                                  "<cell>/process<k>/)").c_str()
                   : "");
  const std::string out_dir = options.out_dir.empty() ? "DIR" : Absolute(options.out_dir);
  if (plan.matrix.has_version_axis()) {  // each version's set-up, as it would run
    for (const AxisValue& v : plan.matrix.axes.back().values) {
      if (v.settings.setup.empty()) continue;
      std::fprintf(out, "version %s: set-up in %s/versions/%s:\n    $ %s\n", v.label.c_str(), out_dir.c_str(),
                   SafeDirName(v.label).c_str(), v.settings.setup.c_str());
    }
  }
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
        // Quoted as a shell reads them: a person pastes these lines.
        for (const auto& [name, value] : spec->cell_env) {
          std::fprintf(out, "    %s=%s\n", name.c_str(), ShellQuote(value).c_str());
        }
      }
      std::fprintf(out, "    $ %s\n", ShellQuoteJoin(spec->process.argv).c_str());
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
  if (options.fresh && options.rerun_failed) {
    return absl::InvalidArgumentError("--fresh and --rerun-failed: --fresh keeps nothing to rerun from; give one");
  }
  if (options.processes < 1) {
    return absl::InvalidArgumentError(absl::StrCat("--processes: expected 1 or more, got ", options.processes));
  }
  if (options.processes > 1 && options.rerun_failed) {
    return absl::InvalidArgumentError("--rerun-failed reruns a cell's points once: leave out --processes");
  }
  if (!options.filter.empty()) {
    if (absl::Status st = FilterPlan(*plan, options.filter); !st.ok()) return st;
  }
  if (options.dry_run) {
    if (absl::Status st = PrintDryRun(*plan, options, env.base_env, env.progress); !st.ok()) {
      return st;
    }
    SweepResult result;
    result.cells = static_cast<int>(plan->cells.size());
    return result;
  }
  // Inside a Slurm allocation: cells across its nodes, each one that fits (exit 2 otherwise).
  if (absl::Status st = UseSlurmAllocation(*plan, env.resources, env.progress); !st.ok()) return st;
  Sweep sweep(options, env, *std::move(plan));
  return sweep.Run();
}

}  // namespace gh::driver
