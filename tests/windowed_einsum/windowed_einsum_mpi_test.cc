// Whole-binary tests of windowed_einsum on the host backend under mpirun at 2, 3 and 4 ranks:
// the window schedule end to end, exact (bitwise) checks, planted faults caught on exactly the
// ranks and rows they damage, and skips with their reasons. Records are asserted rank by rank.
#include <set>
#include <string>

#include "tests/common/harness_run.h"
#include "tests/windowed_einsum/output_elements.h"

namespace gh::testing {
namespace {

// 3 variants x m_shard {3, 8} x dtype {f32, bf16} x layers {1, 2} (scenarios/selftest).
constexpr size_t kHostPoints = 24;

void ExpectAllPass(int np) {
  HarnessRun run = RunHarness(np, "scenarios/selftest/windowed_einsum_host.yaml", "host");
  std::vector<Record> records = RecordsOfCleanRun(run, kHostPoints);
  const std::set<std::string> points = PointsOf(records, "windowed_einsum", "host", np);
  for (const Record& record : records) {
    SCOPED_TRACE(record.point);
    ASSERT_NO_FATAL_FAILURE(ExpectPassedOnEveryRank(record, np));
    for (const RankOutcome& rank : record.result.ranks) {
      EXPECT_EQ(MetricOr(rank.metrics, "checked_elements", -1),
                static_cast<double>(OutputElements(record)));
      EXPECT_GT(MetricOr(rank.metrics, "time_median_us", -1), 0);
      EXPECT_EQ(MetricOr(rank.metrics, "iterations", -1), 2);
      const bool monolithic = record.params.value("variant", "") == "monolithic";
      EXPECT_EQ(FindMetric(rank.metrics, "speedup_vs_monolithic") != nullptr, !monolithic);
    }
  }
  EXPECT_EQ(points.size(), kHostPoints);
  const std::string np_suffix = "/np=" + std::to_string(np);
  EXPECT_EQ(points.count("einsum_host/variant=windowed_multistream/m_shard=3/n_shard=5/k=7/dtype=bf16/layers=2" +
                         np_suffix), 1u);
  EXPECT_EQ(points.count("einsum_host/variant=monolithic/m_shard=8/n_shard=5/k=7/dtype=f32/layers=1" + np_suffix),
            1u);
}

TEST(WindowedEinsumHost, EveryVariantIsExactAtTwoRanks) { ExpectAllPass(2); }
TEST(WindowedEinsumHost, EveryVariantIsExactAtThreeRanks) { ExpectAllPass(3); }
TEST(WindowedEinsumHost, EveryVariantIsExactAtFourRanks) { ExpectAllPass(4); }

TEST(WindowedEinsumHost, CorruptOutputFailsOnThatRankWithOneWrongElement) {
  HarnessRun run = RunHarness(3, "scenarios/selftest/windowed_einsum_faults.yaml", "host");
  EXPECT_EQ(run.exit_code, 0) << run.console;  // every `expect` was met
  for (const Record& record : ExpectedFailuresOf(run, "einsum_corrupt", 3u)) {
    SCOPED_TRACE(record.point);
    EXPECT_NE(record.result.signature.find("[ranks 1]"), std::string::npos)
        << record.result.signature;
    ASSERT_EQ(record.result.ranks.size(), 3u);
    EXPECT_EQ(record.result.ranks[0].outcome, Outcome::kPass);
    EXPECT_EQ(record.result.ranks[2].outcome, Outcome::kPass);
    const RankOutcome& bad = record.result.ranks[1];
    EXPECT_EQ(bad.outcome, Outcome::kFail);
    EXPECT_EQ(bad.signature, record.params.value("variant", "") +
                                 " output differs from the reference");
    ASSERT_TRUE(bad.mismatch.has_value());
    const int64_t elements = 3 * 4 * 6;  // tp * m_shard x n_shard
    EXPECT_EQ(bad.mismatch->wrong_elements, 1);
    EXPECT_EQ(bad.mismatch->checked_elements, elements);
    EXPECT_EQ(bad.mismatch->first_index, elements / 2);
    // Integer data: the corrupted value is the right one plus one.
    EXPECT_EQ(std::stod(bad.mismatch->actual), std::stod(bad.mismatch->expected) + 1);
  }
}

// The stale window damages exactly the rows of the shard the faulty rank should have held at
// step 1, on that rank and (forwarded) on the next one; nowhere else.
TEST(WindowedEinsumHost, StaleWindowFailsOnTheRanksAndRowsTheScheduleDamages) {
  for (int np : {2, 3}) {
    HarnessRun run = RunHarness(np, "scenarios/selftest/windowed_einsum_faults.yaml", "host");
    EXPECT_EQ(run.exit_code, 0) << run.console;
    const std::vector<Record> stale = RecordsOf(ReadRecords(run), "einsum_stale");
    EXPECT_EQ(stale.size(), 2u * 2 * 2);  // variant x dtype x fault_rank
    for (const Record& record : stale) {
      SCOPED_TRACE(record.point);
      EXPECT_TRUE(record.matched) << record.result.signature;
      const int fault_rank = static_cast<int>(record.params.value("fault_rank", int64_t{-1}));
      if (fault_rank >= np) {
        EXPECT_EQ(record.result.outcome, Outcome::kSkip);
        continue;
      }
      EXPECT_EQ(record.result.outcome, Outcome::kFail);
      std::set<int> damaged = {fault_rank};
      if (np >= 3) damaged.insert((fault_rank + 1) % np);
      const int64_t block_elements = 4 * 6;  // m_shard x n_shard
      const int64_t damaged_block = (fault_rank - 1 + np) % np;
      ASSERT_EQ(record.result.ranks.size(), static_cast<size_t>(np));
      for (const RankOutcome& rank : record.result.ranks) {
        SCOPED_TRACE(rank.rank);
        if (!damaged.count(rank.rank)) {
          EXPECT_EQ(rank.outcome, Outcome::kPass);
          continue;
        }
        EXPECT_EQ(rank.outcome, Outcome::kFail);
        ASSERT_TRUE(rank.mismatch.has_value());
        EXPECT_EQ(rank.mismatch->first_index / block_elements, damaged_block);
        EXPECT_GT(rank.mismatch->wrong_elements, block_elements / 2);
        EXPECT_LE(rank.mismatch->wrong_elements, block_elements);
      }
    }
  }
}

TEST(WindowedEinsumHost, InexactSizesAreSkippedWithTheReason) {
  HarnessRun run = RunHarness(2, "scenarios/selftest/windowed_einsum_host_skip.yaml", "host");
  EXPECT_EQ(run.exit_code, 0) << run.console;
  std::vector<Record> records = ReadRecords(run);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].result.outcome, Outcome::kSkip);
  EXPECT_NE(records[0].result.signature.find("host backend needs exact integer sums"),
            std::string::npos)
      << records[0].result.signature;
}

}  // namespace
}  // namespace gh::testing
