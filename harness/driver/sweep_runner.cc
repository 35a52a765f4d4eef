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
#include "harness/core/comparison.h"
#include "harness/core/duration_text.h"
#include "harness/core/file_util.h"
#include "harness/core/path_under.h"
#include "harness/core/point.h"
#include "harness/core/records_file.h"
#include "harness/core/run_list.h"
#include "harness/core/status_macros.h"
#include "harness/core/writable_dir.h"
#include "harness/driver/cell_job.h"
#include "harness/driver/cell_records.h"
#include "harness/driver/job_pool.h"
#include "harness/driver/slurm_sweep.h"
#include "harness/driver/sweep_dry_run.h"
#include "harness/driver/sweep_narrowing.h"
#include "harness/driver/sweep_outputs.h"
#include "harness/driver/sweep_plan.h"
#include "harness/driver/sweep_progress.h"
#include "harness/driver/sweep_resume.h"
#include "harness/driver/version_setup_queue.h"
#include "harness/report/results_dir.h"
#include "nlohmann/json.hpp"

namespace gh::driver {
namespace {

namespace fs = std::filesystem;

bool Exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

// A started cell: its jobs run one after the other in its allocation; an attempt that ended
// infra starts again beside the one before (a fresh attempt, retry_of saying where it ended).
struct ActiveCell {
  std::string dir;
  std::string version_dir;
  std::string job_dir;            // the cell's, or process<k>/ beside it for --processes
  int attempt = 0;                // the attempt whose jobs run now (0: none started yet)
  size_t job = 0;                 // index into the planned cell's jobs
  absl::Time cell_started;
  absl::Time job_started, job_deadline;
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
  // How the attempt before ended (its job's log, the nodes that died), for the retry.
  std::string attempt_end;
  std::vector<std::string> died_on;
  std::vector<std::string> hosts;  // node mode: the nodes of the attempt's step
  nlohmann::json retry_of;
  // --processes N: which process of the cell this is (0..N-1), and the earlier processes'
  // records and wall time, which its records.jsonl and done.json add to.
  int process = 0;
  std::vector<Record> earlier;
  double earlier_wall_s = 0;
};

class Sweep : public PoolClient {
 public:
  Sweep(const SweepOptions& options, DriverEnv& env, SweepPlan plan)
      : options_(options), env_(env), plan_(std::move(plan)) {}

  absl::StatusOr<SweepResult> Run();

  // The job pool's client: a unit is a cell (its index in the plan).
  absl::StatusOr<Readiness> Ready(size_t i) override;
  absl::StatusOr<RunningJob> StartJob(size_t i, const Allocation& where, int attempt) override;
  absl::StatusOr<After> JobEnded(size_t i, const PooledJobEnd& ended) override;
  void Retry(size_t i, int attempt, const std::string& line) override;
  absl::Status EndInfra(size_t i) override;
  absl::Status Strand(size_t i, const std::string& why) override;
  void Tick(absl::Time now) override {
    setups_->Poll();
    progress_->Tick(now);
  }
  void StillRunning(size_t i) override { ReadJobProgress(i, active_.at(i)); }
  std::string Label(size_t i) const override { return ProgressId(i, active_.count(i) ? active_.at(i).process : 0); }

 private:
  std::string CellDir(size_t i) const { return absl::StrCat(out_dir_, "/cells/", plan_.cells[i].plan.dir_name); }
  std::string VersionDir(const CellPlan& c) const {
    return c.version.empty() ? "" : absl::StrCat(out_dir_, "/versions/", SafeDirName(c.version));
  }
  // The cell in the progress lines: its id, with --processes N its process too.
  std::string ProgressId(size_t index, int process) const {
    const std::string& id = plan_.cells[index].plan.id;
    return options_.processes > 1 ? absl::StrCat(id, " [process ", process + 1, "/", options_.processes, "]") : id;
  }
  std::string JobName(size_t i, const ActiveCell& cell) const {
    std::string name = plan_.cells[i].jobs[cell.job].name;
    if (cell.attempt > 1) absl::StrAppend(&name, ".retry", cell.attempt - 1);
    if (cell.continuation > 0) absl::StrAppend(&name, ".cont", cell.continuation);
    return name;
  }
  JobRecordsInfo RecordsInfo(size_t i) const {
    const CellPlan& c = plan_.cells[i].plan;
    return {c.backend, c.ranks, c.share_gpu, c.LabelMap(), ApplyEnvPlan(env_.base_env, c.env, {}, VersionDir(c))};
  }
  // A new cell (or a new process of it): its directory made fresh, what it adds to read.
  absl::Status StartCell(size_t i, ActiveCell& cell);
  absl::StatusOr<RunningJob> StartNextJob(size_t i, ActiveCell& cell, const Allocation& where);
  absl::Status FinishCell(size_t i, ActiveCell& cell);
  void ReadJobProgress(size_t i, ActiveCell& cell);
  absl::Status WriteSweepJson() {
    return WriteFileAtomically(out_dir_ + "/sweep.json", MakeSweepInfo(plan_, status_).ToJson().dump(2) + "\n");
  }
  // Every run of cell i infra with `signature`, in a fresh cell directory (or, `keep_dir`, beside
  // what earlier attempts left there).
  absl::Status WriteInfraRecords(size_t i, const std::string& signature, bool keep_dir = false);
  // A cell ended without (all of) its processes running (set-up failed, no live node): each
  // process left counts as done and the cell as failed; no later round runs it.
  void EndCellEarly(size_t i) {
    const int left = std::max(1, options_.processes - next_process_[i]);
    totals_.cells_done += left;
    ++totals_.cells_failed;
    totals_.runs_done += static_cast<int>(CellRuns(plan_.cells[i])) * left;
    next_process_[i] = options_.processes;
  }
  absl::StatusOr<std::deque<size_t>> PrepareCells(const std::vector<Record>* baseline, const BaselineMatch& match);
  // Which cells this invocation runs, with progress totals for the rest.
  absl::StatusOr<std::vector<size_t>> ChooseCells(const std::vector<Record>* baseline, const BaselineMatch& match);

  const SweepOptions& options_;
  DriverEnv& env_;
  SweepPlan plan_;
  std::unique_ptr<ResultsDirClaim> claim_;  // DIR's lock, its job ledger, env_.runner behind it
  std::string out_dir_;
  std::vector<CellStatus> status_;
  std::optional<SweepProgress> progress_;
  std::optional<VersionSetupQueue> setups_;  // after claim_: ends its set-ups first
  std::optional<JobPool> pool_;
  ProgressTotals totals_;
  std::set<size_t> rerun_;  // --rerun-failed: cells narrowed to their failed points
  std::map<size_t, ActiveCell> active_;  // cells started and not yet finished
  // --processes: per cell, the process it runs next (how many ran; N or more: done).
  std::vector<int> next_process_;
  bool MaxFailReached() const { return options_.max_fail > 0 && unmet_seen_ >= options_.max_fail; }

  SweepResult result_;
  int unmet_seen_ = 0;  // points unmet in the cells this invocation finished (--maxfail)
};

absl::Status Sweep::WriteInfraRecords(size_t i, const std::string& signature, bool keep_dir) {
  const PlannedCell& cell = plan_.cells[i];
  const std::string dir = CellDir(i);
  std::error_code ec;
  if (!keep_dir) fs::remove_all(dir, ec);
  GH_RETURN_IF_ERROR(MakeDirectories(dir));
  const JobRecordsInfo info = RecordsInfo(i);
  std::vector<Record> records;
  for (const CellJob& job : cell.jobs) {
    for (Record& r : SynthesizedRecords(job.points, DriverKnownFacts(info), info.cell, Outcome::kInfra, signature)) {
      records.push_back(std::move(r));
    }
  }
  return WriteRecordsFile(dir + "/records.jsonl", records);
}

// Whether cell `i` may start: its version has no set-up or one that succeeded. A set-up still
// running (or queued behind --setup-jobs others) keeps the cell waiting; a failed one records
// the cell as set-up failed.
absl::StatusOr<PoolClient::Readiness> Sweep::Ready(size_t i) {
  const CellPlan& c = plan_.cells[i].plan;
  if (c.version.empty()) return Readiness::kReady;
  // The setup command is the version value's (the same for every cell of the version).
  std::string command;
  for (const AxisValue& v : plan_.matrix.axes.back().values) {
    if (v.label == c.version) command = v.settings.setup;
  }
  if (command.empty()) return Readiness::kReady;
  std::optional<VersionSetupResult> r =
      setups_->Need({c.version, command, VersionDir(c), env_.base_env, options_.setup_timeout});
  if (!r) return Readiness::kWait;
  if (r->ok) return Readiness::kReady;
  status_[i].status = "setup_failed";
  status_[i].detail = r->detail;
  GH_RETURN_IF_ERROR(WriteInfraRecords(i, absl::StrCat("version setup failed: ", r->detail)));
  ++result_.cells_setup_failed;
  EndCellEarly(i);
  return Readiness::kEnded;
}

absl::Status Sweep::StartCell(size_t i, ActiveCell& cell) {
  cell.dir = CellDir(i);
  cell.version_dir = VersionDir(plan_.cells[i].plan);
  cell.process = next_process_[i];
  cell.job_dir = cell.dir;
  std::error_code ec;
  if (cell.process > 0) {  // beside the earlier processes' records, which it adds to
    GH_ASSIGN_OR_RETURN(RecordsFileContents earlier, ReadRecordsFile(cell.dir + "/records.jsonl"));
    for (Record& r : earlier.records) {
      if (r.process.value_or(0) < cell.process) cell.earlier.push_back(std::move(r));
    }
    GH_ASSIGN_OR_RETURN(std::optional<DoneCell> done, ReadDoneCell(cell.dir, plan_.cells[i]));
    cell.earlier_wall_s = done ? done->wall_s : 0;
    cell.job_dir = absl::StrCat(cell.dir, "/process", cell.process);
  } else if (rerun_.count(i) != 0) {
    GH_ASSIGN_OR_RETURN(RecordsFileContents previous, ReadRecordsFile(cell.dir + "/records.jsonl"));
    cell.previous = std::move(previous.records);
  }
  fs::remove_all(cell.job_dir, ec);  // an interrupted earlier attempt: start clean
  GH_RETURN_IF_ERROR(MakeDirectories(cell.job_dir));
  cell.cell_started = env_.clock->Now();
  return absl::OkStatus();
}

absl::StatusOr<RunningJob> Sweep::StartJob(size_t i, const Allocation& where, int attempt) {
  auto [it, fresh] = active_.try_emplace(i);
  ActiveCell& cell = it->second;
  if (fresh) GH_RETURN_IF_ERROR(StartCell(i, cell));
  if (cell.attempt != attempt) {  // a new attempt: its first job (beside a dead attempt's)
    cell.attempt = attempt;
    cell.job = 0;
    cell.continuation = 0;
    progress_->CellStarted(ProgressId(i, cell.process), env_.clock->Now());
  }
  return StartNextJob(i, cell, where);
}

absl::StatusOr<RunningJob> Sweep::StartNextJob(size_t i, ActiveCell& cell, const Allocation& where) {
  const PlannedCell& pc = plan_.cells[i];
  const CellJob& cell_job = pc.jobs[cell.job];
  CellJobInputs inputs;
  inputs.cell = &pc;
  inputs.job = &plan_.jobs[cell_job.job];
  inputs.cell_job = &cell_job;
  // A continuation runs only the runs the previous attempt did not get to.
  if (cell.continuation > 0) inputs.runs = &cell.pending;
  inputs.program = options_.program;
  inputs.dir = cell.job_dir;
  inputs.name = JobName(i, cell);
  inputs.version_dir = cell.version_dir;
  inputs.base_env = env_.base_env;
  if (env_.resources.gpu_mode && !env_.resources.slurm) inputs.devices = where.devices;
  if (!where.nodes.empty()) {
    inputs.step_args = SrunStepArgs(where.nodes, env_.resources.SlurmGpuMode(), pc.plan.share_gpu);
  }
  GH_ASSIGN_OR_RETURN(CellJobSpec spec, MakeCellJobSpec(inputs));
  cell.jobs.push_back(nlohmann::json{{"argv", spec.process.argv}, {"log", spec.process.log_path},
                                     {"out", spec.out_dir}, {"env", spec.cell_env}});
  const CellPlan& c = pc.plan;
  cell.hosts.clear();  // where this attempt runs, should it need another
  for (const StepNode& n : where.nodes) cell.hosts.push_back(n.name);
  GH_RETURN_IF_ERROR(WriteFileAtomically(
      cell.dir + "/cell.json",
      nlohmann::json({{"id", c.id}, {"hash", pc.hash}, {"labels", c.LabelMap()}, {"ranks", c.ranks},
                      {"timeout", FormatDurationText(c.timeout)}, {"devices", where.devices}, {"jobs", cell.jobs}})
              .dump(2) + "\n"));
  // A continuation finishes the job's work within the job's timeout, not a new one.
  std::optional<absl::Time> deadline;
  if (cell.continuation > 0) deadline = cell.job_deadline;
  GH_ASSIGN_OR_RETURN(RunningJob running, RunningJob::Start(spec, claim_->runner(), *env_.clock, deadline));
  cell.job_started = running.started();
  cell.job_deadline = running.deadline();
  if (cell.continuation == 0) cell.pending = cell_job.points;
  cell.job_records = spec.out_dir + "/records.jsonl";
  cell.job_read = 0;
  cell.job_runs = 0;
  return running;
}

void Sweep::ReadJobProgress(size_t i, ActiveCell& cell) {
  const absl::Time now = env_.clock->Now();
  if (now - cell.last_read < absl::Seconds(1)) return;
  cell.last_read = now;
  cell.job_runs += CountNewLines(cell.job_records, cell.job_read);  // a line per finished run
  const std::vector<RunKey> runs = RunsOf(cell.pending);
  const std::string point = cell.job_runs < runs.size() ? runs[cell.job_runs].point : "";
  progress_->CellAt(ProgressId(i, cell.process),
                    static_cast<int>(cell.records.size() + std::min(cell.job_runs, runs.size())), point, now);
}

absl::StatusOr<PoolClient::After> Sweep::JobEnded(size_t i, const PooledJobEnd& ended) {
  ActiveCell& cell = active_.at(i);
  const CellPlan& c = plan_.cells[i].plan;
  const JobEnd& end = ended.end;
  const absl::Time now = env_.clock->Now();
  // The job was given exactly `pending` (its filter, or --runs): nothing else counts.
  GH_ASSIGN_OR_RETURN(std::vector<Record> records, CollectJobRecords(cell.pending, end, RecordsInfo(i), true));
  // A job that ended early hands what it did not get to to a new job; its records of those
  // runs ("not run", or synthesized) give way to the new job's.
  GH_ASSIGN_OR_RETURN(Continuation next, PlanContinuation(cell.pending, end));
  if (ended.lost) next = Continuation{};  // its placement has a dead node: nothing runs there again
  // A job the launcher or MPI start-up failed ends the attempt with the launcher's own words; a
  // retry that could not run either still names how the attempt before it ended.
  std::string infra;
  for (Record& r : records) {
    if (next.keys.count(RunKey{r.point, r.trial}) != 0) continue;
    if (r.result.outcome == Outcome::kInfra) {
      if (infra.empty()) infra = r.result.signature;
      if (const std::string before = cell.attempt > 1 ? cell.retry_of["end"].get<std::string>() : "";
          !before.empty()) {
        r.result.signature = r.result.signature == before
                                 ? absl::StrCat(before, " (on all ", cell.attempt, " attempts)")
                                 : absl::StrCat(before, "; attempt ", cell.attempt, ": ", r.result.signature);
      }
    }
    if (options_.processes > 1) r.process = cell.process;
    cell.records.push_back(std::move(r));
  }
  const ProcessExit& exit = end.exit;
  const bool abnormal = end.timed_out || exit.signaled || (exit.code != 0 && exit.code != 1) || !infra.empty();
  cell.abnormal = cell.abnormal || abnormal;
  const std::string how = end.timed_out ? absl::StrCat("timeout after ", FormatDurationText(c.timeout))
                          : infra.empty() ? exit.ToString()
                                          : infra;
  if (cell.how.empty() || abnormal) cell.how = how;
  cell.jobs.back()["end"] = how;
  cell.jobs.back()["wall_s"] = absl::ToDoubleSeconds(now - cell.job_started);
  if (!next.empty()) cell.jobs.back()["continued_runs"] = next.keys.size();
  // The reports look for each cell's environment at cells/<cell>/environment.json.
  const std::string env_src = end.run_dir + "/environment.json";
  if (!Exists(cell.dir + "/environment.json") && Exists(env_src)) {
    std::error_code ec;
    fs::copy_file(env_src, cell.dir + "/environment.json", ec);
  }
  if (!next.empty()) {
    cell.pending = std::move(next.points);
    ++cell.continuation;
    return After{After::kNextJob};
  }
  cell.continuation = 0;
  if (ended.lost || !infra.empty()) {
    cell.attempt_end = ended.lost ? ClassifyJobFailure(end, 0).signature : infra;
    cell.died_on = ended.lost ? ended.lost->nodes : std::vector<std::string>{};
    cell.jobs.back()["end"] = cell.attempt_end;
    return After{After::kInfra, ended.lost ? ended.lost->line : infra};
  }
  if (++cell.job < plan_.cells[i].jobs.size()) return After{After::kNextJob};
  GH_RETURN_IF_ERROR(FinishCell(i, cell));
  return After{After::kDone};
}

void Sweep::Retry(size_t i, int attempt, const std::string& line) {
  ActiveCell& cell = active_.at(i);
  // What the retry's done.json says of the attempt before it.
  cell.retry_of = {{"attempt", attempt - 1}, {"died_on", cell.died_on}, {"end", cell.attempt_end},
                   {"job", cell.jobs.back()["log"]}, {"hosts", cell.hosts}};
  progress_->Note(line, env_.clock->Now());
  cell.records.clear();
  cell.abnormal = false;
  cell.how.clear();
}

absl::Status Sweep::EndInfra(size_t i) {
  ActiveCell& cell = active_.at(i);
  // The cell's later jobs never ran: their runs end as the attempt did.
  const JobRecordsInfo info = RecordsInfo(i);
  for (size_t j = cell.job + 1; j < plan_.cells[i].jobs.size(); ++j) {
    for (Record& r : SynthesizedRecords(plan_.cells[i].jobs[j].points, DriverKnownFacts(info), info.cell,
                                        Outcome::kInfra, cell.attempt_end)) {
      cell.records.push_back(std::move(r));
    }
  }
  return FinishCell(i, cell);
}

absl::Status Sweep::Strand(size_t i, const std::string& why) {
  auto it = active_.find(i);
  const bool retried = it != active_.end();
  const std::string signature =
      retried ? absl::StrCat(it->second.attempt_end, "; ", why) : absl::StrCat("infrastructure: ", why);
  if (retried) active_.erase(it);
  GH_RETURN_IF_ERROR(WriteInfraRecords(i, signature, /*keep_dir=*/retried));
  status_[i].status = "done";
  status_[i].detail = signature;
  EndCellEarly(i);
  progress_->Note(absl::StrCat(plan_.cells[i].plan.id, ": ", signature), env_.clock->Now());
  return WriteSweepJson();
}

absl::Status Sweep::FinishCell(size_t i, ActiveCell& cell) {
  const PlannedCell& pc = plan_.cells[i];
  const absl::Time now = env_.clock->Now();
  double wall = absl::ToDoubleSeconds(now - cell.cell_started);
  if (cell.previous) cell.records = MergeRerunRecords(*cell.previous, std::move(cell.records));
  CellSummary summary;  // of this process
  summary.id = ProgressId(i, cell.process);
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
  int unmet = 0, infra = 0;
  for (const Record& r : all) {
    unmet += r.matched ? 0 : 1;
    infra += r.result.outcome == Outcome::kInfra;
  }
  wall += cell.earlier_wall_s;
  GH_RETURN_IF_ERROR(WriteRecordsFile(cell.dir + "/records.jsonl", all));
  nlohmann::json done = {{"id", pc.plan.id}, {"hash", pc.hash},     {"status", "done"}, {"end", cell.how},
                         {"wall_s", wall},   {"records", all.size()}, {"unmet", unmet}, {"infra", infra},
                         {"jobs", cell.jobs}};
  // Processes 0..process ran: a resumed sweep runs the rest, a cell is done at N.
  if (options_.processes > 1) done["processes"] = cell.process + 1;
  if (cell.attempt > 1) {
    done["attempt"] = cell.attempt;
    done["retry_of"] = cell.retry_of;
  }
  // Written last: its presence means the cell's records are complete.
  GH_RETURN_IF_ERROR(WriteFileAtomically(cell.dir + "/done.json", done.dump(2) + "\n"));
  next_process_[i] = cell.process + 1;
  progress_->CellFinished(summary, now);
  unmet_seen_ += summary.unmet;
  const ActiveCell finished = std::move(cell);
  active_.erase(i);
  if (next_process_[i] < options_.processes) return absl::OkStatus();  // more to come
  status_[i].status = "done";
  status_[i].wall_s = wall;
  status_[i].detail = finished.abnormal      ? finished.how
                      : finished.attempt > 1 ? absl::StrCat("attempt ", finished.attempt, " after ",
                                                            finished.retry_of["end"].get<std::string>())
                                             : "";
  ++result_.cells_run;
  if (finished.previous) ++result_.cells_rerun;
  return WriteSweepJson();
}

absl::StatusOr<SweepResult> Sweep::Run() {
  // The baseline is input too: a bad one is reported before anything is written.
  GH_ASSIGN_OR_RETURN(const std::optional<ResultsDir> baseline,
                      LoadSweepBaseline(options_.baseline_dir, options_.filter));
  const std::vector<Record>* baseline_records = baseline ? &baseline->records : nullptr;
  const BaselineMatch match{options_.baseline_ignore_axes, options_.perf};
  GH_RETURN_IF_ERROR(CheckBaselineIgnore(plan_, match, baseline_records, options_.baseline_dir));
  out_dir_ = AbsolutePath(options_.out_dir);
  if (options_.rerun_failed && !Exists(out_dir_ + "/cells")) {
    return absl::InvalidArgumentError(
        absl::StrCat("--rerun-failed: ", options_.out_dir, " holds no sweep results to rerun from"));
  }
  // An unwritable DIR is said plainly (exit 3), never mistaken for another sweep's lock.
  GH_RETURN_IF_ERROR(EnsureWritableDir(out_dir_));
  GH_RETURN_IF_ERROR(MakeDirectories(out_dir_ + "/cells"));
  GH_ASSIGN_OR_RETURN(claim_, ResultsDirClaim::Claim(out_dir_, options_.kill_grace, env_));
  if (options_.fresh) GH_RETURN_IF_ERROR(RemoveSweepResults(out_dir_));

  GH_ASSIGN_OR_RETURN(const std::deque<size_t> todo, PrepareCells(baseline_records, match));
  setups_.emplace(options_.setup_jobs, claim_->runner(), *env_.clock, env_.progress);
  progress_.emplace(env_.progress, env_.style, totals_, env_.clock->Now(), options_.heartbeat);
  pool_.emplace(env_.resources, JobPoolOptions{options_.kill_grace, options_.poll_interval, env_.stop},
                *env_.clock, *this);
  // Round k runs process k of every cell that needs it; the next round starts when it is over,
  // so process k of every cell runs before process k + 1 of any.
  for (int round = 0; round < options_.processes && !result_.interrupted; ++round) {
    std::deque<size_t> cells;
    for (size_t i : todo) {
      if (next_process_[i] == round) cells.push_back(i);
    }
    if (env_.resources.slurm) cells = LargestCellsFirst(plan_, std::move(cells));
    for (size_t i : cells) pool_->Add(i, plan_.cells[i].plan.ranks, plan_.cells[i].plan.share_gpu);
    absl::Status ran = pool_->Run([this] { return MaxFailReached(); });
    if (absl::IsCancelled(ran)) {
      result_.interrupted = true;
    } else if (!ran.ok()) {
      return ran;
    } else if (MaxFailReached()) {
      pool_->Stop();  // as pytest -x: what runs is ended, nothing new starts
      result_.stopped_at_max_fail = true;
      result_.unmet_at_stop = unmet_seen_;
      break;
    }
  }
  for (size_t i : todo) result_.cells_not_run += next_process_[i] < options_.processes ? 1 : 0;
  progress_->Finish(env_.clock->Now());

  GH_ASSIGN_OR_RETURN(static_cast<SweepOutputsResult&>(result_),
                      WriteSweepOutputs(plan_, status_, out_dir_,
                                        {baseline_records, options_.baseline_dir, match, options_.filter}));
  return result_;
}

absl::StatusOr<std::deque<size_t>> Sweep::PrepareCells(const std::vector<Record>* baseline,
                                                       const BaselineMatch& match) {
  result_.cells = static_cast<int>(plan_.cells.size());
  status_.assign(plan_.cells.size(), CellStatus{});
  GH_ASSIGN_OR_RETURN(const std::vector<size_t> todo, ChooseCells(baseline, match));
  GH_RETURN_IF_ERROR(WriteSweepJson());
  std::fprintf(env_.progress, "sweep %s: %zu cells (%d already done), %s\n", plan_.matrix.name.c_str(),
               plan_.cells.size(), result_.cells_resumed, env_.resources.ToString().c_str());
  if (result_.cells_infra_rerun > 0) {
    std::fprintf(env_.progress, "%d cell(s) ended infra last time (no verdict): running them again\n",
                 result_.cells_infra_rerun);
  }
  if (options_.rerun_failed) {
    size_t runs = 0;
    for (size_t i : todo) runs += CellRuns(plan_.cells[i]);
    std::fprintf(env_.progress, "--rerun-failed: %zu point runs in %zu cells to rerun%s\n", runs, todo.size(),
                 todo.empty() ? ": every recorded point met its expectation" : "");
  }
  // Set-ups run lazily, just before their version's first cell (Ready).
  return std::deque<size_t>(todo.begin(), todo.end());
}

absl::StatusOr<std::vector<size_t>> Sweep::ChooseCells(const std::vector<Record>* baseline,
                                                       const BaselineMatch& match) {
  std::map<size_t, std::set<std::string>> failed;
  if (options_.rerun_failed) {
    GH_ASSIGN_OR_RETURN(failed, FailedPoints(plan_, out_dir_ + "/cells", baseline, match));
  }
  std::vector<size_t> todo;
  // Progress counts each process of a cell as a cell.
  const int n = options_.processes;
  totals_.cells = static_cast<int>(plan_.cells.size()) * n;
  next_process_.assign(plan_.cells.size(), 0);
  for (size_t i = 0; i < plan_.cells.size(); ++i) {
    PlannedCell& cell = plan_.cells[i];
    const int runs = static_cast<int>(CellRuns(cell));
    totals_.runs += runs * n;
    GH_ASSIGN_OR_RETURN(std::optional<DoneCell> done, ReadDoneCell(CellDir(i), cell));
    // Some of its processes ran: the next ones run, in their rounds.
    if (done.has_value() && done->processes < n) {
      next_process_[i] = done->processes;
      totals_.cells_done += done->processes;
      totals_.runs_done += runs * done->processes;
      todo.push_back(i);
      continue;
    }
    auto rerun = failed.find(i);
    if (done && rerun != failed.end() &&
        NarrowCell(cell, [&](const std::string& point) { return rerun->second.count(point) != 0; }) > 0) {
      rerun_.insert(i);
      todo.push_back(i);
      totals_.runs += static_cast<int>(CellRuns(cell)) * n - runs * n;
    } else if (done && done->infra > 0 && !options_.rerun_failed) {
      ++result_.cells_infra_rerun;  // infrastructure is no verdict: the cell runs again
      todo.push_back(i);
    } else if (done) {
      status_[i].status = "done";
      status_[i].wall_s = done->wall_s;
      next_process_[i] = n;
      ++result_.cells_resumed;
      totals_.cells_done += n;
      if (done->unmet > 0) ++totals_.cells_failed;
      totals_.runs_done += runs * n;
    } else if (!options_.rerun_failed) {
      todo.push_back(i);
    }  // --rerun-failed leaves a cell without a result as it is (pending)
  }
  return todo;
}

}  // namespace

absl::StatusOr<SweepResult> RunSweep(const SweepOptions& options, DriverEnv& env) {
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
  if (!options.filter.empty()) GH_RETURN_IF_ERROR(FilterPlan(*plan, options.filter));
  if (options.collect_only) {
    PrintCollectedPoints(*plan, env.progress);
    SweepResult result;
    result.cells = static_cast<int>(plan->cells.size());
    return result;
  }
  if (options.dry_run) {
    GH_RETURN_IF_ERROR(
        PrintDryRun(*plan, {options.out_dir, options.program, options.processes, env.base_env}, env.progress));
    SweepResult result;
    result.cells = static_cast<int>(plan->cells.size());
    return result;
  }
  // Inside a Slurm allocation: cells across its nodes, each one that fits (exit 2 otherwise).
  GH_RETURN_IF_ERROR(UseSlurmAllocation(*plan, env.resources, env.progress));
  Sweep sweep(options, env, *std::move(plan));
  return sweep.Run();
}

}  // namespace gh::driver
