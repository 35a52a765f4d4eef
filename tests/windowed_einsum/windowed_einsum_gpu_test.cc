// Whole-binary GPU tests of windowed_einsum on the cuda backend: at 1 rank and with 2 and 4
// ranks sharing the GPU (sockets), every variant, dtype and layer count passes with its
// metrics, shared-GPU timings are flagged and never reported as overlap, and planted faults are
// caught. Where no GPU is visible the binary prints why and exits 77 (CTest: skipped).
#include <set>
#include <string>

#include "harness/runtime/cuda_resources.h"
#include "tests/common/harness_run.h"
#include "tests/windowed_einsum/output_elements.h"

namespace gh::testing {
namespace {

// 3 variants x m_shard {256, 100} x n_shard {256, 72} x dtype {bf16, f32} x layers {1, 2}.
constexpr size_t kGpuPoints = 48;

void ExpectAllPass(int np) {
  HarnessRun run = RunHarness(np, "scenarios/selftest/windowed_einsum_gpu.yaml", "cuda");
  std::vector<Record> records = RecordsOfCleanRun(run, kGpuPoints);
  const bool shared = np > VisibleGpuCount();
  for (const Record& record : records) {
    SCOPED_TRACE(record.point);
    EXPECT_EQ(record.backend, "cuda");
    EXPECT_EQ(record.nranks, np);
    EXPECT_EQ(record.gpu_shared, shared);
    EXPECT_EQ(record.result.outcome, Outcome::kPass) << record.result.signature;
    ASSERT_EQ(record.result.ranks.size(), static_cast<size_t>(np));
    const bool monolithic = record.params.value("variant", "") == "monolithic";
    for (const RankOutcome& rank : record.result.ranks) {
      SCOPED_TRACE(rank.rank);
      EXPECT_EQ(rank.outcome, Outcome::kPass) << rank.signature;
      EXPECT_EQ(MetricOr(rank.metrics, "checked_elements", -1),
                static_cast<double>(OutputElements(record)));
      for (const char* name : {"reference_checked_elements", "time_median_us", "tflops",
                               "monolithic_time_median_us", "gemm_only_time_median_us",
                               "gemm_step_tflops"}) {
        EXPECT_GT(MetricOr(rank.metrics, name, -1), 0) << name;
      }
      EXPECT_EQ(MetricOr(rank.metrics, "gpu_shared", -1), shared ? 1.0 : 0.0);
      // Overlap results only where each rank has its own GPU.
      EXPECT_EQ(FindMetric(rank.metrics, "speedup_vs_monolithic") != nullptr, !shared);
      EXPECT_EQ(FindMetric(rank.metrics, "overlap_efficiency") != nullptr,
                !shared && !monolithic && np > 1);
      const Metric* bitwise = FindMetric(rank.metrics, "bitwise_required");
      const Metric* bits = FindMetric(rank.metrics, "bit_mismatches_vs_monolithic");
      ASSERT_NE(bitwise, nullptr);
      ASSERT_NE(bits, nullptr);
      if (bitwise->value == 1.0) {
        EXPECT_EQ(bits->value, 0);
      }
    }
  }
}

TEST(WindowedEinsumGpu, OneRankEveryVariantPasses) { ExpectAllPass(1); }
TEST(WindowedEinsumGpu, TwoRanksSharingTheGpuPass) { ExpectAllPass(2); }
TEST(WindowedEinsumGpu, FourRanksSharingTheGpuPass) { ExpectAllPass(4); }

TEST(WindowedEinsumGpu, PlantedFaultsFailOnTheRanksTheyDamage) {
  HarnessRun run = RunHarness(2, "scenarios/selftest/windowed_einsum_gpu_faults.yaml", "cuda");
  EXPECT_EQ(run.exit_code, 0) << run.console;
  std::vector<Record> records = ReadRecords(run);
  ASSERT_EQ(records.size(), 4u) << run.console;  // {corrupt, stale} x {windowed, multistream}
  for (const Record& record : records) {
    SCOPED_TRACE(record.point);
    EXPECT_EQ(record.result.outcome, Outcome::kFail);
    EXPECT_TRUE(record.matched);
    ASSERT_EQ(record.result.ranks.size(), 2u);
    EXPECT_EQ(record.result.ranks[0].outcome, Outcome::kPass);
    const RankOutcome& bad = record.result.ranks[1];
    EXPECT_EQ(bad.outcome, Outcome::kFail);
    ASSERT_TRUE(bad.mismatch.has_value());
    const int64_t elements = 2 * 128 * 128;
    EXPECT_EQ(bad.mismatch->checked_elements, elements);
    if (record.scenario == "einsum_gpu_corrupt") {
      EXPECT_EQ(bad.mismatch->wrong_elements, 1);
      EXPECT_EQ(bad.mismatch->first_index, elements / 2);
    } else {
      // Rank 1 computed block 0 on its own shard: block 0's rows, nearly all wrong.
      EXPECT_EQ(record.scenario, "einsum_gpu_stale");
      EXPECT_LT(bad.mismatch->first_index, elements / 2);
      EXPECT_GT(bad.mismatch->wrong_elements, elements / 2 * 9 / 10);
      EXPECT_LE(bad.mismatch->wrong_elements, elements / 2);
    }
  }
}

}  // namespace
}  // namespace gh::testing

int main(int argc, char** argv) {
  return gh::testing::GpuTestMain(argc, argv, gh::VisibleGpuCount);
}
