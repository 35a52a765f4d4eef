// Whole-binary GPU tests of the collective kind on the cuda backend: at 1 rank and with 2 ranks
// sharing the GPU, every op over several types and sizes, and every reduction over every type,
// passes its device-side check on every rank; a planted corrupt element fails each op on the
// rank that has it with one wrong element at n/2; nccl-tests' options (registration, graph
// replay, aggregation, misalignment, rotation, blocking, split) pass at 1 rank and record their
// statistics; the device-API kernels pass at 1 rank where NCCL offers a one-rank device
// communicator (else the test is skipped with NCCL's reason). Where no GPU is visible the binary prints why and exits 77 (CTest: skipped).
#include <set>
#include <string>

#include "harness/runtime/cuda_resources.h"
#include "tests/common/harness_run.h"

namespace gh::testing {
namespace {

constexpr size_t kOpPoints = 11 * 6 * 2 * 2;   // op x dtype x in_place x bytes
constexpr size_t kReductionPoints = 3 * 12 * 6;  // op x dtype x redop

void ExpectEveryOpExact(int np) {
  HarnessRun run = RunHarness(np, "tests/collective/collective_gpu.yaml", "cuda");
  std::vector<Record> records = RecordsOfCleanRun(run, kOpPoints + kReductionPoints);
  int passed = 0;
  for (const Record& record : records) {
    SCOPED_TRACE(record.point);
    EXPECT_TRUE(record.matched) << record.result.signature;
    EXPECT_EQ(record.backend, "cuda");
    if (record.result.outcome == Outcome::kSkip || record.result.outcome == Outcome::kError) continue;
    ASSERT_NO_FATAL_FAILURE(ExpectPassedOnEveryRank(record, np));
    ++passed;
    for (const RankOutcome& rank : record.result.ranks) {
      EXPECT_GE(rank.device, 0);
      EXPECT_GT(MetricOr(rank.metrics, "checked_elements", -1), 0);
      // hypercube's algbw counts the n-1 blocks received: none at one rank.
      const bool moves_nothing = np == 1 && record.params.value("op", "") == "hypercube";
      EXPECT_EQ(MetricOr(rank.metrics, "algbw_GBps", -1) > 0, !moves_nothing);
      EXPECT_GT(MetricOr(rank.metrics, "time_loop_mean_us", -1), 0);
    }
  }
  // In-place sendrecv/alltoall(v) skip; at one rank NCCL refuses float8 avg and premulsum.
  EXPECT_EQ(passed, int(kOpPoints + kReductionPoints) - 3 * 6 * 2 - (np == 1 ? 3 * 2 * 2 : 0));
}

TEST(CollectiveGpu, OneRankEveryOpAndTypeIsExact) { ExpectEveryOpExact(1); }
TEST(CollectiveGpu, TwoRanksSharingTheGpuAreExact) { ExpectEveryOpExact(2); }

TEST(CollectiveGpu, ACorruptElementFailsEveryOpOnTheGpu) {
  HarnessRun run = RunHarness(2, "tests/collective/collective_gpu_faults.yaml", "cuda");
  std::vector<Record> records = ExpectedFailuresOf(run, "coll_gpu_corrupt", 22u);
  std::set<std::string> ops;
  for (const Record& record : records) {
    SCOPED_TRACE(record.point);
    ops.insert(record.params.value("op", ""));
    ASSERT_EQ(record.result.ranks.size(), 2u);
    EXPECT_EQ(record.result.ranks[0].outcome, Outcome::kPass) << record.result.ranks[0].signature;
    const RankOutcome& bad = record.result.ranks[1];
    ASSERT_EQ(bad.outcome, Outcome::kFail);
    ASSERT_TRUE(bad.mismatch.has_value());
    EXPECT_EQ(bad.mismatch->wrong_elements, 1);
    EXPECT_EQ(bad.mismatch->first_index, bad.mismatch->checked_elements / 2);
    EXPECT_NE(bad.mismatch->expected, bad.mismatch->actual);
  }
  EXPECT_EQ(ops.size(), 11u);
}

TEST(CollectiveGpu, OptionsAndReductionsPassAtOneRank) {
  HarnessRun run = RunHarness(1, "tests/collective/collective_gpu_options.yaml", "cuda");
  std::vector<Record> records = RecordsOfCleanRun(run, 4 * 3 * 2 * 2 * 2 + 2 * 4 * 2);
  for (const Record& record : records) {
    SCOPED_TRACE(record.point);
    ASSERT_NO_FATAL_FAILURE(ExpectPassedOnEveryRank(record, 1));
    // The point's metrics (rank 0's) keep their samples; the ranks' own leave them out.
    const int64_t replays = record.params.value("graph_replays", int64_t{0});
    const Metric* graph = FindMetric(record.result.metrics, "busbw_graph_GBps");
    if (replays > 0) {
      ASSERT_NE(graph, nullptr);
      EXPECT_EQ(graph->samples.size(), size_t(replays));
      EXPECT_GT(MetricOr(record.result.metrics, "time_graph_mean_us", -1), 0);
    } else {
      EXPECT_EQ(graph, nullptr);
    }
  }
}

TEST(CollectiveGpu, DeviceApiKernelsPassAtOneRank) {
  HarnessRun run = RunHarness(1, "tests/collective/collective_gpu_device_api.yaml", "cuda");
  std::vector<Record> records = ReadRecords(run);
  ASSERT_EQ(records.size(), 2u * 4 * 2 * 2) << run.console;
  if (records[0].result.outcome == Outcome::kSkip) {
    // NCCL without a device communicator at one rank (before 2.28.4): every point says so.
    for (const Record& record : records) {
      EXPECT_EQ(record.result.outcome, Outcome::kSkip) << record.point;
      EXPECT_EQ(record.result.signature, records[0].result.signature) << record.point;
    }
    GTEST_SKIP() << records[0].result.signature;
  }
  EXPECT_EQ(run.exit_code, 0) << run.console;
  for (const Record& record : records) {
    SCOPED_TRACE(record.point);
    ASSERT_NO_FATAL_FAILURE(ExpectPassedOnEveryRank(record, 1));
    EXPECT_GT(MetricOr(record.result.ranks[0].metrics, "checked_elements", -1), 0);
  }
}

}  // namespace
}  // namespace gh::testing

int main(int argc, char** argv) {
  return gh::testing::GpuTestMain(argc, argv, gh::VisibleGpuCount);
}
