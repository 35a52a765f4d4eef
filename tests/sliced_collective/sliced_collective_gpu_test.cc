// Whole-binary GPU tests of sliced_collective and the device-initiated ring shift on the cuda
// backend, at 1 rank and with 2 ranks sharing the GPU: every device allocator x collective x
// slice is exact against the host reference, planted faults fail on the rank they damage, the
// shipped scenario file's conditional expectations all hold (exit 0), and the device ring shift
// records its bandwidth beside a device-to-device copy. Where no GPU is visible the binary
// prints why and exits 77 (CTest: skipped).
#include <set>
#include <string>

#include "harness/runtime/cuda_resources.h"
#include "tests/common/harness_run.h"

namespace gh::testing {
namespace {

constexpr size_t kGpuPoints = 5 * 3 * 2;  // allocator x collective x slice
constexpr size_t kFaultPoints = 2 * 2;    // collective x fault

void ExpectAllExact(int np) {
  HarnessRun run = RunHarness(np, "scenarios/selftest/sliced_collective_gpu.yaml", "cuda");
  std::vector<Record> records = ReadRecords(run);
  ASSERT_EQ(records.size(), kGpuPoints + kFaultPoints) << run.console;
  EXPECT_EQ(run.exit_code, 0) << run.console;
  const bool shared = np > VisibleGpuCount();
  for (const Record& record : records) {
    if (record.scenario != "sliced_gpu") continue;
    SCOPED_TRACE(record.point);
    EXPECT_EQ(record.backend, "cuda");
    EXPECT_EQ(record.gpu_shared, shared);
    EXPECT_EQ(record.result.outcome, Outcome::kPass) << record.result.signature;
    ASSERT_EQ(record.result.ranks.size(), static_cast<size_t>(np));
    const bool gather = record.params.value("collective", "") == "all_gather";
    const bool dynamic = record.params.value("slice", "") == "dynamic";
    const bool arena = record.params.value("allocator", "") == "arena";
    for (const RankOutcome& rank : record.result.ranks) {
      SCOPED_TRACE(rank.rank);
      EXPECT_EQ(rank.outcome, Outcome::kPass) << rank.signature;
      EXPECT_GE(rank.device, 0);
      // Rows [1, 16) of 256 columns, per rank; all_gather holds every rank's.
      EXPECT_EQ(MetricOr(rank.metrics, "checked_elements", -1), double(15 * 256 * (gather ? np : 1)));
      // offset 256: the arena rounds it up to its 256-byte alignment, the others place it as is.
      EXPECT_EQ(MetricOr(rank.metrics, "buffer_offset_bytes", -1), 256.0) << arena;
      const int64_t first_row = 1 + (dynamic ? rank.rank : 0);
      EXPECT_EQ(MetricOr(rank.metrics, "slice_offset_bytes", -1), double(256 + first_row * 256 * 4));
      EXPECT_GT(MetricOr(rank.metrics, "time_median_us", -1), 0);
    }
  }
}

TEST(SlicedCollectiveGpu, OneRankEveryAllocatorAndCollectiveIsExact) { ExpectAllExact(1); }
TEST(SlicedCollectiveGpu, TwoRanksSharingTheGpuAreExact) { ExpectAllExact(2); }

TEST(SlicedCollectiveGpu, PlantedFaultsFailOnTheRankTheyDamage) {
  HarnessRun run = RunHarness(2, "scenarios/selftest/sliced_collective_gpu.yaml", "cuda");
  for (const Record& record : ExpectedFailuresOf(run, "sliced_gpu_faults", 4u)) {
    SCOPED_TRACE(record.point);
    ASSERT_EQ(record.result.ranks.size(), 2u);
    const std::string fault = record.params.value("fault", "");
    const std::string collective = record.params.value("collective", "");
    for (const RankOutcome& rank : record.result.ranks) {
      // corrupt_element damages rank 0's own output; wrong_slice damages what rank 0 sends:
      // its right neighbour's (ring_shift) or everyone's (all_reduce).
      bool damaged = fault == "corrupt_element" ? rank.rank == 0
                                                : (collective == "all_reduce" || rank.rank == 1);
      EXPECT_EQ(rank.outcome, damaged ? Outcome::kFail : Outcome::kPass) << rank.rank;
      if (!damaged) continue;
      ASSERT_TRUE(rank.mismatch.has_value());
      if (fault == "corrupt_element") {
        EXPECT_EQ(rank.mismatch->wrong_elements, 1);
        EXPECT_EQ(rank.mismatch->first_index, rank.mismatch->checked_elements / 2);
      } else {
        EXPECT_GT(rank.mismatch->wrong_elements, 256);
      }
    }
  }
}

void ExpectShippedExpectationsHold(int np) {
  HarnessRun run = RunHarness(np, "scenarios/sliced_collective.yaml", "cuda");
  std::vector<Record> records = RecordsOfCleanRun(run, 48u + 12u + 6u + 24u);
  for (const Record& record : records) {
    EXPECT_TRUE(record.matched) << record.point << ": observed " << OutcomeName(record.result.outcome)
                                << " '" << record.result.signature << "', expected "
                                << record.expected.ToString();
  }
}

TEST(SlicedCollectiveGpu, ShippedExpectationsHoldAtOneRank) { ExpectShippedExpectationsHold(1); }
TEST(SlicedCollectiveGpu, ShippedExpectationsHoldWithTwoRanksSharing) {
  ExpectShippedExpectationsHold(2);
}

TEST(SlicedCollectiveGpu, DeviceRingShiftRecordsItsBandwidthBesideACopy) {
  HarnessRun run = RunHarness(1, "scenarios/ring_shift_device.yaml", "cuda");
  std::vector<Record> records = RecordsOfCleanRun(run, 5u);
  for (const Record& record : records) {
    SCOPED_TRACE(record.point);
    if (record.result.outcome == Outcome::kSkip) {
      EXPECT_TRUE(record.matched) << record.result.signature;  // e.g. NCCL_CUMEM_ENABLE=0
      continue;
    }
    ASSERT_EQ(record.result.outcome, Outcome::kPass) << record.result.signature;
    const RankOutcome& rank = record.result.ranks.at(0);
    EXPECT_GT(MetricOr(rank.metrics, "bandwidth_GBps", -1), 0);
    EXPECT_GT(MetricOr(rank.metrics, "copy_bandwidth_GBps", -1), 0);
    EXPECT_GT(MetricOr(rank.metrics, "bandwidth_vs_copy", -1), 0);
    EXPECT_GT(MetricOr(rank.metrics, "ctas", -1), 0);
  }
}

}  // namespace
}  // namespace gh::testing

int main(int argc, char** argv) {
  return gh::testing::GpuTestMain(argc, argv, gh::VisibleGpuCount);
}
