// Whole-binary tests of `gpuharness run` and `gpuharness list` on the host backend: alone (an
// MPI singleton) and under mpirun at 2 and 4 ranks. Each case runs real jobs and asserts what
// they wrote: records.jsonl record by record and rank by rank, environment.json, junit.xml,
// the exit status and the console.
#include <signal.h>
#include <sys/stat.h>

#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/record.h"
#include "nlohmann/json.hpp"
#include "tests/common/harness_run.h"

namespace gh::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

bool Exists(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0;
}

std::string Selftest(const std::string& name) {
  return std::string(GH_SOURCE_DIR) + "/scenarios/selftest/" + name;
}

using Job = HarnessRun;

Job RunJob(int np, const std::string& args) {
  return RunHarness(ArgsOptions(np, args, GH_MPIRUN_BIN));
}

class RunHost : public ::testing::TestWithParam<int> {
 protected:
  int np() const { return GetParam(); }
  std::string Np() const { return "/np=" + std::to_string(np()); }
  int fault_rank() const { return np() > 1 ? 1 : 0; }
};

INSTANTIATE_TEST_SUITE_P(Ranks, RunHost, ::testing::Values(1, 2, 4),
                         [](const auto& info) { return "np" + std::to_string(info.param); });

TEST_P(RunHost, EveryTransportDtypeAndSizePassesWithMetrics) {
  const Job job = RunJob(np(), "run " + Selftest("ring_shift_host.yaml") + " --out {out}");
  EXPECT_EQ(job.exit_code, 0) << job.console;
  const std::vector<Record> records = ReadRecords(job);
  ASSERT_EQ(records.size(), 24u) << job.console;  // 2 transports x 4 dtypes x 3 sizes
  const std::set<std::string> points = PointsOf(records, "ring_shift", "host", np());
  for (const Record& record : records) {
    SCOPED_TRACE(record.point);
    EXPECT_EQ(record.scenario, "selftest_ring_host");
    EXPECT_EQ(record.trials, 1);
    EXPECT_FALSE(record.gpu_shared);
    EXPECT_EQ(record.expected.outcome, Outcome::kPass);
    EXPECT_GT(record.duration_s, 0);
    EXPECT_THAT(record.started_at, ::testing::EndsWith("Z"));
    const int64_t bytes = record.params.at("bytes").get<int64_t>();
    EXPECT_TRUE(bytes == 8 || bytes == 4096 || bytes == 100008) << bytes;
    EXPECT_EQ(record.params.at("fault").get<std::string>(), "none");
    ASSERT_NO_FATAL_FAILURE(ExpectPassedOnEveryRank(record, np()));
    for (const RankOutcome& rank : record.result.ranks) {
      EXPECT_EQ(rank.device, -1);
      EXPECT_FALSE(rank.host.empty());
      EXPECT_EQ(MetricOr(rank.metrics, "iterations", -1), 3);
      EXPECT_GT(MetricOr(rank.metrics, "bandwidth_GBps", -1), 0);
      EXPECT_GT(MetricOr(rank.metrics, "time_median_us", -1), 0);
    }
    EXPECT_NE(FindMetric(record.result.metrics, "bandwidth_GBps"), nullptr);
  }
  EXPECT_EQ(points.size(), 24u);
  EXPECT_EQ(points.count("selftest_ring_host/bytes=100008/dtype=bf16/transport=mpi_put" + Np()), 1u);
  EXPECT_EQ(points.count("selftest_ring_host/bytes=4K/dtype=f64/transport=mpi_p2p" + Np()), 1u);

  const nlohmann::json env =
      nlohmann::json::parse(ReadWholeFile(job.out_dir + "/environment.json"), nullptr, false);
  ASSERT_FALSE(env.is_discarded());
  EXPECT_EQ(env.value("backend", ""), "host");
  EXPECT_EQ(env.value("nranks", 0), np());
  ASSERT_TRUE(env.contains("hosts"));
  EXPECT_EQ(env["hosts"].size(), static_cast<size_t>(np()));
  EXPECT_THAT(env.value("mpi_library", ""), HasSubstr("MPI"));
  const std::string junit = ReadWholeFile(job.out_dir + "/junit.xml");
  EXPECT_THAT(junit, HasSubstr("tests=\"24\""));
  EXPECT_THAT(job.console, HasSubstr("[24/24] selftest_ring_host/"));
  EXPECT_THAT(job.console, HasSubstr(job.out_dir + "/records.jsonl"));
}

TEST_P(RunHost, PlantedWrongDataFailsOnTheFaultRankWithFirstIndex) {
  const Job job = RunJob(np(), "run " + Selftest("ring_shift_data_faults.yaml") + " --out {out}");
  EXPECT_EQ(job.exit_code, 0) << "every `expect: fail` was met\n" << job.console;
  const std::vector<Record> records = ReadRecords(job);
  ASSERT_EQ(records.size(), 10u) << job.console;  // corrupt 2x3, stale 2, partial 2
  for (const Record& record : records) {
    SCOPED_TRACE(record.point);
    EXPECT_EQ(record.result.outcome, Outcome::kFail);
    EXPECT_TRUE(record.matched);
    ASSERT_EQ(record.result.ranks.size(), static_cast<size_t>(np()));
    for (int r = 0; r < np(); ++r) {
      if (r != fault_rank()) {
        EXPECT_EQ(record.result.ranks[r].outcome, Outcome::kPass) << r;
      }
    }
    const RankOutcome& bad = record.result.ranks[fault_rank()];
    EXPECT_EQ(bad.outcome, Outcome::kFail);
    EXPECT_EQ(bad.step, "verify");
    ASSERT_TRUE(bad.mismatch.has_value());
    const std::string dtype = record.params.at("dtype").get<std::string>();
    const int64_t count = 4096 / (dtype == "bf16" ? 2 : 4);
    EXPECT_EQ(bad.mismatch->checked_elements, count);
    int64_t wrong = 0, first = 0;
    if (record.scenario == "selftest_ring_corrupt") {
      wrong = 1;
      first = count / 2;
    } else if (record.scenario == "selftest_ring_stale") {
      wrong = count;  // every element is from an older seed
      first = 0;
    } else {
      ASSERT_EQ(record.scenario, "selftest_ring_partial");
      wrong = count - count / 2;  // the unwritten second half still holds the poison
      first = count / 2;
      EXPECT_EQ(bad.mismatch->actual, "-2.87351825e-16 (0xa5a5a5a5)");
    }
    EXPECT_EQ(bad.mismatch->wrong_elements, wrong);
    EXPECT_EQ(bad.mismatch->first_index, first);
    EXPECT_NE(bad.mismatch->expected, bad.mismatch->actual);
    EXPECT_THAT(bad.mismatch->expected, HasSubstr(" (0x"));
    std::string signature = std::to_string(wrong) + " of " + std::to_string(count) +
                            " elements wrong, first at " + std::to_string(first);
    if (np() > 1) signature += " [ranks " + std::to_string(fault_rank()) + "]";
    EXPECT_EQ(record.result.signature, signature);
  }
}

TEST_P(RunHost, FilterRunsOnlyMatchingPoints) {
  const Job job = RunJob(np(), "run " + Selftest("ring_shift_host.yaml") +
                                " --out {out} --filter '*/bytes=4K/dtype=bf16/*'");
  EXPECT_EQ(job.exit_code, 0) << job.console;
  const std::vector<Record> records = ReadRecords(job);
  ASSERT_EQ(records.size(), 2u) << job.console;
  EXPECT_EQ(records[0].point, "selftest_ring_host/bytes=4K/dtype=bf16/transport=mpi_p2p" + Np());
  EXPECT_EQ(records[1].point, "selftest_ring_host/bytes=4K/dtype=bf16/transport=mpi_put" + Np());
}

TEST(RunHostSkips, RankRequirementSkipsWithTheReason) {
  const Job job = RunJob(2, "run " + Selftest("ring_shift_needs_4.yaml") + " --out {out}");
  EXPECT_EQ(job.exit_code, 1) << "a skip does not meet `pass`\n" << job.console;
  const std::vector<Record> records = ReadRecords(job);
  ASSERT_EQ(records.size(), 2u);
  for (const Record& record : records) {
    EXPECT_EQ(record.result.outcome, Outcome::kSkip);
    EXPECT_EQ(record.result.signature, "needs 4 ranks, job has 2");
    EXPECT_FALSE(record.matched);
    EXPECT_TRUE(record.result.ranks.empty());
  }
}

class RunHostFaults : public ::testing::TestWithParam<int> {
 protected:
  int np() const { return GetParam(); }
};

INSTANTIATE_TEST_SUITE_P(Ranks, RunHostFaults, ::testing::Values(2, 4),
                         [](const auto& info) { return "np" + std::to_string(info.param); });

TEST_P(RunHostFaults, StalledRankEndsAsTimeoutNamingItsStepAndTheJobEnds) {
  const Job job = RunJob(np(), "run " + Selftest("ring_shift_stall.yaml") + " --out {out}");
  // The 3 s timeout, at most 2 s of grace, MPI_Abort: a bound with a wide margin for a
  // loaded machine. Without the watchdog the job would sleep 33 s and then hang.
  EXPECT_LT(job.seconds, 3 + 20) << job.console;
  EXPECT_EQ(job.exit_code, 1) << "the points after the timeout did not run\n" << job.console;
  const std::vector<Record> records = ReadRecords(job);
  ASSERT_EQ(records.size(), 4u) << job.console;
  const std::string np_suffix = "/np=" + std::to_string(np());
  const Record& timeout = records[0];
  EXPECT_EQ(timeout.point, "selftest_ring_stall/bytes=4K/fault=stall/fault_rank=1" + np_suffix);
  EXPECT_EQ(timeout.result.outcome, Outcome::kTimeout);
  EXPECT_TRUE(timeout.matched) << timeout.result.signature;
  EXPECT_THAT(timeout.result.signature, StartsWith("timeout after 3s in step 'exchange' [ranks "));
  ASSERT_EQ(timeout.result.ranks.size(), static_cast<size_t>(np()));
  for (int r = 0; r < np(); ++r) {
    EXPECT_EQ(timeout.result.ranks[r].rank, r);
    EXPECT_EQ(timeout.result.ranks[r].outcome, Outcome::kTimeout);
  }
  EXPECT_EQ(timeout.result.ranks[1].step, "exchange");
  EXPECT_EQ(timeout.result.ranks[1].signature, "in step 'exchange'");
  EXPECT_GE(timeout.duration_s, 3.0);
  for (size_t i = 1; i < records.size(); ++i) {
    EXPECT_EQ(records[i].result.outcome, Outcome::kSkip);
    EXPECT_EQ(records[i].result.signature,
              "not run: job aborted after a timeout in " + timeout.point);
    EXPECT_FALSE(records[i].matched);
  }
  EXPECT_EQ(records[3].point, "selftest_ring_stall/bytes=8K/fault=none/fault_rank=1" + np_suffix);
  EXPECT_THAT(ReadWholeFile(job.out_dir + "/junit.xml"), HasSubstr("tests=\"4\""));
}

TEST_P(RunHostFaults, AnExpectedTimeoutWithNothingAfterItExitsZero) {
  const Job job = RunJob(np(), "run " + Selftest("ring_shift_stall.yaml") +
                                   " --out {out} --filter '*/bytes=4K/fault=stall/*'");
  EXPECT_EQ(job.exit_code, 0) << "the only record met `expect: timeout`\n" << job.console;
  const std::vector<Record> records = ReadRecords(job);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].result.outcome, Outcome::kTimeout);
  EXPECT_TRUE(records[0].matched);
}

TEST_P(RunHostFaults, CrashingRankLeavesACrashRecordAndWholeLines) {
  const Job job = RunJob(np(), "run " + Selftest("ring_shift_crash.yaml") + " --out {out}");
  EXPECT_NE(job.exit_code, 0) << job.console;
  EXPECT_LT(job.seconds, 60) << job.console;
  const std::vector<Record> records = ReadRecords(job);  // asserts no torn line
  ASSERT_EQ(records.size(), 2u) << job.console;
  EXPECT_EQ(records[0].result.outcome, Outcome::kPass);
  const Record& crash = records[1];
  EXPECT_EQ(crash.point, "selftest_ring_crash/bytes=4K/fault=crash/fault_rank=1/np=" + std::to_string(np()));
  EXPECT_EQ(crash.result.outcome, Outcome::kCrash);
  EXPECT_EQ(crash.result.signature, "SIGSEGV on rank 1 in step 'exchange'");
  EXPECT_TRUE(crash.matched);
  ASSERT_EQ(crash.result.ranks.size(), static_cast<size_t>(np()));
  EXPECT_EQ(crash.result.ranks[1].signature, "SIGSEGV in step 'exchange'");
  EXPECT_EQ(crash.result.ranks[1].step, "exchange");
  EXPECT_THAT(crash.result.ranks[0].signature, StartsWith("no crash report ("));
}

TEST(RunSingleton, CrashOfTheOnlyRankIsRecorded) {
  const Job job = RunJob(1, "run " + Selftest("ring_shift_crash.yaml") + " --out {out}");
  EXPECT_EQ(job.exit_code, 128 + SIGSEGV) << job.console;
  const std::vector<Record> records = ReadRecords(job);
  ASSERT_EQ(records.size(), 2u) << job.console;
  EXPECT_EQ(records[1].result.outcome, Outcome::kCrash);
  EXPECT_EQ(records[1].result.signature, "SIGSEGV on rank 0 in step 'exchange'");
  EXPECT_EQ(records[1].result.ranks.size(), 1u);
}

TEST(RunSingleton, StallOfTheOnlyRankTimesOut) {
  const Job job = RunJob(1, "run " + Selftest("ring_shift_stall.yaml") + " --out {out}");
  EXPECT_LT(job.seconds, 3 + 20) << job.console;
  const std::vector<Record> records = ReadRecords(job);
  ASSERT_EQ(records.size(), 4u) << job.console;
  EXPECT_EQ(records[0].result.outcome, Outcome::kTimeout);
  EXPECT_EQ(records[0].result.signature, "timeout after 3s in step 'exchange' [ranks 0]");
}

TEST(RunBadInput, BadYamlExitsTwoNamingFileLineColumnAndKeyWritingNothing) {
  for (int np : {1, 2}) {
    const Job job = RunJob(np, "run " + Selftest("ring_shift_bad_bytes.yaml") + " --out {out}");
    EXPECT_EQ(job.exit_code, 2) << job.console;
    EXPECT_THAT(job.console, HasSubstr("ring_shift_bad_bytes.yaml:7:15: params.bytes[1]: "));
    EXPECT_THAT(job.console, HasSubstr("lots"));
    EXPECT_FALSE(Exists(job.out_dir)) << "bad input must write nothing";
  }
}

TEST(RunBadInput, MissingFileAndBadFlagsExitTwo) {
  Job job = RunJob(1, "run /nonexistent/scenario.yaml --out {out}");
  EXPECT_EQ(job.exit_code, 2);
  EXPECT_THAT(job.console, HasSubstr("/nonexistent/scenario.yaml"));
  EXPECT_FALSE(Exists(job.out_dir));
  job = RunJob(1, "run " + Selftest("ring_shift_host.yaml") + " --out {out} --backend gpu");
  EXPECT_EQ(job.exit_code, 2);
  EXPECT_THAT(job.console, HasSubstr("--backend: expected auto, host or cuda, got 'gpu'"));
  job = RunJob(1, "run " + Selftest("ring_shift_host.yaml"));
  EXPECT_EQ(job.exit_code, 2);
  EXPECT_THAT(job.console, HasSubstr("--out DIR is required"));
  job = RunJob(1, "run " + Selftest("ring_shift_host.yaml") + " --out {out} --frobnicate");
  EXPECT_EQ(job.exit_code, 2);
  EXPECT_THAT(job.console, HasSubstr("gpuharness run: unknown flag --frobnicate\n"));
  job = RunJob(2, "run " + Selftest("ring_shift_host.yaml") + " --out {out} --filter 'nothing*'");
  EXPECT_EQ(job.exit_code, 2);
  EXPECT_THAT(job.console, HasSubstr("--filter 'nothing*' matches no point"));
  EXPECT_FALSE(Exists(job.out_dir));
}

TEST(RunBadInput, BackendCudaWithoutAGpuExitsTwoWithTheReason) {
  if (Exists("/dev/nvidia0")) GTEST_SKIP() << "a GPU is visible here";
  const Job job = RunJob(2, "run " + Selftest("ring_shift_host.yaml") + " --out {out} --backend cuda");
  EXPECT_EQ(job.exit_code, 2) << job.console;
  EXPECT_THAT(job.console, HasSubstr("--backend cuda: "));
  EXPECT_TRUE(job.console.find("built without the cuda backend") != std::string::npos ||
              job.console.find("no GPU is visible to rank 0") != std::string::npos)
      << job.console;
  EXPECT_FALSE(Exists(job.out_dir));
}

TEST(RunInfrastructure, UnwritableResultsDirExitsThree) {
  const Job job = RunJob(2, "run " + Selftest("ring_shift_host.yaml") + " --out /proc/gh_results");
  EXPECT_EQ(job.exit_code, 3) << job.console;
  EXPECT_THAT(job.console, HasSubstr("cannot write results to /proc/gh_results"));
}

TEST(RunMultiNode, LocalRanksFollowHostNames) {
  // Two "nodes" of two ranks each, told apart by GH_HOSTNAME (mpirun's MPMD form).
  const std::string args = "run " + Selftest("ring_shift_needs_4.yaml") + " --out {out}";
  HarnessOptions options = ArgsOptions(
      2, args + " : -np 2 -x GH_HOSTNAME=node-b " + GH_GPUHARNESS_BIN + " " + args, GH_MPIRUN_BIN);
  options.mpirun_env = {"GH_HOSTNAME=node-a"};
  const Job job = RunHarness(options);
  EXPECT_EQ(job.exit_code, 0) << job.console;
  const nlohmann::json env =
      nlohmann::json::parse(ReadWholeFile(job.out_dir + "/environment.json"), nullptr, false);
  ASSERT_FALSE(env.is_discarded()) << job.console;
  EXPECT_EQ(env["hosts"], nlohmann::json({"node-a", "node-a", "node-b", "node-b"}));
  EXPECT_EQ(env["local_ranks"], nlohmann::json({0, 1, 0, 1}));
  const std::vector<Record> records = ReadRecords(job);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].result.outcome, Outcome::kPass);
  EXPECT_EQ(records[0].result.ranks[3].host, "node-b");
}

TEST(List, PrintsEveryKindWithParamsAndBackendsDeterministically) {
  const Job first = RunJob(1, "list");
  EXPECT_EQ(first.exit_code, 0);
  EXPECT_THAT(first.console, HasSubstr("ring_shift\n"));
  EXPECT_THAT(first.console, HasSubstr("  backends: host"));
  EXPECT_THAT(first.console, HasSubstr("    bytes        bytes  default 1M; 4..16G\n"));
  EXPECT_THAT(first.console,
              HasSubstr("    dtype        enum   default f32; one of f32, bf16, i32, f64\n"));
  EXPECT_THAT(first.console, HasSubstr("    fault_rank   int    default 1; >= 0\n"));
  const Job second = RunJob(1, "list");
  EXPECT_EQ(first.console, second.console);
  const Job unknown = RunJob(1, "list no_such_kind");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.console, HasSubstr("unknown kind 'no_such_kind'"));
}

}  // namespace
}  // namespace gh::testing
