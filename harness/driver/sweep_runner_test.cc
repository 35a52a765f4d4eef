// The sweep driver against fake jobs and a fake clock: packing, timeouts, crashes, bad input,
// resume, set-up failure and caching. The fake jobs write records.jsonl the way
// `gpuharness run` does, so collection is exercised for real.
#include "harness/core/point_filter.h"
#include "harness/driver/sweep_runner.h"

#include <signal.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/driver/testdata/fake_clock.h"
#include "harness/core/file_util.h"
#include "harness/core/point.h"
#include "harness/core/records_file.h"
#include "harness/core/registry.h"
#include "harness/core/testdata/captured_file.h"
#include "harness/core/testdata/temp_dir.h"
#include "harness/report/sweep_info.h"
#include "nlohmann/json.hpp"

namespace gh::driver {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// A kind for the scenario files below: one int parameter, no body (the fake jobs never run it).
KindInfo DescribeFakeKind() {
  KindInfo k;
  k.name = "fake_sweep_kind";
  k.description = "test kind";
  // fault: for two-axis scenarios (points filtered per axis).
  k.params = ParamsBuilder().Int("size", 1, "").String("fault", "none", "").Build();
  k.backends = {Backend::kHost};
  return k;
}
GH_REGISTER_SCENARIO(fake_sweep_kind, DescribeFakeKind);

using testing::FakeClock;

// What a fake job does (tests name only the fields they set).
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
struct Behavior {
  absl::Duration duration = absl::Seconds(10);
  int points_recorded = -1;   // records written for the first N points; -1: all
  bool fail_points = false;   // recorded points are `fail` instead of `pass`
  int exit_code = 0;
  int signal = 0;             // dies by this signal at the end instead
  bool ignores_sigterm = false;
  std::string log;            // the job's stdout+stderr
  std::map<int, std::string> rank_crashes;  // .ranks/rank<r>.crash contents
  // When set, exactly these records (size, outcome, signature, not_run) instead of passes.
  struct Written {
    std::string size;
    Outcome outcome = Outcome::kPass;
    std::string signature;
    bool not_run = false;
    std::string point;  // when set: this point name (no params) instead of s/size=<size>
  };
  std::vector<Written> records;
};

struct Started {
  ProcessId id;
  ProcessSpec spec;
  absl::Duration at;
  std::string Env(const std::string& name) const {
    for (const std::string& e : *spec.env) {
      if (absl::StartsWith(e, name + "=")) return e.substr(name.size() + 1);
    }
    return "(unset)";
  }
  std::string Arg(const std::string& flag) const {
    for (size_t i = 0; i + 1 < spec.argv.size(); ++i) {
      if (spec.argv[i] == flag) return spec.argv[i + 1];
    }
    return "";
  }
};

class FakeRunner : public ProcessRunner {
 public:
  explicit FakeRunner(FakeClock& clock) : clock_(clock) {}
  std::function<Behavior(const Started&)> behave = [](const Started&) { return Behavior{}; };

  absl::StatusOr<ProcessId> Start(const ProcessSpec& spec) override {
    Started s{next_id_++, spec, clock_.Elapsed()};
    started.push_back(s);
    Job job{s, behave(s), false, 0, ProcessExit{}};
    WriteFileAtomically(spec.log_path, job.behavior.log).IgnoreError();
    jobs_.emplace(s.id, job);
    return s.id;
  }

  std::optional<ProcessExit> Poll(ProcessId id) override {
    Job& job = jobs_.at(id);
    if (job.reaped) return job.exit;
    if (job.killed_by != 0) return Reap(job, ProcessExit{true, 0, job.killed_by}, false);
    if (clock_.Elapsed() - job.started.at < job.behavior.duration) return std::nullopt;
    ProcessExit exit;
    if (job.behavior.signal != 0) {
      exit.signaled = true;
      exit.signal = job.behavior.signal;
    } else {
      exit.code = job.behavior.exit_code;
    }
    return Reap(job, exit, true);
  }

  void SignalGroup(ProcessId id, int sig) override {
    Job& job = jobs_.at(id);
    signals.push_back({id, sig, clock_.Elapsed()});
    if (job.reaped) return;
    if (sig == SIGKILL || (sig == SIGTERM && !job.behavior.ignores_sigterm)) job.killed_by = sig;
  }

  struct Signal {
    ProcessId id;
    int sig;
    absl::Duration at;
  };
  std::vector<Started> started;
  std::vector<Signal> signals;
  std::set<ProcessId> running() const {
    std::set<ProcessId> out;
    for (const auto& [id, job] : jobs_) {
      if (!job.reaped) out.insert(id);
    }
    return out;
  }

 private:
  struct Job {
    Started started;
    Behavior behavior;
    bool reaped = false;
    int killed_by = 0;
    ProcessExit exit;
  };

  // A job that ran (to its end or until killed) leaves the records of the points it got to.
  ProcessExit Reap(Job& job, ProcessExit exit, bool ran_to_end) {
    job.reaped = true;
    job.exit = exit;
    const ProcessSpec& spec = job.started.spec;
    if (spec.argv[0] == "/bin/sh") return exit;  // a version set-up
    std::string out = job.started.Arg("--out");
    MakeDirectories(out + "/.ranks").IgnoreError();
    int to_record = job.behavior.points_recorded;
    (void)ran_to_end;
    std::string lines;
    int n = 0;
    // Like `gpuharness run --runs FILE`: only the listed points (trial 0 here).
    std::vector<std::string> sizes = {"1", "2", "3"};
    if (std::string runs = job.started.Arg("--runs"); !runs.empty()) {
      sizes.clear();
      absl::StatusOr<std::string> text = ReadFileToString(runs);
      for (absl::string_view line : absl::StrSplit(text.ok() ? *text : "", '\n', absl::SkipEmpty())) {
        absl::string_view point = line.substr(0, line.find('\t'));
        point.remove_prefix(std::string("s/size=").size());
        sizes.push_back(std::string(point.substr(0, point.find('/'))));
      }
    }
    std::vector<Behavior::Written> written = job.behavior.records;
    if (written.empty()) {
      for (const std::string& size : sizes) {
        written.push_back({size, job.behavior.fail_points ? Outcome::kFail : Outcome::kPass, "", false});
      }
    }
    for (const Behavior::Written& w : written) {
      const std::string size = w.size;
      if (to_record >= 0 && n >= to_record) break;
      Record r;
      r.scenario = w.point.empty() ? "s" : w.point.substr(0, w.point.find('/'));
      r.kind = "fake_sweep_kind";
      r.file = r.scenario + ".yaml";
      r.point = absl::StrCat("s/size=", size, "/np=", job.started.Arg("-np").empty() ? "1" : job.started.Arg("-np"));
      if (!w.point.empty()) r.point = w.point;
      r.params = nlohmann::json::object();
      if (w.point.empty()) r.params = {{"size", std::stoi(size)}};
      r.backend = "host";
      r.nranks = std::stoi(job.started.Arg("-np").empty() ? "1" : job.started.Arg("-np"));
      r.result.outcome = w.outcome;
      r.result.signature = w.signature;
      r.not_run = w.not_run;
      r.matched = w.outcome == Outcome::kPass;
      absl::StrAppend(&lines, RecordToJson(r).dump(), "\n");
      ++n;
    }
    WriteFileAtomically(out + "/records.jsonl", lines).IgnoreError();
    for (const auto& [rank, text] : job.behavior.rank_crashes) {
      WriteFileAtomically(absl::StrCat(out, "/.ranks/rank", rank, ".crash"), text).IgnoreError();
    }
    return exit;
  }

  FakeClock& clock_;
  ProcessId next_id_ = 100;
  std::map<ProcessId, Job> jobs_;
};

class SweepTest : public ::gh::testing::TempDirTest {
 protected:
  void SetUp() override {
    ASSERT_TRUE(WriteFileAtomically(dir_ + "/s.yaml",
                                    "name: s\nkind: fake_sweep_kind\nparams: {size: [1, 2, 3]}\n")
                    .ok());
    env_.runner = &runner_;
    env_.clock = &clock_;
    env_.base_env = {"PATH=/usr/bin", "HOME=/root"};
    env_.progress = progress_.file();
    env_.resources.slots = 2;
    env_.resources.source = "test";
    options_.out_dir = dir_ + "/out";
    options_.program = "/bin/gpuharness";
    options_.kill_grace = absl::Seconds(5);
    options_.poll_interval = absl::Milliseconds(100);
  }
  // Every job the sweep starts behaves as `b`.
  void EveryJob(Behavior b) {
    runner_.behave = [b](const Started&) { return b; };
  }

  // Every job dies before recording a point, exiting with `exit_code` after printing `log`.
  void EveryJobRecordsNothing(int exit_code, std::string log) {
    EveryJob({.points_recorded = 0, .exit_code = exit_code, .log = std::move(log)});
  }

  // A cell's first job behaves as `first`; its continuations (started with --runs) as `rest`.
  void FirstJobThenContinuations(Behavior first, Behavior rest = {}) {
    runner_.behave = [first, rest](const Started& s) {
      return s.Arg("--runs").empty() ? first : rest;
    };
  }

  // The driver is stopped (env_.stop) once `jobs` jobs have started and more than `after` has
  // passed on the fake clock: a sweep interrupted while a job runs.
  void StopOnceStartedAfter(size_t jobs, absl::Duration after) {
    env_.stop = &stop_;
    clock_.on_sleep = [this, jobs, after] {
      if (runner_.started.size() == jobs && clock_.Elapsed() > after) stop_ = true;
    };
  }
  // Undoes StopOnceStartedAfter before the resumed run, whose jobs runner_.started then lists.
  void ResumeWithoutStopping() {
    clock_.on_sleep = nullptr;
    stop_ = false;
    runner_.started.clear();
  }

  void WriteMatrix(const std::string& body) {
    ASSERT_TRUE(WriteFileAtomically(dir_ + "/m.yaml",
                                    "name: m\nscenarios: [s.yaml]\n" + body).ok());
    options_.matrix_path = dir_ + "/m.yaml";
  }

  std::vector<Record> OutRecords() {
    absl::StatusOr<RecordsFileContents> c = ReadRecordsFile(options_.out_dir + "/records.jsonl");
    EXPECT_TRUE(c.ok()) << c.status();
    return c.ok() ? c->records : std::vector<Record>{};
  }

  SweepInfo OutSweepInfo() {
    absl::StatusOr<std::string> text = ReadFileToString(options_.out_dir + "/sweep.json");
    EXPECT_TRUE(text.ok());
    absl::StatusOr<SweepInfo> info = SweepInfo::FromJson(nlohmann::json::parse(*text));
    EXPECT_TRUE(info.ok()) << info.status();
    return *info;
  }

  // Which cell each started job belongs to: its --out dir's cell component.
  static std::string CellOf(const Started& s) {
    std::string out = s.Arg("--out");
    size_t end = out.rfind('/');
    size_t begin = out.rfind('/', end - 1);
    return out.substr(begin + 1, end - begin - 1);
  }

  const std::string dir_ = temp_dir();
  FakeClock clock_;
  FakeRunner runner_{clock_};
  DriverEnv env_;
  SweepOptions options_;
  testing::CapturedFile progress_;
  std::atomic<bool> stop_{false};
};

TEST_F(SweepTest, RecordsCarryCellLabelsAndAllPassExitsZero) {
  WriteMatrix("defaults: {ranks: 1}\naxes:\n  - name: proto\n    values: [{label: simple, env: {NCCL_PROTO: Simple}}, {label: ll, env: {NCCL_PROTO: LL}}]\n");
  absl::StatusOr<SweepResult> r = RunSweep(options_, env_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_status, 0);
  EXPECT_EQ(r->cells_run, 2);
  ASSERT_EQ(runner_.started.size(), 2u);
  EXPECT_EQ(runner_.started[0].Env("NCCL_PROTO"), "Simple");
  EXPECT_EQ(runner_.started[1].Env("NCCL_PROTO"), "LL");
  EXPECT_EQ(runner_.started[0].Env("HOME"), "/root");
  EXPECT_THAT(runner_.started[0].spec.argv,
              ElementsAre("mpirun", "--oversubscribe", "-np", "1", "-x", "NCCL_PROTO",
                          "/bin/gpuharness", "run", dir_ + "/s.yaml", "--out",
                          options_.out_dir + "/cells/proto=simple/job", "--backend", "auto"));
  EXPECT_EQ(runner_.started[0].spec.cwd, options_.out_dir + "/cells/proto=simple");
  std::vector<Record> records = OutRecords();
  ASSERT_EQ(records.size(), 6u);
  EXPECT_EQ(records[0].cell, (std::map<std::string, std::string>{{"proto", "simple"}}));
  EXPECT_EQ(records[3].cell, (std::map<std::string, std::string>{{"proto", "ll"}}));
  EXPECT_EQ(records[3].point, "s/size=1/np=1");
  SweepInfo info = OutSweepInfo();
  EXPECT_EQ(info.matrix_name, "m");
  ASSERT_EQ(info.axes.size(), 1u);
  EXPECT_THAT(info.axes[0].labels, ElementsAre("simple", "ll"));
  ASSERT_EQ(info.cells.size(), 2u);
  EXPECT_EQ(info.cells[1].id, "proto=ll");
  EXPECT_EQ(info.cells[1].status, "done");
  EXPECT_EQ(info.cells[1].wall_s, 10.0);
  for (const char* f : {"junit.xml", "summary.md", "report.html", "cells/proto=ll/done.json",
                        "cells/proto=ll/cell.json", "cells/proto=ll/job.log"}) {
    EXPECT_TRUE(ReadFileToString(options_.out_dir + "/" + f).ok()) << f;
  }
}

TEST_F(SweepTest, GpuPackingGivesDisjointDevicesAndWaitsForRoom) {
  env_.resources.gpu_mode = true;
  env_.resources.devices = {"0", "1", "2", "3"};
  WriteMatrix("axes:\n  - name: np\n    values: [{label: a, ranks: 2}, {label: b, ranks: 2}, {label: c, ranks: 2}, {label: d, ranks: 4}, {label: e, ranks: 1}]\n");
  runner_.behave = [](const Started& s) {
    Behavior b;
    b.duration = s.Arg("-np") == "1" ? absl::Seconds(3) : absl::Seconds(10);
    return b;
  };
  absl::StatusOr<SweepResult> r = RunSweep(options_, env_);
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<std::string> got;
  for (const Started& s : runner_.started) {
    got.push_back(absl::StrCat(CellOf(s), "@", absl::ToInt64Seconds(s.at), "s:",
                               s.Env("CUDA_VISIBLE_DEVICES")));
  }
  // a and b fill the 4 GPUs; c waits for a; e (1 GPU) passes d (needs all 4) and runs beside c;
  // d starts once c and e have finished.
  EXPECT_THAT(got, ElementsAre("np=a@0s:0,1", "np=b@0s:2,3", "np=c@10s:0,1", "np=e@10s:2",
                               "np=d@20s:0,1,2,3"));
  // CUDA_VISIBLE_DEVICES is exported to the ranks.
  EXPECT_THAT(runner_.started[0].spec.argv, ::testing::Contains("CUDA_VISIBLE_DEVICES"));
}

TEST_F(SweepTest, CpuSlotsPackAndAnOversizedCellRunsAlone) {
  env_.resources.slots = 2;
  WriteMatrix("axes:\n  - name: np\n    values: [{label: \"1\", ranks: 1}, {label: \"4\", ranks: 4}, {label: one, ranks: 1}, {label: \"2\", ranks: 2}]\n");
  absl::StatusOr<SweepResult> r = RunSweep(options_, env_);
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<std::string> got;
  for (const Started& s : runner_.started) {
    got.push_back(absl::StrCat(CellOf(s), "@", absl::ToInt64Seconds(s.at), "s"));
    EXPECT_EQ(s.Env("CUDA_VISIBLE_DEVICES"), "(unset)");
  }
  EXPECT_THAT(got, ElementsAre("np=1@0s", "np=one@0s", "np=4@10s", "np=2@20s"));
}

TEST_F(SweepTest, TimeoutKillsTheGroupAndRecordsMissingPointsAsTimeout) {
  WriteMatrix("defaults: {timeout: 30s}\n");
  EveryJob({.duration = absl::Hours(1), .points_recorded = 1, .ignores_sigterm = true});
  absl::StatusOr<SweepResult> r = RunSweep(options_, env_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_status, 1);
  ASSERT_GE(runner_.signals.size(), 2u);
  EXPECT_EQ(runner_.signals[0].sig, SIGTERM);
  EXPECT_EQ(runner_.signals[0].at, absl::Seconds(30));
  EXPECT_EQ(runner_.signals[1].sig, SIGKILL);
  EXPECT_EQ(runner_.signals[1].at, absl::Seconds(35));
  EXPECT_EQ(runner_.signals[1].id, runner_.started[0].id);
  EXPECT_TRUE(runner_.running().empty());
  std::vector<Record> records = OutRecords();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].result.outcome, Outcome::kPass);
  EXPECT_EQ(records[1].point, "s/size=2/np=1");
  EXPECT_EQ(records[1].result.outcome, Outcome::kTimeout);
  EXPECT_EQ(records[1].result.signature, "cell timeout after 30s");
  EXPECT_FALSE(records[1].matched);
  EXPECT_EQ(records[2].result.outcome, Outcome::kTimeout);
  EXPECT_EQ(r->unmet, 2);
  EXPECT_EQ(runner_.started.size(), 1u);  // a cell timeout is not continued
}

TEST_F(SweepTest, CrashRecordsNameTheSignalAndTheRank) {
  WriteMatrix("axes: [{name: np, values: [{label: \"2\", ranks: 2}]}]\n");
  EveryJob({.points_recorded = 1,
            .signal = SIGSEGV,
            .rank_crashes = {{1, "SIGSEGV in step exchange\nbacktrace..."}}});
  absl::StatusOr<SweepResult> r = RunSweep(options_, env_);
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<Record> records = OutRecords();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].result.outcome, Outcome::kPass);
  EXPECT_EQ(records[1].result.outcome, Outcome::kCrash);
  EXPECT_EQ(records[1].result.signature,
            "crash on rank 1: SIGSEGV in step exchange (job killed by SIGSEGV)");
  EXPECT_EQ(records[1].nranks, 2);
  EXPECT_EQ(records[1].cell, (std::map<std::string, std::string>{{"np", "2"}}));
  EXPECT_EQ(r->exit_status, 1);
}

// A job that crashed after recording some runs hands the rest to a new job (`--runs`): one
// crash costs one point, not the rest of the cell.
TEST_F(SweepTest, ACrashedJobIsContinuedWithTheRunsItDidNotGetTo) {
  WriteMatrix("defaults: {ranks: 1}\n");
  // Rank 0's crash guard recorded the point it died in.
  FirstJobThenContinuations({.signal = SIGSEGV,
                             .records = {{"1", Outcome::kPass, "", false},
                                         {"2", Outcome::kCrash,
                                          "SIGSEGV on rank 0 in step 'exchange'", false}}});
  absl::StatusOr<SweepResult> r = RunSweep(options_, env_);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(runner_.started.size(), 2u);
  const std::string cell = options_.out_dir + "/cells/all";
  EXPECT_EQ(runner_.started[1].Arg("--out"), cell + "/job.cont1");
  EXPECT_EQ(runner_.started[1].Arg("--runs"), cell + "/job.cont1.runs");
  EXPECT_EQ(*ReadFileToString(cell + "/job.cont1.runs"), "s/size=3/np=1\t0\n");
  EXPECT_EQ(runner_.started[1].spec.log_path, cell + "/job.cont1.log");
  std::vector<std::string> got;
  for (const Record& rec : OutRecords()) {
    got.push_back(absl::StrCat(rec.point, " ", std::string(OutcomeName(rec.result.outcome)), " ",
                               rec.result.signature));
  }
  EXPECT_THAT(got, ElementsAre("s/size=1/np=1 pass ",
                               "s/size=2/np=1 crash SIGSEGV on rank 0 in step 'exchange'",
                               "s/size=3/np=1 pass "));
  nlohmann::json cell_json = nlohmann::json::parse(*ReadFileToString(cell + "/cell.json"));
  ASSERT_EQ(cell_json["jobs"].size(), 2u);
  EXPECT_EQ(cell_json["jobs"][0]["out"], cell + "/job");
  nlohmann::json done = nlohmann::json::parse(*ReadFileToString(cell + "/done.json"));
  EXPECT_EQ(done["jobs"][0]["continued_runs"], 1);
  EXPECT_EQ(done["jobs"][0]["end"], "killed by SIGSEGV");
  EXPECT_EQ(done["jobs"][1]["end"], "exit 0");
  EXPECT_EQ(r->exit_status, 1);  // the crash is unmet
}

// Rank 0 died without recording the point it was in (SIGKILL): that point keeps the crash
// verdict and is not run again; the points after it are.
TEST_F(SweepTest, TheUnrecordedPointAJobDiedInKeepsItsCrashAndTheRestRunAgain) {
  WriteMatrix("defaults: {ranks: 1}\n");
  FirstJobThenContinuations({.points_recorded = 1, .signal = SIGKILL});
  absl::StatusOr<SweepResult> r = RunSweep(options_, env_);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(runner_.started.size(), 2u);
  EXPECT_EQ(*ReadFileToString(options_.out_dir + "/cells/all/job.cont1.runs"),
            "s/size=3/np=1\t0\n");
  std::vector<Record> records = OutRecords();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].point, "s/size=1/np=1");
  EXPECT_EQ(records[1].point, "s/size=2/np=1");
  EXPECT_EQ(records[1].result.outcome, Outcome::kCrash);
  EXPECT_EQ(records[1].result.signature, "crash: job killed by SIGKILL");
  EXPECT_EQ(records[2].point, "s/size=3/np=1");
  EXPECT_EQ(records[2].result.outcome, Outcome::kPass);
}

// Points a job recorded as not run (it ended after another point's timeout or lost CUDA
// context) run again in a new job; their "not run" skips are replaced, not kept.
TEST_F(SweepTest, NotRunRecordsAreRunAgainInANewJob) {
  WriteMatrix("defaults: {ranks: 2}\n");
  const std::string lost =
      "not run: the NCCL communicator could not be re-created after an error in s/size=1/np=2: "
      "the CUDA context of rank 1 is lost";
  FirstJobThenContinuations(
      {.exit_code = 3,
       .records = {{"1", Outcome::kError, "cudaErrorIllegalAddress: an illegal memory access", false},
                   {"2", Outcome::kSkip, lost, true},
                   {"3", Outcome::kSkip, lost, true}}});
  absl::StatusOr<SweepResult> r = RunSweep(options_, env_);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(runner_.started.size(), 2u);
  EXPECT_EQ(*ReadFileToString(options_.out_dir + "/cells/all/job.cont1.runs"),
            "s/size=2/np=2\t0\ns/size=3/np=2\t0\n");
  std::vector<std::string> got;
  for (const Record& rec : OutRecords()) {
    got.push_back(absl::StrCat(rec.point, " ", std::string(OutcomeName(rec.result.outcome)),
                               rec.not_run ? " not_run" : ""));
  }
  EXPECT_THAT(got, ElementsAre("s/size=1/np=2 error", "s/size=2/np=2 pass", "s/size=3/np=2 pass"));
}

// A job that records nothing (it dies at start-up) would die again: no continuation. Nor after
// the driver killed a job at the cell's timeout (TimeoutKillsTheGroup... below).
TEST_F(SweepTest, AJobThatRecordedNothingIsNotContinued) {
  WriteMatrix("defaults: {ranks: 1}\n");
  EveryJobRecordsNothing(3, "gpuharness run: the cuda backend could not start on every rank\n");
  absl::StatusOr<SweepResult> r = RunSweep(options_, env_);
  ASSERT_TRUE(r.ok()) << r.status();
  // No continuation: the cell's attempts (infra is run again), each from its first run.
  ASSERT_EQ(runner_.started.size(), 3u);
  EXPECT_EQ(runner_.started[1].Arg("--out"), options_.out_dir + "/cells/all/job.retry1");
  EXPECT_EQ(runner_.started[2].Arg("--runs"), "");
  std::vector<Record> records = OutRecords();
  ASSERT_EQ(records.size(), 3u);
  // Issue 15 item 3: the job's own infrastructure exit is no crash of the code under test.
  for (const Record& rec : records) {
    EXPECT_EQ(rec.result.outcome, Outcome::kInfra);
    EXPECT_EQ(rec.result.signature,
              "infrastructure: gpuharness run: the cuda backend could not start on every rank "
              "(job exited with status 3) (on all 3 attempts)");
  }
  EXPECT_EQ(r->exit_status, 3);
}

// An attempt that ended infra says nothing of the code: the cell runs again (up to 3 attempts,
// said on the console), and a rerun of the same command runs again the cells whose records
// ended infra, saying how many.
TEST_F(SweepTest, AnInfraAttemptRunsAgainAndARerunRetriesTheCellsThatEndedInfra) {
  WriteMatrix("axes: [{name: v, values: [a, b]}]\n");
  // mpirun refuses b every time, a only the first time.
  runner_.behave = [](const Started& s) {
    const bool refused = CellOf(s) == "v=b" || !absl::StrContains(s.Arg("--out"), "retry");
    return refused ? Behavior{.points_recorded = 0, .exit_code = 1, .log = "mpirun has detected an attempt to run as root.\n"}
                   : Behavior{};
  };
  absl::StatusOr<SweepResult> r = RunSweep(options_, env_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_status, 3);
  EXPECT_EQ(runner_.started.size(), 5u);  // a twice, b three times
  const std::string refused = "infrastructure: mpirun has detected an attempt to run as root. (job exited with status 1)";
  EXPECT_THAT(progress_.Text(), HasSubstr("\nv=a: " + refused + ": running it again (attempt 2 of 3)\n"));
  EXPECT_THAT(progress_.Text(), HasSubstr("\nv=b: " + refused + ": running it again (attempt 3 of 3)\n"));
  for (const Record& rec : OutRecords()) {
    if (rec.cell.at("v") == "a") {
      EXPECT_EQ(rec.result.outcome, Outcome::kPass) << rec.point;
    } else {
      EXPECT_EQ(rec.result.outcome, Outcome::kInfra) << rec.point;
      EXPECT_EQ(rec.result.signature, refused + " (on all 3 attempts)");
    }
  }
  // The infrastructure is back: a rerun runs b again (and says so), keeps a.
  runner_.started.clear();
  runner_.behave = [](const Started&) { return Behavior{}; };
  r = RunSweep(options_, env_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_status, 0);
  ASSERT_EQ(runner_.started.size(), 1u);
  EXPECT_EQ(CellOf(runner_.started[0]), "v=b");
  EXPECT_EQ(r->cells_resumed, 1);
  EXPECT_THAT(progress_.Text(), HasSubstr("1 cell(s) ended infra last time (no verdict): running them again\n"));
}

// Continuations finish the job's work within the job's timeout: the deadline is not reset.
TEST_F(SweepTest, AContinuationKeepsTheJobsDeadline) {
  WriteMatrix("defaults: {ranks: 1, timeout: 30s}\n");
  FirstJobThenContinuations({.duration = absl::Seconds(20), .points_recorded = 1, .signal = SIGKILL},
                            {.duration = absl::Hours(1), .points_recorded = 0});
  absl::StatusOr<SweepResult> r = RunSweep(options_, env_);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(runner_.started.size(), 2u);
  ASSERT_FALSE(runner_.signals.empty());
  EXPECT_EQ(runner_.signals[1].id, runner_.started[1].id);  // [0]: the first job's group kill
  EXPECT_EQ(runner_.signals[1].sig, SIGTERM);
  EXPECT_NEAR(absl::ToDoubleSeconds(runner_.signals[1].at), 30.0, 0.2);
  std::vector<Record> records = OutRecords();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[2].result.outcome, Outcome::kTimeout);
  EXPECT_EQ(records[2].result.signature, "cell timeout after 30s");
}

TEST_F(SweepTest, MpirunReportOfADeadRankIsUsedWithoutCrashFiles) {
  WriteMatrix("defaults: {ranks: 2}\n");
  EveryJobRecordsNothing(139, "mpirun noticed that process rank 1 with PID 4242 on node n1 "
                              "exited on signal 11 (Segmentation fault).\n");
  absl::StatusOr<SweepResult> r = RunSweep(options_, env_);
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<Record> records = OutRecords();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].result.signature,
            "crash: rank 1 killed by SIGSEGV (job exited with status 139)");
}

TEST_F(SweepTest, ExitTwoIsBadInputForThatCellAndTheSweepGoesOn) {
  WriteMatrix("axes: [{name: v, values: [bad, good]}]\n");
  runner_.behave = [](const Started& s) {
    Behavior b;
    if (absl::StrContains(s.Arg("--out"), "v=bad")) {
      b.exit_code = 2;
      b.points_recorded = 0;
      b.log = "\ns.yaml:3:9: params.size: expected an integer\nusage...\n";
    }
    return b;
  };
  absl::StatusOr<SweepResult> r = RunSweep(options_, env_);
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<Record> records = OutRecords();
  ASSERT_EQ(records.size(), 6u);
  EXPECT_EQ(records[0].result.outcome, Outcome::kError);
  EXPECT_EQ(records[0].result.signature, "bad input: s.yaml:3:9: params.size: expected an integer");
  EXPECT_EQ(records[3].result.outcome, Outcome::kPass);
  EXPECT_EQ(r->cells_run, 2);
  EXPECT_EQ(r->cells_failed, 1);
}

TEST_F(SweepTest, ResumeAfterTheDriverIsStoppedRerunsOnlyUnfinishedCells) {
  WriteMatrix("axes: [{name: c, values: [a, b, c, d]}]\n");
  env_.resources.slots = 1;
  // Stop the driver while the third cell runs.
  StopOnceStartedAfter(3, absl::Seconds(25));
  absl::StatusOr<SweepResult> first = RunSweep(options_, env_);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_TRUE(first->interrupted);
  EXPECT_EQ(first->cells_run, 2);
  // The running job was killed (after SIGKILLs that clean up finished jobs' groups).
  std::vector<ProcessId> terminated;
  for (const FakeRunner::Signal& sig : runner_.signals) {
    if (sig.sig == SIGTERM) terminated.push_back(sig.id);
  }
  EXPECT_THAT(terminated, ElementsAre(runner_.started[2].id));
  EXPECT_TRUE(runner_.running().empty());
  EXPECT_EQ(OutRecords().size(), 6u);  // the done cells only
  EXPECT_EQ(OutSweepInfo().cells[2].status, "pending");
  // The killed cell left a partial directory; the rerun wipes it.
  ASSERT_TRUE(WriteFileAtomically(options_.out_dir + "/cells/c=c/stale.txt", "x").ok());

  ResumeWithoutStopping();
  absl::StatusOr<SweepResult> second = RunSweep(options_, env_);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_FALSE(second->interrupted);
  EXPECT_EQ(second->cells_resumed, 2);
  EXPECT_EQ(second->cells_run, 2);
  std::vector<std::string> cells;
  for (const Started& s : runner_.started) cells.push_back(CellOf(s));
  EXPECT_THAT(cells, ElementsAre("c=c", "c=d"));
  EXPECT_FALSE(ReadFileToString(options_.out_dir + "/cells/c=c/stale.txt").ok());
  std::vector<Record> records = OutRecords();
  ASSERT_EQ(records.size(), 12u);  // nothing lost, nothing duplicated
  std::set<std::pair<std::string, std::string>> keys;
  for (const Record& rec : records) keys.insert({rec.cell.at("c"), rec.point});
  EXPECT_EQ(keys.size(), 12u);
  EXPECT_EQ(second->exit_status, 0);

  // A third run has nothing to do.
  runner_.started.clear();
  absl::StatusOr<SweepResult> third = RunSweep(options_, env_);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->cells_run, 0);
  EXPECT_EQ(third->cells_resumed, 4);
  EXPECT_TRUE(runner_.started.empty());
  EXPECT_EQ(OutRecords().size(), 12u);
}

// The directory a job ran in, under cells/: "c=a" (process 0) or "c=a/process1".
std::string JobPlace(const Started& s) {
  std::string out = s.Arg("--out");
  out = out.substr(0, out.rfind('/'));
  return out.substr(out.find("/cells/") + 7);
}

TEST_F(SweepTest, ProcessesRunEveryCellNTimesRoundByRoundAndRecordsSayTheirProcess) {
  WriteMatrix("axes: [{name: c, values: [a, b]}]\n");
  options_.processes = 3;
  absl::StatusOr<SweepResult> r = RunSweep(options_, env_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_status, 0);
  EXPECT_EQ(r->cells_run, 2);
  // Both cells fit at once (2 slots); each round starts when the one before it is over.
  std::vector<std::string> places;
  std::vector<absl::Duration> starts;
  for (const Started& s : runner_.started) {
    places.push_back(JobPlace(s));
    starts.push_back(s.at);
  }
  EXPECT_THAT(places, ElementsAre("c=a", "c=b", "c=a/process1", "c=b/process1", "c=a/process2", "c=b/process2"));
  EXPECT_EQ(starts[1], starts[0]);
  EXPECT_GE(starts[2], starts[0] + absl::Seconds(10));
  EXPECT_GE(starts[4], starts[2] + absl::Seconds(10));
  std::vector<Record> records = OutRecords();
  ASSERT_EQ(records.size(), 18u);  // 2 cells x 3 points x 3 processes
  std::map<std::pair<std::string, std::string>, std::set<int>> processes;
  for (const Record& rec : records) {
    ASSERT_TRUE(rec.process.has_value()) << rec.point;
    processes[{rec.cell.at("c"), rec.point}].insert(*rec.process);
  }
  ASSERT_EQ(processes.size(), 6u);
  for (const auto& [key, seen] : processes) EXPECT_EQ(seen, (std::set<int>{0, 1, 2})) << key.second;
  // One point stays one point: one comparison entry and one JUnit testcase each.
  EXPECT_EQ(r->comparison.points.size(), 6u);
  absl::StatusOr<std::string> junit = ReadFileToString(options_.out_dir + "/junit.xml");
  ASSERT_TRUE(junit.ok());
  size_t testcases = 0;
  for (size_t at = junit->find("<testcase "); at != std::string::npos; at = junit->find("<testcase ", at + 1)) {
    ++testcases;
  }
  EXPECT_EQ(testcases, 6u);
  absl::StatusOr<std::string> done = ReadFileToString(options_.out_dir + "/cells/c=a/done.json");
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(nlohmann::json::parse(*done)["processes"], 3);
  EXPECT_EQ(nlohmann::json::parse(*done)["records"], 9);
}

TEST_F(SweepTest, OneProcessWritesNoProcessField) {
  WriteMatrix("axes: [{name: c, values: [a]}]\n");
  ASSERT_TRUE(RunSweep(options_, env_).ok());
  for (const Record& rec : OutRecords()) EXPECT_FALSE(rec.process.has_value());
  absl::StatusOr<std::string> line = ReadFileToString(options_.out_dir + "/records.jsonl");
  ASSERT_TRUE(line.ok());
  EXPECT_THAT(*line, Not(HasSubstr("\"process\"")));
  absl::StatusOr<std::string> done = ReadFileToString(options_.out_dir + "/cells/c=a/done.json");
  ASSERT_TRUE(done.ok());
  EXPECT_FALSE(nlohmann::json::parse(*done).contains("processes"));
}

TEST_F(SweepTest, AResumedSweepRunsOnlyTheProcessesACellMisses) {
  WriteMatrix("axes: [{name: c, values: [a, b]}]\n");
  env_.resources.slots = 1;
  options_.processes = 2;
  // a, b, a/process1 (all done by 30 s), then stopped while b/process1 runs.
  StopOnceStartedAfter(4, absl::Seconds(35));
  absl::StatusOr<SweepResult> first = RunSweep(options_, env_);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_TRUE(first->interrupted);
  EXPECT_EQ(first->cells_run, 1);  // a, both processes
  EXPECT_EQ(OutRecords().size(), 6u);  // done cells only
  EXPECT_EQ(OutSweepInfo().cells[1].status, "pending");
  absl::StatusOr<std::string> done_b = ReadFileToString(options_.out_dir + "/cells/c=b/done.json");
  ASSERT_TRUE(done_b.ok());
  EXPECT_EQ(nlohmann::json::parse(*done_b)["processes"], 1);
  ASSERT_TRUE(WriteFileAtomically(options_.out_dir + "/cells/c=b/process1/stale.txt", "x").ok());

  ResumeWithoutStopping();
  absl::StatusOr<SweepResult> second = RunSweep(options_, env_);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->cells_resumed, 1);
  EXPECT_EQ(second->cells_run, 1);
  ASSERT_EQ(runner_.started.size(), 1u);
  EXPECT_EQ(JobPlace(runner_.started[0]), "c=b/process1");
  EXPECT_FALSE(ReadFileToString(options_.out_dir + "/cells/c=b/process1/stale.txt").ok());
  std::set<std::tuple<std::string, std::string, int>> keys;
  for (const Record& rec : OutRecords()) keys.insert({rec.cell.at("c"), rec.point, rec.process.value_or(-1)});
  EXPECT_EQ(keys.size(), 12u);  // nothing lost, nothing duplicated
  EXPECT_EQ(OutRecords().size(), 12u);

  // More processes asked for later: only the new one runs, in every cell.
  options_.processes = 3;
  runner_.started.clear();
  absl::StatusOr<SweepResult> third = RunSweep(options_, env_);
  ASSERT_TRUE(third.ok()) << third.status();
  std::vector<std::string> places;
  for (const Started& s : runner_.started) places.push_back(JobPlace(s));
  EXPECT_THAT(places, ElementsAre("c=a/process2", "c=b/process2"));
  EXPECT_EQ(OutRecords().size(), 18u);
}

TEST_F(SweepTest, ProcessesWithRerunFailedIsBadInput) {
  WriteMatrix("axes: [{name: c, values: [a]}]\n");
  ASSERT_TRUE(RunSweep(options_, env_).ok());
  options_.processes = 2;
  options_.rerun_failed = true;
  absl::StatusOr<SweepResult> r = RunSweep(options_, env_);
  EXPECT_TRUE(absl::IsInvalidArgument(r.status()));
  EXPECT_EQ(r.status().message(), "--rerun-failed reruns a cell's points once: leave out --processes");
}

TEST_F(SweepTest, ChangedCellDefinitionReruns) {
  WriteMatrix("axes: [{name: p, values: [{label: a, env: {X: \"1\"}}, {label: b, env: {Y: \"1\"}}]}]\n");
  ASSERT_TRUE(RunSweep(options_, env_).ok());
  runner_.started.clear();
  WriteMatrix("axes: [{name: p, values: [{label: a, env: {X: \"2\"}}, {label: b, env: {Y: \"1\"}}]}]\n");
  absl::StatusOr<SweepResult> r = RunSweep(options_, env_);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(runner_.started.size(), 1u);
  EXPECT_EQ(CellOf(runner_.started[0]), "p=a");
  EXPECT_EQ(runner_.started[0].Env("X"), "2");
  EXPECT_EQ(r->cells_resumed, 1);
}

TEST_F(SweepTest, SetupFailureMarksTheVersionsCellsAndSuccessIsCached) {
  WriteMatrix(R"(versions:
  name: nccl
  values:
    - {label: old, setup: "exit 1"}
    - {label: new, setup: "make lib", env_prepend: {LD_LIBRARY_PATH: "{version_dir}/lib"}, launcher_prefix: [wrap, "{version_dir}"]}
)");
  int old_setups = 0, new_setups = 0;
  runner_.behave = [&](const Started& s) {
    Behavior b;
    if (s.spec.argv[0] == "/bin/sh") {
      b.duration = absl::Seconds(1);
      if (s.spec.argv[2] == "exit 1") {
        ++old_setups;
        b.exit_code = 1;
        b.log = "cannot fetch the wheel\n";
      } else {
        ++new_setups;
      }
    }
    return b;
  };
  absl::StatusOr<SweepResult> r = RunSweep(options_, env_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(old_setups, 1);
  EXPECT_EQ(new_setups, 1);
  EXPECT_EQ(r->cells_setup_failed, 1);
  EXPECT_EQ(r->cells_run, 1);
  EXPECT_EQ(r->exit_status, 3) << "an infra record: the sweep's exit says infrastructure";
  std::string vdir = options_.out_dir + "/versions/new";
  const Started& setup = runner_.started[1];
  EXPECT_EQ(setup.spec.cwd, vdir);
  EXPECT_EQ(setup.Env("GH_VERSION"), "new");
  const Started& job = runner_.started[2];
  EXPECT_EQ(job.spec.argv[0], "wrap");
  EXPECT_EQ(job.spec.argv[1], vdir);
  EXPECT_EQ(job.spec.argv[2], "mpirun");
  EXPECT_EQ(job.Env("LD_LIBRARY_PATH"), vdir + "/lib");
  SweepInfo info = OutSweepInfo();
  EXPECT_EQ(info.cells[0].status, "setup_failed");
  const std::string log = options_.out_dir + "/versions/old/setup.log";
  EXPECT_EQ(info.cells[0].detail, "setup exit 1 (log " + log + "): cannot fetch the wheel");
  EXPECT_TRUE(info.axes[0].is_version);
  std::vector<Record> records = OutRecords();
  ASSERT_EQ(records.size(), 6u);
  EXPECT_EQ(records[0].result.outcome, Outcome::kInfra) << "nothing of the code under test ran";
  EXPECT_EQ(records[0].result.signature, "version setup failed: setup exit 1 (log " + log + "): cannot fetch the wheel");
  EXPECT_EQ(records[0].cell.at("nccl"), "old");
  EXPECT_EQ(records[3].result.outcome, Outcome::kPass);

  // Rerun: the failed set-up is retried, the successful one is cached, the done cell kept.
  runner_.started.clear();
  absl::StatusOr<SweepResult> again = RunSweep(options_, env_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(old_setups, 2);
  EXPECT_EQ(new_setups, 1);
  EXPECT_EQ(again->cells_resumed, 1);
  EXPECT_EQ(OutRecords().size(), 6u);
}

TEST_F(SweepTest, BadMatrixWritesNothing) {
  WriteMatrix("axes: [{name: np, values: [{label: \"2\", ranks: 2}]}]\ndefaults: {launcher: direct}\n");
  absl::StatusOr<SweepResult> r = RunSweep(options_, env_);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(r.status()));
  EXPECT_EQ(std::string(r.status().message()),
            dir_ + "/m.yaml:3:28: ranks: cell 'np=2' needs 2 ranks but launcher 'direct' runs at most 1");
  EXPECT_FALSE(std::filesystem::exists(options_.out_dir));
  EXPECT_TRUE(runner_.started.empty());
}

TEST_F(SweepTest, BadScenarioFileAndFilterAreInputErrors) {
  ASSERT_TRUE(WriteFileAtomically(dir_ + "/m.yaml", "name: m\nscenarios:\n  - file: nope.yaml\n").ok());
  options_.matrix_path = dir_ + "/m.yaml";
  absl::StatusOr<SweepResult> r = RunSweep(options_, env_);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("m.yaml:3:5: scenarios[0].file: cannot read 'nope.yaml'"));
  ASSERT_TRUE(WriteFileAtomically(dir_ + "/m.yaml",
                                  "name: m\nscenarios:\n  - {file: s.yaml, points: [\"*/size=9/*\"]}\n").ok());
  r = RunSweep(options_, env_);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("m.yaml:3:5: scenarios[0].points[0]: '*/size=9/*' matches no point of s.yaml"));
  EXPECT_FALSE(std::filesystem::exists(options_.out_dir));
}

TEST_F(SweepTest, PointFiltersBecomeRunFiltersAndBoundExpectedPoints) {
  ASSERT_TRUE(WriteFileAtomically(dir_ + "/m.yaml",
                                  "name: m\nscenarios:\n  - {file: s.yaml, points: [\"*/size=1/*\"]}\n"
                                  "defaults: {timeout: 5s}\n").ok());
  options_.matrix_path = dir_ + "/m.yaml";
  EveryJob({.duration = absl::Hours(1), .points_recorded = 0});
  absl::StatusOr<SweepResult> r = RunSweep(options_, env_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(runner_.started[0].Arg("--filter"), "*/size=1/*");
  std::vector<Record> records = OutRecords();
  ASSERT_EQ(records.size(), 1u);  // only the filtered point is expected
  EXPECT_EQ(records[0].point, "s/size=1/np=1");
  EXPECT_EQ(records[0].result.outcome, Outcome::kTimeout);
}

TEST_F(SweepTest, BaselineRegressionExitsOne) {
  WriteMatrix("axes: [{name: p, values: [a]}]\n");
  ASSERT_TRUE(RunSweep(options_, env_).ok());
  SweepOptions now = options_;
  now.out_dir = dir_ + "/now";
  now.baseline_dir = options_.out_dir;
  EveryJob({.fail_points = true});
  absl::StatusOr<SweepResult> r = RunSweep(now, env_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->regressions, 3);
  EXPECT_EQ(r->exit_status, 1);
  now.baseline_dir = dir_ + "/missing";
  now.out_dir = dir_ + "/never";
  r = RunSweep(now, env_);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(r.status()));
  EXPECT_FALSE(std::filesystem::exists(now.out_dir));
}

// Last run's sweep was over version "v1", this one over "v2": with --baseline-ignore the
// version axis is left out when cells meet, so the failures are regressions, not new points.
TEST_F(SweepTest, BaselineIgnoringTheVersionAxisFindsRegressionsAcrossVersions) {
  WriteMatrix("axes: [{name: p, values: [a]}, {name: ver, values: [v1]}]\n");
  ASSERT_TRUE(RunSweep(options_, env_).ok());
  const std::string baseline_dir = options_.out_dir;
  WriteMatrix("axes: [{name: p, values: [a]}, {name: ver, values: [v2]}]\n");
  EveryJob({.fail_points = true});
  SweepOptions now = options_;
  now.baseline_dir = baseline_dir;
  now.out_dir = dir_ + "/plain";
  absl::StatusOr<SweepResult> r = RunSweep(now, env_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->regressions, 0);  // every point is new, every baseline point vanished
  now.out_dir = dir_ + "/across";
  now.baseline_ignore_axes = {"ver"};
  r = RunSweep(now, env_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->regressions, 3);
  EXPECT_EQ(r->exit_status, 1);
  EXPECT_THAT(r->headline, HasSubstr("3 regressions"));
  absl::StatusOr<std::string> summary = ReadFileToString(now.out_dir + "/summary.md");
  ASSERT_TRUE(summary.ok());
  EXPECT_THAT(*summary, HasSubstr("(cells matched without ver)"));
}

TEST_F(SweepTest, BaselineIgnoreNeedsABaselineAnAxisAndDistinctCells) {
  WriteMatrix("axes: [{name: p, values: [a, b]}, {name: ver, values: [v1]}]\n");
  ASSERT_TRUE(RunSweep(options_, env_).ok());
  SweepOptions now = options_;
  now.out_dir = dir_ + "/never";
  auto message = [&](SweepOptions o) {
    absl::StatusOr<SweepResult> r = RunSweep(o, env_);
    EXPECT_TRUE(absl::IsInvalidArgument(r.status())) << r.status();
    EXPECT_FALSE(std::filesystem::exists(o.out_dir));
    return std::string(r.status().message());
  };
  now.baseline_ignore_axes = {"ver"};
  EXPECT_EQ(message(now), "--baseline-ignore needs --baseline");
  now.baseline_dir = options_.out_dir;
  now.baseline_ignore_axes = {"nccl"};
  EXPECT_EQ(message(now), "--baseline-ignore: the matrix has no axis 'nccl' (its axes: p, ver)");
  now.baseline_ignore_axes = {"p"};
  EXPECT_EQ(message(now),
            "--baseline-ignore p: cells 'p=a,ver=v1' and 'p=b,ver=v1' of the matrix would "
            "compare as one");
}

// Issue 15 item 1: a cell whose points come from two `points` filters (one per axis) is told
// exactly its runs (--runs), so its job never runs, nor dies in, another cell's point, and no
// point that never ran gets a crash record. The fake job runs like `gpuharness run`: the
// points its --filter admits, less those --runs leaves out, in plan order; a fault=crash point
// records its crash and the job dies of it.
TEST_F(SweepTest, TwoPointFiltersRunOnlyTheCellsOwnPointsOnce) {
  ASSERT_TRUE(WriteFileAtomically(dir_ + "/t.yaml",
                                  "name: t\nkind: fake_sweep_kind\n"
                                  "params: {size: [1, 2], fault: [crash, none]}\n").ok());
  ASSERT_TRUE(WriteFileAtomically(
                  dir_ + "/m.yaml",
                  "name: m\nscenarios: [t.yaml]\ndefaults: {ranks: 1}\naxes:\n"
                  "  - name: size\n    values: [{label: one, points: [\"*/size=1/*\"]}, "
                  "{label: two, points: [\"*/size=2/*\"]}]\n"
                  "  - name: fault\n    values: [{label: crash, points: [\"*/fault=crash/*\"]}, "
                  "{label: none, points: [\"*/fault=none/*\"]}]\n").ok());
  options_.matrix_path = dir_ + "/m.yaml";
  const std::vector<std::string> plan = {"t/size=1/fault=crash/np=1", "t/size=1/fault=none/np=1",
                                         "t/size=2/fault=crash/np=1", "t/size=2/fault=none/np=1"};
  std::map<std::string, std::vector<std::string>> ran;  // cell -> the points its jobs ran
  runner_.behave = [&](const Started& s) {
    std::set<std::string> listed;
    const std::string runs = s.Arg("--runs");
    for (absl::string_view line :
         absl::StrSplit(runs.empty() ? "" : ReadFileToString(runs).value_or(""), '\n', absl::SkipEmpty())) {
      listed.insert(std::string(line.substr(0, line.find('\t'))));
    }
    Behavior b;
    for (const std::string& point : plan) {
      if (!PointNameMatches(s.Arg("--filter"), point)) continue;
      if (!runs.empty() && listed.count(point) == 0) continue;
      ran[CellOf(s)].push_back(point);
      const bool crash = absl::StrContains(point, "fault=crash");
      b.records.push_back({"", crash ? Outcome::kCrash : Outcome::kPass,
                           crash ? "SIGSEGV on rank 0 in step 'exchange'" : "", false, point});
      if (crash) {
        b.signal = SIGSEGV;
        break;
      }
    }
    return b;
  };
  absl::StatusOr<SweepResult> r = RunSweep(options_, env_);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(runner_.started.size(), 4u);  // one job per cell, no continuation
  const std::map<std::string, std::string> own = {{"size=one,fault=crash", plan[0]},
                                                  {"size=one,fault=none", plan[1]},
                                                  {"size=two,fault=crash", plan[2]},
                                                  {"size=two,fault=none", plan[3]}};
  for (const auto& [cell, point] : own) {
    EXPECT_THAT(ran[cell], ElementsAre(point)) << cell;
    EXPECT_EQ(ReadFileToString(options_.out_dir + "/cells/" + cell + "/job.runs").value_or("?"),
              point + "\t0\n") << cell;
  }
  std::map<std::string, std::vector<std::string>> recorded;  // cell id -> "point outcome"
  for (const Record& rec : OutRecords()) {
    recorded[absl::StrCat("size=", rec.cell.at("size"), ",fault=", rec.cell.at("fault"))].push_back(
        absl::StrCat(rec.point, " ", std::string(OutcomeName(rec.result.outcome))));
  }
  EXPECT_THAT(recorded["size=one,fault=crash"], ElementsAre(plan[0] + " crash"));
  EXPECT_THAT(recorded["size=one,fault=none"], ElementsAre(plan[1] + " pass"));
  EXPECT_THAT(recorded["size=two,fault=crash"], ElementsAre(plan[2] + " crash"));
  EXPECT_THAT(recorded["size=two,fault=none"], ElementsAre(plan[3] + " pass"));
  EXPECT_EQ(recorded.size(), 4u);
}

// --dry-run prints what the sweep starts, from the same spec: every {version_dir} resolved
// (in the launcher prefix too), the cell's variables as the job gets them.
TEST_F(SweepTest, DryRunPrintsExactlyTheCommandTheSweepStarts) {
  WriteMatrix("axes: [{name: p, values: [a]}]\n"
              "versions:\n  name: v\n  values:\n"
              "    - {label: one, env: {LIBDIR: \"{version_dir}/lib\"}, "
              "launcher_prefix: [\"{version_dir}/wrap\", \"--\"]}\n");
  options_.dry_run = true;
  ASSERT_TRUE(RunSweep(options_, env_).ok());
  const std::string printed = progress_.Text();
  EXPECT_FALSE(std::filesystem::exists(options_.out_dir));
  options_.dry_run = false;
  ASSERT_TRUE(RunSweep(options_, env_).ok());
  ASSERT_EQ(runner_.started.size(), 1u);
  const std::string version_dir = options_.out_dir + "/versions/one";
  EXPECT_EQ(runner_.started[0].spec.argv[0], version_dir + "/wrap");
  EXPECT_EQ(runner_.started[0].Env("LIBDIR"), version_dir + "/lib");
  EXPECT_THAT(printed, HasSubstr("\n    $ " + absl::StrJoin(runner_.started[0].spec.argv, " ") + "\n"));
  EXPECT_THAT(printed, HasSubstr("\n    LIBDIR=" + version_dir + "/lib\n"));
  EXPECT_THAT(printed, ::testing::Not(HasSubstr("{version_dir}")));
}

TEST_F(SweepTest, DryRunStartsAndWritesNothing) {
  WriteMatrix("axes: [{name: p, values: [a, b]}]\n");
  options_.dry_run = true;
  absl::StatusOr<SweepResult> r = RunSweep(options_, env_);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->cells, 2);
  EXPECT_TRUE(runner_.started.empty());
  EXPECT_FALSE(std::filesystem::exists(options_.out_dir));
}

// Node mode (a Slurm allocation of two 8-CPU nodes, the srun launcher): srun's "Node failure on
// X" ends the attempt as infra naming X; the cell starts again on the other node.
class SlurmNodeDeathTest : public SweepTest {
 protected:
  void SetUp() override {
    SweepTest::SetUp();
    SlurmAllocation a;
    a.job_id = "4";
    a.nodelist = "n[1-2]";
    a.nodes = {{"n1", 8, 0}, {"n2", 8, 0}};
    env_.resources.slurm = a;
    WriteMatrix("defaults: {ranks: 1, launcher: srun}\n");
  }
  static std::string Host(const Started& s) { return s.Arg("-w"); }
  std::string Progress() { return progress_.Text(); }
};

TEST_F(SlurmNodeDeathTest, TheCellIsRetriedOnALiveNodeAndSaysWhereTheFirstAttemptDied) {
  runner_.behave = [](const Started& s) {
    Behavior b;
    if (s.Arg("-w") == "n1") {  // n1 dies after the first point
      b.points_recorded = 1;
      b.log = "srun: error: Node failure on n1\n";
    }
    return b;
  };
  absl::StatusOr<SweepResult> r = RunSweep(options_, env_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_status, 0);
  ASSERT_EQ(runner_.started.size(), 2u);
  EXPECT_EQ(Host(runner_.started[0]), "n1");
  EXPECT_EQ(Host(runner_.started[1]), "n2");
  EXPECT_EQ(runner_.started[1].Arg("--out"), options_.out_dir + "/cells/all/job.retry1");
  std::vector<Record> records = OutRecords();
  ASSERT_EQ(records.size(), 3u);
  for (const Record& rec : records) EXPECT_EQ(rec.result.outcome, Outcome::kPass) << rec.point;
  absl::StatusOr<std::string> done = ReadFileToString(options_.out_dir + "/cells/all/done.json");
  ASSERT_TRUE(done.ok());
  nlohmann::json d = nlohmann::json::parse(*done);
  const std::string died = "infrastructure: srun: error: Node failure on n1 (job exited with status 0)";
  EXPECT_EQ(d["attempt"], 2);
  EXPECT_EQ(d["retry_of"]["died_on"], nlohmann::json({"n1"}));
  EXPECT_EQ(d["retry_of"]["end"], died);
  EXPECT_EQ(d["retry_of"]["hosts"], nlohmann::json({"n1"}));
  ASSERT_EQ(d["jobs"].size(), 2u);
  EXPECT_EQ(d["jobs"][0]["end"], died);
  EXPECT_EQ(d["jobs"][0]["wall_s"], 10.0);
  EXPECT_TRUE(ReadFileToString(options_.out_dir + "/cells/all/job.log").ok());  // kept
  EXPECT_EQ(OutSweepInfo().cells[0].detail, "attempt 2 after " + died);
  EXPECT_THAT(Progress(),
              HasSubstr("\nall: srun: error: Node failure on n1: running it again on the live nodes (attempt 2 of 3; "
                        "n1 left out)\n"));
}

TEST_F(SlurmNodeDeathTest, WhenEveryNodeDiedEveryRunIsInfraNamingThemAndTheSweepExits3) {
  WriteMatrix("defaults: {ranks: 1, launcher: srun}\naxes:\n  - name: c\n    values: [{label: a, ranks: 8}, {label: b, ranks: 8}, {label: c, ranks: 8}]\n");
  runner_.behave = [](const Started& s) {
    Behavior b;
    b.points_recorded = 0;
    b.log = absl::StrCat("srun: error: Node failure on ", s.Arg("-w").substr(0, 2), "\n");
    return b;
  };
  absl::StatusOr<SweepResult> r = RunSweep(options_, env_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_status, 3);
  // a on n1 and b on n2 die; a's retry would need a live node: none is left, nor for c.
  ASSERT_EQ(runner_.started.size(), 2u);
  std::vector<Record> records = OutRecords();
  ASSERT_EQ(records.size(), 9u);
  const std::string none =
      "no node of the Slurm job 4: 2 node(s) n[1-2], 16 CPUs, 0 GPUs left alive for 8 ranks (dead: n1,n2)";
  for (const Record& rec : records) {
    EXPECT_EQ(rec.result.outcome, Outcome::kInfra) << rec.point;
    const std::string& cell = rec.cell.at("c");
    const std::string& sig = rec.result.signature;
    if (cell == "c") {
      EXPECT_EQ(sig, "infrastructure: " + none);
    } else {
      // a was to be retried when b's node died too; b found no live node to retry on.
      EXPECT_EQ(sig, cell == "a" ? "infrastructure: srun: error: Node failure on n1 (job exited with status 0); " + none
                                 : "infrastructure: srun: error: Node failure on n2 (job exited with status 0)");
    }
  }
  EXPECT_FALSE(ReadFileToString(options_.out_dir + "/cells/c=c/done.json").ok());  // a rerun runs it
}

}  // namespace
}  // namespace gh::driver
