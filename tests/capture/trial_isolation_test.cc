// Whole-binary tests of isolated trials on the host backend (no GPU): every trial of an
// isolation_selftest point runs in its own `gpuharness trial-worker` child. A crash, a hang past
// the timeout, or an exit without an outcome is that trial's record, and the other trials of
// the point (and the points after it) are all recorded as they ran. Also: background_capture
// on the host backend is a skip with the reason.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/common/harness_run.h"

namespace gh::testing {
namespace {

std::map<std::string, std::vector<Record>> ByScenario(const std::vector<Record>& records) {
  std::map<std::string, std::vector<Record>> by;
  for (const Record& r : records) by[r.scenario].push_back(r);
  return by;
}

double WorkerPid(const Record& r) {
  const Metric* pid = FindMetric(r.result.metrics, "worker_pid");
  return pid != nullptr ? pid->value : -1;
}

void ExpectIsolatedTrials(int np) {
  HarnessRun run = RunHarness(np, "scenarios/selftest/trial_isolation.yaml", "host");
  const std::vector<Record> records = RecordsOfCleanRun(run, 4u + 3 + 3 + 4 + 3);
  auto by = ByScenario(records);

  // A SIGSEGV in trial 1 of 4: trials 0, 2 and 3 ran and passed, each in its own process.
  const auto& crash = by["isolation_crash"];
  ASSERT_EQ(crash.size(), 4u);
  std::set<double> pids;
  for (int t = 0; t < 4; ++t) {
    SCOPED_TRACE(t);
    EXPECT_EQ(crash[t].trial, t);
    EXPECT_EQ(crash[t].trials, 4);
    EXPECT_EQ(crash[t].description, "a SIGSEGV in trial 2 of 4");
    ASSERT_EQ(crash[t].result.ranks.size(), static_cast<size_t>(np));
    if (t == 1) {
      EXPECT_EQ(crash[t].result.outcome, Outcome::kCrash);
      for (const RankOutcome& r : crash[t].result.ranks) {
        EXPECT_EQ(r.outcome, Outcome::kCrash);
        EXPECT_EQ(r.signature, "SIGSEGV in isolated trial 1");
        EXPECT_EQ(r.step, "isolated trial");
      }
    } else {
      EXPECT_EQ(crash[t].result.outcome, Outcome::kPass) << crash[t].result.signature;
      const double pid = WorkerPid(crash[t]);
      EXPECT_GT(pid, 0);
      pids.insert(pid);
    }
  }
  EXPECT_EQ(pids.size(), 3u) << "each trial must run in a fresh process";

  // A hang in trial 0 is killed at the 2 s timeout; trials 1 and 2 still pass.
  const auto& hang = by["isolation_hang"];
  ASSERT_EQ(hang.size(), 3u);
  EXPECT_EQ(hang[0].result.outcome, Outcome::kTimeout);
  EXPECT_EQ(hang[0].result.ranks[0].signature,
            "timeout after 2s in trial 0 (isolated worker killed)");
  EXPECT_GE(hang[0].duration_s, 2.0);
  EXPECT_LT(hang[0].duration_s, 10.0);
  EXPECT_EQ(hang[1].result.outcome, Outcome::kPass);
  EXPECT_EQ(hang[2].result.outcome, Outcome::kPass);

  // An exit without an outcome is a crash of that trial only.
  const auto& exited = by["isolation_exit"];
  ASSERT_EQ(exited.size(), 3u);
  EXPECT_EQ(exited[0].result.outcome, Outcome::kPass);
  EXPECT_EQ(exited[1].result.outcome, Outcome::kPass);
  EXPECT_EQ(exited[2].result.outcome, Outcome::kCrash);
  EXPECT_EQ(exited[2].result.ranks[0].signature,
            "isolated trial 2 exited with status 7 without an outcome");

  // 1 failed trial of 4 is not above a 0.3 failure rate: the point meets `pass` as a whole,
  // although its failed trial on its own does not.
  const auto& rate = by["isolation_rate"];
  ASSERT_EQ(rate.size(), 4u);
  EXPECT_EQ(rate[3].result.outcome, Outcome::kFail);
  EXPECT_EQ(rate[3].result.ranks[0].signature, "planted failure in trial 3");
  EXPECT_FALSE(rate[3].matched);
  EXPECT_EQ(rate[3].verdict.kind, TrialVerdictRule::Kind::kFailureRateAbove);
  EXPECT_DOUBLE_EQ(rate[3].verdict.threshold, 0.3);

  for (const Record& r : by["isolation_clean"]) EXPECT_EQ(r.result.outcome, Outcome::kPass);

  // The console reads like the seed's table.
  EXPECT_NE(run.console.find("a SIGSEGV in trial 2 of 4 (isolation_crash/fault=crash/"
                             "fault_trial=1/np=" + std::to_string(np) +
                             ") — 4 trials, 1 failed (1 crash); expected crash ~ "
                             "/^SIGSEGV in isolated trial 1$/ by any_failure"),
            std::string::npos)
      << run.console;
  EXPECT_NE(run.console.find("4 trials, 1 failed (1 planted); expected pass by "
                             "failure_rate_above 0.3"),
            std::string::npos)
      << run.console;
}

TEST(TrialIsolation, CrashHangAndExitStayInTheirTrialAlone) { ExpectIsolatedTrials(1); }
TEST(TrialIsolation, CrashHangAndExitStayInTheirTrialAtTwoRanks) { ExpectIsolatedTrials(2); }

TEST(TrialIsolation, RateVerdictUnmetExitsOne) {
  // Without a rate rule the same single failure fails the point (any_failure): exit 1.
  HarnessRun run = RunHarness(1, "tests/capture/any_failure_unmet.yaml", "host");
  EXPECT_EQ(run.exit_code, 1) << run.console;
  const std::vector<Record> records = ReadRecords(run);
  ASSERT_EQ(records.size(), 4u);
  EXPECT_NE(run.console.find("✗ isolation_any/fault=fail/fault_trial=3/np=1 — "
                             "4 trials, 1 failed (1 planted); expected pass by any_failure"),
            std::string::npos)
      << run.console;
}

TEST(BackgroundCaptureHost, IsASkipWithTheReason) {
  HarnessRun run = RunHarness(1, "scenarios/background_capture.yaml", "host");
  EXPECT_EQ(run.exit_code, 0) << run.console;  // the file expects the skip on host
  const std::vector<Record> records = ReadRecords(run);
  ASSERT_FALSE(records.empty());
  for (const Record& r : records) {
    SCOPED_TRACE(r.point);
    EXPECT_EQ(r.kind, "background_capture");
    EXPECT_EQ(r.result.outcome, Outcome::kSkip);
    EXPECT_EQ(r.result.signature, "kind background_capture has no host backend");
  }
}

}  // namespace
}  // namespace gh::testing
