// The job pool against fake jobs and a fake clock: packing onto slots and devices, waiting for
// a set-up, infrastructure retries, dead nodes, client errors and stop-all.
#include "harness/driver/job_pool.h"

#include <signal.h>

#include <atomic>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/driver/testdata/fake_clock.h"
#include "harness/core/file_util.h"
#include "harness/core/testdata/temp_dir.h"

namespace gh::driver {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using testing::FakeClock;

// Jobs that end `duration` after they start with `code`; a job whose log names a dead node
// writes that line. SIGTERM ends a job unless it ignores it; SIGKILL always does.
class FakeRunner : public ProcessRunner {
 public:
  struct Job {
    absl::Duration started, duration = absl::Seconds(10);
    int code = 0;
    bool ignores_sigterm = false;
    int killed_by = 0;
    bool reaped = false;
  };
  explicit FakeRunner(FakeClock& clock) : clock_(clock) {}
  std::function<void(const ProcessSpec&, Job&)> behave = [](const ProcessSpec&, Job&) {};

  absl::StatusOr<ProcessId> Start(const ProcessSpec& spec) override {
    Job job;
    job.started = clock_.Elapsed();
    behave(spec, job);
    jobs_[next_] = job;
    return next_++;
  }
  std::optional<ProcessExit> Poll(ProcessId id) override {
    Job& job = jobs_.at(id);
    if (job.killed_by != 0) return End(job, {true, 0, job.killed_by});
    if (clock_.Elapsed() - job.started < job.duration) return std::nullopt;
    return End(job, {false, job.code, 0});
  }
  void SignalGroup(ProcessId id, int sig) override {
    Job& job = jobs_.at(id);
    signals.emplace_back(id, sig);
    if (!job.reaped && (sig == SIGKILL || (sig == SIGTERM && !job.ignores_sigterm))) job.killed_by = sig;
  }
  int Running() const {
    int n = 0;
    for (const auto& [id, job] : jobs_) n += !job.reaped;
    return n;
  }
  std::vector<std::pair<ProcessId, int>> signals;

 private:
  ProcessExit End(Job& job, ProcessExit exit) {
    job.reaped = true;
    return exit;
  }
  FakeClock& clock_;
  std::map<ProcessId, Job> jobs_;
  ProcessId next_ = 100;
};

// A client whose units each run `jobs` jobs; `after` decides what an end means.
class FakeClient : public PoolClient {
 public:
  FakeClient(FakeRunner& runner, FakeClock& clock, std::string dir) : runner_(runner), clock_(clock), dir_(dir) {}
  std::function<absl::StatusOr<Readiness>(size_t)> ready = [](size_t) { return Readiness::kReady; };
  std::function<After(size_t unit, const PooledJobEnd&)> after = [](size_t, const PooledJobEnd&) {
    return After{After::kDone};
  };
  std::map<std::pair<size_t, int>, std::string> logs;  // (unit, attempt) -> its job's log

  absl::StatusOr<Readiness> Ready(size_t unit) override { return ready(unit); }
  absl::StatusOr<RunningJob> StartJob(size_t unit, const Allocation& where, int attempt) override {
    events.push_back(absl::StrCat("start ", unit, " attempt ", attempt, " at ", absl::ToInt64Seconds(clock_.Elapsed()),
                                  "s on ", where.units));
    CellJobSpec spec;
    spec.process.argv = {"job", absl::StrCat(unit)};
    spec.process.log_path = absl::StrCat(dir_, "/", unit, ".", attempt, ".log");
    spec.timeout = absl::Minutes(1);
    if (absl::Status st = WriteFileAtomically(spec.process.log_path, logs[{unit, attempt}]); !st.ok()) return st;
    return RunningJob::Start(spec, runner_, clock_);
  }
  absl::StatusOr<After> JobEnded(size_t unit, const PooledJobEnd& ended) override {
    events.push_back(absl::StrCat("end ", unit, " attempt ", ended.attempt, " at ",
                                  absl::ToInt64Seconds(clock_.Elapsed()), "s", ended.lost ? " lost" : ""));
    if (fail_on_end) return absl::InternalError("cannot record");
    return after(unit, ended);
  }
  void Retry(size_t unit, int attempt, const std::string& line) override { events.push_back(line); }
  absl::Status EndInfra(size_t unit) override {
    events.push_back(absl::StrCat("infra ", unit));
    return absl::OkStatus();
  }
  absl::Status Strand(size_t unit, const std::string& why) override {
    events.push_back(absl::StrCat("strand ", unit, ": ", why));
    return absl::OkStatus();
  }
  std::string Label(size_t unit) const override { return absl::StrCat("u", unit); }

  std::vector<std::string> events;
  bool fail_on_end = false;

 private:
  FakeRunner& runner_;
  FakeClock& clock_;
  std::string dir_;
};

class JobPoolTest : public ::testing::Test {
 protected:
  JobPool Pool(Resources resources) {
    return JobPool(std::move(resources), JobPoolOptions{absl::Seconds(5), absl::Seconds(1), &stop_}, clock_, client_);
  }
  static Resources Slots(int n) {
    Resources r;
    r.slots = n;
    return r;
  }

  testing::ScopedTempDir temp_;
  const std::string dir_ = temp_.path();
  FakeClock clock_;
  FakeRunner runner_{clock_};
  FakeClient client_{runner_, clock_, dir_};
  std::atomic<bool> stop_{false};
};

TEST_F(JobPoolTest, UnitsStartInOrderAsTheirSlotsFreeAndSmallerOnesPassALargerOne) {
  JobPool pool = Pool(Slots(4));
  pool.Add(0, 3, false);
  pool.Add(1, 2, false);  // waits: 1 slot free
  pool.Add(2, 1, false);  // passes it
  ASSERT_TRUE(pool.Run().ok());
  EXPECT_THAT(client_.events, ElementsAre("start 0 attempt 1 at 0s on 3", "start 2 attempt 1 at 0s on 1",
                                          "end 0 attempt 1 at 10s", "end 2 attempt 1 at 10s",
                                          "start 1 attempt 1 at 10s on 2", "end 1 attempt 1 at 20s"));
  EXPECT_TRUE(pool.Idle());
}

TEST_F(JobPoolTest, AUnitWaitsForItsSetUpAndOneWhoseSetUpFailedEndsWithoutAJob) {
  int polls = 0;
  client_.ready = [&](size_t unit) -> absl::StatusOr<PoolClient::Readiness> {
    if (unit == 1) return PoolClient::Readiness::kEnded;
    return ++polls < 3 ? PoolClient::Readiness::kWait : PoolClient::Readiness::kReady;
  };
  JobPool pool = Pool(Slots(4));
  pool.Add(0, 1, false);
  pool.Add(1, 1, false);
  ASSERT_TRUE(pool.Run().ok());
  // Round 1 (0 s): a waits, b ends; round 2 (0 s): a waits, nothing else to do: 1 s later it starts.
  EXPECT_THAT(client_.events, ElementsAre("start 0 attempt 1 at 1s on 1", "end 0 attempt 1 at 11s"));
}

TEST_F(JobPoolTest, AnInfraAttemptRunsAgainAndOnlyInfraOnEveryAttemptStands) {
  std::map<size_t, int> infra_attempts = {{0, 1}, {1, 3}};  // unit -> attempts that end infra
  client_.after = [&](size_t unit, const PooledJobEnd& ended) {
    if (ended.attempt <= infra_attempts[unit]) return PoolClient::After{PoolClient::After::kInfra, "mpirun refused"};
    return PoolClient::After{PoolClient::After::kDone};
  };
  JobPool pool = Pool(Slots(1));
  pool.Add(0, 1, false);
  pool.Add(1, 1, false);
  ASSERT_TRUE(pool.Run().ok());
  EXPECT_THAT(client_.events,
              ElementsAre("start 0 attempt 1 at 0s on 1", "end 0 attempt 1 at 10s",
                          "u0: mpirun refused: running it again (attempt 2 of 3)",
                          // the retry goes first: it was waiting before the next unit
                          "start 0 attempt 2 at 10s on 1", "end 0 attempt 2 at 20s",
                          "start 1 attempt 1 at 20s on 1", "end 1 attempt 1 at 30s",
                          "u1: mpirun refused: running it again (attempt 2 of 3)", "start 1 attempt 2 at 30s on 1",
                          "end 1 attempt 2 at 40s", "u1: mpirun refused: running it again (attempt 3 of 3)",
                          "start 1 attempt 3 at 40s on 1", "end 1 attempt 3 at 50s", "infra 1"));
}

TEST_F(JobPoolTest, ADeadNodeTakesNoJobAgainAndAUnitNoLiveNodeCanHoldIsStranded) {
  Resources r;
  r.slurm = SlurmAllocation{"7", "n[1-2]", {{"n1", 4, 0}, {"n2", 4, 0}}};
  client_.logs[{0, 1}] = "srun: error: Node failure on n1\n";
  JobPool pool = Pool(r);
  pool.Add(0, 4, false);  // on n1, which dies: again on n2
  pool.Add(1, 8, false);  // needs both nodes: waits, then no live node can hold it
  ASSERT_TRUE(pool.Run().ok());
  EXPECT_THAT(client_.events,
              ElementsAre("start 0 attempt 1 at 0s on 4", "end 0 attempt 1 at 10s lost",
                          "u0: srun: error: Node failure on n1: running it again on the live nodes (attempt 2 of 3; "
                          "n1 left out)",
                          "start 0 attempt 2 at 10s on 4",
                          "strand 1: no node of the Slurm job 7: 2 node(s) n[1-2], 8 CPUs, 0 GPUs left alive for 8 "
                          "ranks (dead: n1)",
                          "end 0 attempt 2 at 20s"));
  EXPECT_THAT(pool.resources().DeadNodes(), ElementsAre("n1"));
}

TEST_F(JobPoolTest, StopEndsEveryJobSigtermThenSigkillAfterTheGrace) {
  runner_.behave = [](const ProcessSpec& spec, FakeRunner::Job& job) {
    job.duration = absl::Hours(1);
    job.ignores_sigterm = spec.argv[1] == "1";
  };
  clock_.on_sleep = [&] {
    if (clock_.Elapsed() >= absl::Seconds(3)) stop_.store(true);
  };
  JobPool pool = Pool(Slots(2));
  pool.Add(0, 1, false);
  pool.Add(1, 1, false);
  pool.Add(2, 1, false);  // never starts
  absl::Status ran = pool.Run();
  EXPECT_TRUE(absl::IsCancelled(ran)) << ran;
  EXPECT_EQ(runner_.Running(), 0);
  std::vector<int> sent;
  for (const auto& [id, sig] : runner_.signals) sent.push_back(sig);
  // SIGTERM to both; the one that ignores it gets SIGKILL 5 s later; each then its session's SIGKILL.
  EXPECT_THAT(sent, ElementsAre(SIGTERM, SIGTERM, SIGKILL, SIGKILL, SIGKILL));
  EXPECT_GE(clock_.Elapsed(), absl::Seconds(8));
  EXPECT_THAT(client_.events, ElementsAre("start 0 attempt 1 at 0s on 1", "start 1 attempt 1 at 0s on 1"));
}

TEST_F(JobPoolTest, AClientErrorStopsTheRunningJobsAndIsReturned) {
  runner_.behave = [](const ProcessSpec& spec, FakeRunner::Job& job) {
    if (spec.argv[1] == "1") job.duration = absl::Hours(1);
  };
  client_.fail_on_end = true;
  JobPool pool = Pool(Slots(2));
  pool.Add(0, 1, false);
  pool.Add(1, 1, false);
  absl::Status ran = pool.Run();
  EXPECT_EQ(ran.message(), "cannot record");
  EXPECT_EQ(runner_.Running(), 0);
}

TEST_F(JobPoolTest, RunReturnsOnceTheConditionHoldsAndGoesOnFromThere) {
  runner_.behave = [](const ProcessSpec& spec, FakeRunner::Job& job) {
    if (spec.argv[1] == "1") job.duration = absl::Seconds(30);
  };
  JobPool pool = Pool(Slots(2));
  pool.Add(0, 1, false);
  pool.Add(1, 1, false);
  int ended = 0;
  client_.after = [&](size_t, const PooledJobEnd&) {
    ++ended;
    return PoolClient::After{PoolClient::After::kDone};
  };
  ASSERT_TRUE(pool.Run([&] { return ended > 0; }).ok());
  EXPECT_EQ(ended, 1);
  EXPECT_FALSE(pool.Idle());
  ASSERT_TRUE(pool.Run().ok());
  EXPECT_EQ(ended, 2);
  EXPECT_TRUE(pool.Idle());
}

}  // namespace
}  // namespace gh::driver
