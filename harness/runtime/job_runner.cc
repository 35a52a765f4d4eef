#include "harness/runtime/job_runner.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/core/comparison.h"
#include "harness/core/exit_codes.h"
#include "harness/core/file_util.h"
#include "harness/core/fingerprint.h"
#include "harness/core/records_file.h"
#include "harness/core/run_list.h"
#include "harness/core/validity_range.h"
#include "harness/runtime/cpu_model.h"
#include "harness/runtime/crash_guard.h"
#include "harness/runtime/crash_record.h"
#include "harness/runtime/gpu_binding.h"
#include "harness/runtime/mpi_world.h"
#include "harness/runtime/nccl_inspector.h"
#include "harness/runtime/nccl_ras.h"
#include "harness/runtime/outcome_gather.h"
#include "harness/runtime/point_context.h"
#include "harness/runtime/timeout_outcome.h"
#include "harness/runtime/trial_isolation.h"
#include "harness/runtime/watchdog.h"
#if defined(GH_HAVE_CUDA)
#include "harness/runtime/cuda_resources.h"
#endif

extern char** environ;

namespace gh {
#if !defined(GH_HAVE_CUDA)
class CudaResources {};  // never instantiated: the host-only build has no cuda backend
#endif

namespace {

// Stands in for a point's outcome when the job could not carry on after it.
constexpr char kAbortedAfterTimeout[] = "not run: job aborted after a timeout in ";
// An isolated trial's child is killed at the point's timeout; the watchdog fires only if the
// parent itself is stuck past that.
constexpr absl::Duration kIsolationWatchdogMargin = absl::Seconds(10);
constexpr char kStepIsolatedTrial[] = "isolated trial";
// NCCL's RAS report at a timeout: the job waits at most this long for it (docs/explanation/hangs.md).
constexpr absl::Duration kNcclRasBound = absl::Seconds(3);

int VisibleGpus() {
#if defined(GH_HAVE_CUDA)
  return VisibleGpuCount();
#else
  return 0;
#endif
}

constexpr bool kBuiltWithCuda =
#if defined(GH_HAVE_CUDA)
    true;
#else
    false;
#endif

// The backend the job runs on, the same on every rank (every input is gathered).
absl::StatusOr<Backend> ChooseBackend(BackendChoice choice, const std::vector<int>& gpus,
                                      const std::vector<std::string>& hosts) {
  const auto first_without = std::find(gpus.begin(), gpus.end(), 0);
  const bool every_rank_has_gpu = !gpus.empty() && first_without == gpus.end();
  switch (choice) {
    case BackendChoice::kHost:
      return Backend::kHost;
    case BackendChoice::kAuto:
      return kBuiltWithCuda && every_rank_has_gpu ? Backend::kCuda : Backend::kHost;
    case BackendChoice::kCuda:
      if (!kBuiltWithCuda) {
        return absl::InvalidArgumentError(
            "--backend cuda: this gpuharness was built without the cuda backend (CUDA and NCCL "
            "were not found at build time, or GH_ENABLE_CUDA=OFF)");
      }
      if (!every_rank_has_gpu) {
        const int rank = static_cast<int>(first_without - gpus.begin());
        return absl::InvalidArgumentError(
            absl::StrCat("--backend cuda: no GPU is visible to rank ", rank, " on host ",
                         hosts[rank], " (check the driver and CUDA_VISIBLE_DEVICES)"));
      }
      return Backend::kCuda;
  }
  return Backend::kHost;
}

void RemoveStaleCrashFiles(const std::string& ranks_dir) {
  DIR* dir = opendir(ranks_dir.c_str());
  if (dir == nullptr) return;
  while (dirent* entry = readdir(dir)) {
    if (absl::EndsWith(entry->d_name, ".crash")) {
      unlink(absl::StrCat(ranks_dir, "/", entry->d_name).c_str());
    }
  }
  closedir(dir);
}

std::string HeadlineMetric(const PointOutcome& result) {
  for (const Metric& m : result.metrics) {
    if (m.name == "bandwidth_GBps") return absl::StrFormat("%.3g GB/s", m.value);
  }
  for (const Metric& m : result.metrics) {
    if (m.name == "time_median_us") return absl::StrFormat("%.3g us", m.value);
  }
  return "";
}

class JobRunner {
 public:
  JobRunner(const RunOptions& options, const std::vector<LoadedScenario>& scenarios,
            JobReporter& reporter, MpiWorld& world)
      : options_(options), scenarios_(scenarios), reporter_(reporter), world_(world) {}

  int Run();

 private:
  bool is_root() const { return world_.rank() == 0; }
  // Prints on rank 0 only; every rank returns `status` so that all exit alike.
  int FailOnRoot(int status, const std::string& message) const;
  absl::Status BindDevices();
  EnvironmentFingerprint Fingerprint() const;
  absl::Status PrepareOutDir(const EnvironmentFingerprint& fingerprint);
  void RunPlanned(size_t index);
  // True when the run was recorded as a skip outside its scenario's range of validity.
  bool SkippedOutsideValidity(size_t index);
  // Rank 0: the crash record the crash guard writes should the job die in this run.
  void PrepareCrashRecord(const PlannedRun& run);
  // `not_run`: the job ends before this run can start (Record::not_run).
  void RecordSkip(size_t index, const std::string& reason, bool not_run = false);
  void AppendRecord(Record record, size_t index);
  void OnTimeout(absl::Duration timeout, const std::vector<WatchdogReport>& reports);
  // Rank 1, from the watchdog thread, when rank 0 stayed silent past the last resort (frozen,
  // gone): marks DIR/.ranks/deputy (rank 0 then writes nothing more), takes over the records
  // and records the timeout in rank 0's place.
  void OnRootSilent(absl::Duration timeout, const std::vector<WatchdogReport>& reports);
  // Rank 0 writes the records; rank 1 once it stood in for a silent rank 0.
  bool writes_records() const { return is_root() || deputy_; }
  std::string DeputyFile() const { return options_.out_dir + "/.ranks/deputy"; }
  void AbortAfter(size_t index, const std::string& reason, int exit_status);
  int Finish();
  int ExitStatus() const;

  const RunOptions& options_;
  const std::vector<LoadedScenario>& scenarios_;
  JobReporter& reporter_;
  MpiWorld& world_;
  Backend backend_ = Backend::kHost;
  std::vector<PlannedRun> plan_;
  std::vector<int> gpus_;     // per rank
  std::vector<int> devices_;  // per rank, -1 on host
  bool gpu_shared_ = false;       // some host of the job shares GPUs (records say so)
  bool shares_its_gpu_ = false;   // this rank's host does
  EnvironmentFacts facts_;
  std::unique_ptr<CudaResources> cuda_;
  NcclInspector inspector_;
  std::unique_ptr<Watchdog> watchdog_;
  // Rank 0's results. Touched by the main thread between points and by the watchdog thread
  // only after it fired (the main thread then never touches them again).
  std::unique_ptr<RecordsWriter> writer_;
  std::vector<Record> records_;
  bool deputy_ = false;  // rank 1 stood in for a silent rank 0
  size_t current_ = 0;
  absl::Time current_started_;
};

int JobRunner::FailOnRoot(int status, const std::string& message) const {
  if (is_root()) {
    std::fprintf(stderr, "gpuharness run: %s\n", message.c_str());
    std::fflush(stderr);
  }
  return status;
}

absl::Status JobRunner::BindDevices() {
  devices_.assign(world_.size(), -1);
  if (backend_ != Backend::kCuda) return absl::OkStatus();
  for (int r = 0; r < world_.size(); ++r) {
    const LocalRankInfo local = ComputeLocalRank(world_.host_hashes(), r);
    absl::StatusOr<GpuBinding> binding = BindGpu(world_.hosts()[r], local.ranks_on_host,
                                                 local.local_rank, gpus_[r], options_.share_gpu);
    if (!binding.ok()) return binding.status();
    devices_[r] = binding->device;
    gpu_shared_ = gpu_shared_ || binding->shared;
    if (r == world_.rank()) shares_its_gpu_ = binding->shared;
  }
  return absl::OkStatus();
}

EnvironmentFingerprint JobRunner::Fingerprint() const {
  EnvironmentFingerprint fp;
  fp.build = ThisBuild();
  fp.harness_version = fp.build.version;
  fp.backend = std::string(BackendName(backend_));
  fp.nranks = world_.size();
  fp.hosts = world_.hosts();
  for (int r = 0; r < world_.size(); ++r) {
    fp.local_ranks.push_back(ComputeLocalRank(world_.host_hashes(), r).local_rank);
  }
  fp.devices = devices_;
  fp.gpu_shared = gpu_shared_;
  fp.mpi_library = world_.library_version();
  fp.cpu_model = HostCpuModel();
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const size_t eq = text.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view name = text.substr(0, eq);
    if (IsFingerprintedEnvVar(name)) fp.env[std::string(name)] = std::string(text.substr(eq + 1));
  }
  fp.started_at = Rfc3339Utc(absl::Now());
#if defined(GH_HAVE_CUDA)
  if (cuda_ != nullptr) cuda_->FillFingerprint(fp);
#endif
  return fp;
}

absl::Status JobRunner::PrepareOutDir(const EnvironmentFingerprint& fingerprint) {
  const std::string& dir = options_.out_dir;
  absl::Status status = MakeDirectories(dir + "/.ranks");
  if (!status.ok()) return status;
  RemoveStaleCrashFiles(dir + "/.ranks");
  unlink(DeputyFile().c_str());  // an earlier job's in this DIR
  status = WriteFileAtomically(dir + "/environment.json", fingerprint.ToJson().dump(2) + "\n");
  if (!status.ok()) return status;
  // The plan, so that a job cut short still says what it never got to (`gpuharness report`).
  std::vector<RunKey> planned;
  for (const PlannedRun& run : plan_) planned.push_back(RunKey{run.point.name, run.trial});
  status = WriteFileAtomically(dir + "/" + std::string(kPlannedRunsFile), FormatRunList(planned));
  if (!status.ok()) return status;
  const std::string records_path = dir + "/records.jsonl";
  const int fd = open(records_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::PermissionDeniedError(
        absl::StrCat(records_path, ": cannot create: ", std::strerror(errno)));
  }
  close(fd);
  absl::StatusOr<RecordsWriter> writer = RecordsWriter::Open(records_path);
  if (!writer.ok()) return writer.status();
  writer_ = std::make_unique<RecordsWriter>(*std::move(writer));
  return absl::OkStatus();
}

int JobRunner::Run() {
  gpus_ = world_.AllGather(VisibleGpus());
  absl::StatusOr<Backend> backend = ChooseBackend(options_.backend, gpus_, world_.hosts());
  if (!backend.ok()) return FailOnRoot(kExitBadInput, std::string(backend.status().message()));
  backend_ = *backend;

  absl::StatusOr<std::vector<PlannedRun>> plan =
      PlanRuns(scenarios_, ScenarioRegistry::Global(), world_.size(), backend_, options_.filter);
  if (!plan.ok()) return FailOnRoot(kExitBadInput, std::string(plan.status().message()));
  plan_ = *std::move(plan);
  if (!options_.runs_file.empty()) {
    absl::StatusOr<std::vector<PlannedRun>> listed = KeepListedRuns(std::move(plan_), options_.runs_file);
    if (!listed.ok()) return FailOnRoot(kExitBadInput, std::string(listed.status().message()));
    plan_ = *std::move(listed);
  }
  if (plan_.empty()) {
    return FailOnRoot(kExitBadInput,
                      options_.filter.empty()
                          ? std::string("the scenarios have no points")
                          : absl::StrCat("--filter '", options_.filter, "' matches no point"));
  }

  if (absl::Status bound = BindDevices(); !bound.ok()) {
    return FailOnRoot(kExitBadInput, std::string(bound.message()));
  }
  // Before the communicator exists: NCCL loads its profiler plugin when it is created.
  bool inspector_asked = false;
  for (const LoadedScenario& s : scenarios_) inspector_asked = inspector_asked || s.spec.nccl_inspector;
  inspector_ = NcclInspector::Start(NcclInspectorRequest{
      inspector_asked, backend_ == Backend::kCuda, options_.nccl_inspector_plugin, options_.out_dir});
#if defined(GH_HAVE_CUDA)
  if (backend_ == Backend::kCuda) {
    // Only ranks on a host that shares GPUs need distinct NCCL host ids; the others keep
    // NCCL's fast paths among themselves.
    if (shares_its_gpu_) ConfigureNcclForSharedGpu(world_.host(), world_.rank());
    absl::StatusOr<std::unique_ptr<CudaResources>> cuda =
        CudaResources::Create(devices_[world_.rank()], world_.scenario_comm());
    if (!cuda.ok()) {
      std::fprintf(stderr, "gpuharness run: rank %d: cuda backend start-up failed: %s\n",
                   world_.rank(), std::string(cuda.status().message()).c_str());
    } else {
      cuda_ = *std::move(cuda);
    }
    if (!world_.AllTrue(cuda_ != nullptr)) {
      return FailOnRoot(kExitInfrastructure, "the cuda backend could not start on every rank");
    }
  }
#endif

  const EnvironmentFingerprint fingerprint = Fingerprint();
  facts_ = fingerprint.Facts();
  absl::Status prepared = is_root() ? PrepareOutDir(fingerprint) : absl::OkStatus();
  if (!world_.Broadcast(prepared.ok() ? 1 : 0)) {
    return FailOnRoot(kExitInfrastructure,
                      absl::StrCat("cannot write results to ", options_.out_dir, ": ",
                                   prepared.message()));
  }

  watchdog_ = std::make_unique<Watchdog>(
      world_.watchdog_comm(),
      [this](absl::Duration timeout, const std::vector<WatchdogReport>& reports) {
        OnTimeout(timeout, reports);
      });
  watchdog_->SetRanksDir(options_.out_dir + "/.ranks");
  watchdog_->SetDeputy([this](absl::Duration timeout, const std::vector<WatchdogReport>& reports) {
    OnRootSilent(timeout, reports);
  });
  absl::Status guarded = InstallCrashGuard(CrashGuardConfig{
      options_.out_dir + "/.ranks", world_.rank(), world_.size(), watchdog_->step_slot(),
      writer_.get(), DeputyFile()});
  if (!world_.AllTrue(guarded.ok())) {
    return FailOnRoot(kExitInfrastructure,
                      absl::StrCat("cannot install the crash guard: ", guarded.message()));
  }
  if (is_root()) {
    std::printf("gpuharness: %zu point runs on %d rank%s, %s backend%s -> %s\n", plan_.size(),
                world_.size(), world_.size() == 1 ? "" : "s",
                std::string(BackendName(backend_)).c_str(),
                gpu_shared_ ? " (GPU shared by ranks)" : "", options_.out_dir.c_str());
    std::fflush(stdout);
  }

  for (size_t i = 0; i < plan_.size(); ++i) RunPlanned(i);
  return Finish();
}

bool JobRunner::SkippedOutsideValidity(size_t index) {
  const PlannedRun& run = plan_[index];
  if (!run.scenario->spec.valid_for.has_value()) return false;
  // Rank 0's facts decide; every rank follows, so no rank runs a point the others skip.
  const std::string outside = OutsideValidity(run.scenario->spec.valid_for, run.point, facts_);
  if (!world_.Broadcast(outside.empty() ? 0 : 1)) return false;
  if (is_root()) RecordSkip(index, outside);
  return true;
}

void JobRunner::PrepareCrashRecord(const PlannedRun& run) {
  Record crash = RecordFor(run, facts_);
  crash.started_at = Rfc3339Utc(current_started_);
  for (int r = 0; r < world_.size(); ++r) {
    RankOutcome details;
    details.rank = r;
    details.host = world_.hosts()[r];
    details.device = devices_[r];
    crash.result.ranks.push_back(std::move(details));
  }
  SetPendingCrashRecord(RenderCrashRecordTemplate(std::move(crash)));
}

void JobRunner::RunPlanned(size_t index) {
  const PlannedRun& run = plan_[index];
  if (!run.skip_reason.empty()) {
    if (is_root()) RecordSkip(index, run.skip_reason);
    return;
  }
  if (SkippedOutsideValidity(index)) return;
  const int rank = world_.rank();
  current_ = index;
  current_started_ = absl::Now();
  if (is_root()) PrepareCrashRecord(run);

  RankOutcome mine;
  if (run.kind->isolate_trials) {
    // A fresh child per trial (trial_isolation.h): it enforces the timeout itself, so the
    // watchdog only stands behind it with a margin.
    watchdog_->Arm(run.scenario->spec.timeout + kIsolationWatchdogMargin);
    watchdog_->SetStep(kStepIsolatedTrial);
    IsolatedTrial trial;
    trial.scenario_file = run.scenario->file;
    trial.scenario = run.scenario->spec.name;
    trial.point = run.point.name;
    trial.nranks = world_.size();
    trial.rank = rank;
    trial.trial = run.trial;
    trial.backend = backend_;
    trial.device = devices_[rank];
    trial.timeout = run.scenario->spec.timeout;
    mine = RunTrialIsolated(trial);
  } else {
    watchdog_->Arm(run.scenario->spec.timeout);
    PointContext ctx(run.point, run.trial, backend_, rank, world_.size(),
                     world_.local().local_rank, world_.scenario_comm(), cuda_.get(),
                     watchdog_.get());
    ctx.set_out_dir(options_.out_dir);
    std::unique_ptr<Scenario> scenario = run.kind->make();
    mine = scenario->Run(ctx);
  }
  mine.rank = rank;
  mine.host = world_.host();
  mine.device = devices_[rank];
  watchdog_->SetStep(kStepCollect);
  absl::StatusOr<std::vector<RankOutcome>> gathered =
      GatherRankOutcomes(world_.gather_comm(), mine);
  if (!watchdog_->Disarm()) {
    // The watchdog fired as this point finished: it writes the records and ends the job.
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  }
  if (!gathered.ok()) {
    AbortAfter(index, absl::StrCat("not run: results of ", run.point.name,
                                   " could not be gathered: ", gathered.status().message()),
               kExitInfrastructure);
  }

  bool recreate = false;
  if (is_root()) {
    ClearPendingCrashRecord();
    Record record = RecordFor(run, facts_);
    record.started_at = Rfc3339Utc(current_started_);
    SetResult(record, ReduceRankOutcomes(*std::move(gathered)));
    // Every point while the plugin runs, so that the next one reads only its own lines.
    if (inspector_.running() || run.scenario->spec.nccl_inspector) {
      NcclInspectorView inspected = inspector_.TakePoint(world_.size());
      if (run.scenario->spec.nccl_inspector) record.nccl_inspector = std::move(inspected);
    }
    recreate = record.result.outcome == Outcome::kError;
    record.duration_s = absl::ToDoubleSeconds(absl::Now() - current_started_);
    AppendRecord(std::move(record), index);
  }
#if defined(GH_HAVE_CUDA)
  // An NCCL error can leave the communicator unusable: every rank builds a fresh one.
  if (cuda_ != nullptr && world_.Broadcast(recreate ? 1 : 0)) {
    absl::Status recreated = cuda_->Recreate(world_.scenario_comm());
    if (!world_.AllTrue(recreated.ok())) {
      AbortAfter(index, absl::StrCat("not run: the NCCL communicator could not be re-created ",
                                     "after an error in ", run.point.name,
                                     recreated.ok() ? "" : ": ", recreated.message()),
                 kExitInfrastructure);
    }
  }
#else
  (void)recreate;
#endif
}

void JobRunner::RecordSkip(size_t index, const std::string& reason, bool not_run) {
  Record record = RecordFor(plan_[index], facts_);
  record.not_run = not_run;
  record.started_at = Rfc3339Utc(absl::Now());
  SetResult(record, SkipOutcome(reason));
  AppendRecord(std::move(record), index);
}

void JobRunner::AppendRecord(Record record, size_t index) {
  if (absl::Status appended = writer_->Append(record); !appended.ok()) {
    std::fprintf(stderr, "gpuharness run: %s\n", std::string(appended.message()).c_str());
  }
  const std::string trial =
      record.trials > 1 ? absl::StrCat(" #", record.trial) : std::string();
  const std::string outcome(OutcomeName(record.result.outcome));
  std::string line = absl::StrFormat("[%zu/%zu] %s%s %s", index + 1, plan_.size(), record.point,
                                     trial, outcome);
  if (!record.matched) absl::StrAppend(&line, " (expected ", record.expected.ToString(), ")");
  if (!record.result.signature.empty()) absl::StrAppend(&line, ": ", record.result.signature);
  if (std::string metric = HeadlineMetric(record.result); !metric.empty()) {
    absl::StrAppend(&line, "  ", metric);
  }
  absl::StrAppend(&line, absl::StrFormat("  %.1f ms", record.duration_s * 1e3));
  std::printf("%s\n", line.c_str());
  const bool last_trial = record.trials > 1 && record.trial + 1 == record.trials;
  records_.push_back(std::move(record));
  if (last_trial) {
    // The point as a whole, judged on every trial: "10 trials, 10 failed (9 swallowed, 1 crash)".
    std::vector<Record> trials;
    for (const Record& r : records_) {
      if (r.point == records_.back().point && r.file == records_.back().file) trials.push_back(r);
    }
    for (const PointTrials& point : AggregateTrials(trials)) {
      std::printf("  => %s: %s; expected %s by %s%s\n", point.key.point.c_str(),
                  RenderTrialSummary(point.trial_summary).c_str(),
                  point.expected.ToString().c_str(), point.verdict.ToString().c_str(),
                  point.unmet == 0 ? "" : " (unmet)");
    }
  }
  std::fflush(stdout);
}

// Points run several times are judged on all their trials by the scenario's verdict rule.
int JobRunner::ExitStatus() const {
  return ComparisonExitStatus(CompareResults(records_, nullptr));
}

// Rank 0, from the watchdog thread: the main thread is stuck in the point. (Or rank 1 standing
// in for a silent rank 0: OnRootSilent.)
void JobRunner::OnTimeout(absl::Duration timeout, const std::vector<WatchdogReport>& reports) {
  // A rank 0 that was frozen past the last resort and resumes: rank 1 recorded it already.
  if (is_root() && access(DeputyFile().c_str(), F_OK) == 0) return;
  ClearPendingCrashRecord();
  const size_t index = current_;
  const PlannedRun& run = plan_[index];
  Record record = RecordFor(run, facts_);
  record.started_at = Rfc3339Utc(current_started_);
  PointOutcome outcome = TimeoutOutcome(timeout, reports, world_.hosts(), devices_);
  const auto nccl_version = facts_.values.find("nccl_version");
  outcome.hang.nccl_ras = NcclRasView(
      backend_ == Backend::kCuda,
      nccl_version == facts_.values.end() ? std::string() : nccl_version->second, kNcclRasBound);
  if (run.scenario->spec.nccl_inspector && is_root()) {
    record.nccl_inspector = inspector_.TakePoint(world_.size(), /*settle=*/false);
    outcome.hang.nccl_inspector = inspector_.LastCompletedLine(world_.size());
  }
  SetResult(record, std::move(outcome));
  record.duration_s = absl::ToDoubleSeconds(absl::Now() - current_started_);
  AppendRecord(std::move(record), index);
  AbortAfter(index, absl::StrCat(kAbortedAfterTimeout, run.point.name), -1);
}

// Rank 0 (or rank 1 standing in) records every later point as not run (planned skips keep
// their reason), writes the reports and ends the whole job. Other ranks just end it.
void JobRunner::AbortAfter(size_t index, const std::string& reason, int exit_status) {
  if (writes_records()) {
    ClearPendingCrashRecord();
    for (size_t i = index + 1; i < plan_.size(); ++i) {
      if (plan_[i].skip_reason.empty()) {
        RecordSkip(i, reason, /*not_run=*/true);
      } else {
        RecordSkip(i, plan_[i].skip_reason);
      }
    }
    const int status = Finish();
    if (exit_status < 0) exit_status = status;
  }
#if defined(GH_HAVE_CUDA)
  if (cuda_ != nullptr) cuda_->AbortFromWatchdog();
#endif
  std::fflush(stdout);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, exit_status < 0 ? kExitInfrastructure : exit_status);
  std::_Exit(exit_status < 0 ? kExitInfrastructure : exit_status);
}

void JobRunner::OnRootSilent(absl::Duration timeout, const std::vector<WatchdogReport>& reports) {
  // First the mark: from now on rank 0 (should it wake) writes no record of its own.
  if (absl::Status marked = WriteFileAtomically(DeputyFile(), "rank 1 recorded the timeout\n"); !marked.ok()) {
    std::fprintf(stderr, "gpuharness run: %s\n", std::string(marked.message()).c_str());
    return;  // the watchdog ends the job without a record
  }
  const std::string path = options_.out_dir + "/records.jsonl";
  absl::StatusOr<RecordsWriter> writer = RecordsWriter::Open(path);
  if (!writer.ok()) {
    std::fprintf(stderr, "gpuharness run: %s\n", std::string(writer.status().message()).c_str());
    return;
  }
  writer_ = std::make_unique<RecordsWriter>(*std::move(writer));
  if (absl::StatusOr<RecordsFileContents> earlier = ReadRecordsFile(path); earlier.ok()) {
    records_ = std::move(earlier->records);  // rank 0's, for the reports
  }
  // The job stopped where rank 0's records stop. This rank may be points further on: the other
  // ranks' halves of a gather complete without rank 0, so a rank 0 frozen in a point leaves them
  // free to start the next. The first point rank 0 never recorded is the one that timed out.
  for (size_t i = 0; i < current_; ++i) {
    const PlannedRun& run = plan_[i];
    const bool recorded = std::any_of(records_.begin(), records_.end(), [&](const Record& r) {
      return r.scenario == run.scenario->spec.name && r.point == run.point.name && r.trial == run.trial;
    });
    if (!recorded) {
      current_ = i;
      break;
    }
  }
  deputy_ = true;
  OnTimeout(timeout, reports);
}

int JobRunner::Finish() {
  int status = kExitOk;
  if (writes_records()) {
    status = ExitStatus();
    if (absl::Status written = reporter_.WriteReports(options_.out_dir, records_); !written.ok()) {
      std::fprintf(stderr, "gpuharness run: %s\n", std::string(written.message()).c_str());
      status = kExitInfrastructure;
    }
    std::fflush(stdout);
  }
  return status;
}

}  // namespace

int RunJob(const RunOptions& options, const std::vector<LoadedScenario>& scenarios,
           JobReporter& reporter, int* argc, char*** argv) {
  absl::StatusOr<std::unique_ptr<MpiWorld>> world = MpiWorld::Init(argc, argv);
  if (!world.ok()) {
    std::fprintf(stderr, "gpuharness run: MPI start-up failed: %s\n",
                 std::string(world.status().message()).c_str());
    return kExitInfrastructure;
  }
  int status;
  {
    JobRunner runner(options, scenarios, reporter, **world);
    status = runner.Run();
  }
  // Every rank leaves with rank 0's verdict (mpirun reports the first non-zero status).
  status = (*world)->Broadcast(status);
  return status;
}

}  // namespace gh
