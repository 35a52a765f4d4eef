// Whole-binary tests of the collective kind on the host backend under mpirun, at 2, 3 and 4
// ranks: every op x dtype x reduction x in-place x root is exact, rank by rank, with the element
// count nccl-tests would check and the bandwidths its formulas give; split communicators check
// within their groups; a planted corrupt element fails every op on the rank that has it, with the
// exact count and place. Each run's records.jsonl is asserted record by record.
#include <map>
#include <set>
#include <string>

#include "harness/core/reference_floors.h"
#include "tests/common/harness_run.h"

namespace gh::testing {
namespace {

int Width(const std::string& dtype) {
  static const std::map<std::string, int> widths = {
      {"int8", 1}, {"uint8", 1}, {"int32", 4}, {"uint32", 4}, {"int64", 8}, {"uint64", 8},
      {"half", 2}, {"float", 4}, {"double", 8}, {"bfloat16", 2}, {"f8e4m3", 1}, {"f8e5m2", 1}};
  return widths.at(dtype);
}

// The elements a rank checks: its output, as nccl-tests sizes it (src/<op>.cu GetCollByteCount),
// written out again here so that the kind's own layout code is not checked against itself.
int64_t OutputElements(const std::string& op, int64_t bytes, int width, int n, double spread) {
  const int64_t count = bytes / width;
  const int64_t share = (count / n) & ~int64_t{16 / width - 1};
  if (op == "all_reduce" || op == "broadcast" || op == "reduce" || op == "sendrecv") return count;
  if (op == "reduce_scatter" || op == "scatter") return share;
  if (op == "alltoallv") {
    // Distance-weighted (spread 1): peer at ring distance d gets d * total / (n(n-1)/2) bytes,
    // rounded down to 16; one rank keeps everything.
    const int64_t total = share * n * width;
    if (n == 1) return (total & ~int64_t{15}) / width;
    int64_t elements = 0;
    for (int d = 0; d < n; ++d) {
      elements += (static_cast<int64_t>(spread * d * double(total) / (n * (n - 1) / 2.0)) & ~int64_t{15}) / width;
    }
    return elements;
  }
  return share * n;  // all_gather, gather, hypercube, alltoall
}

double BusFactor(const std::string& op, int n) {
  if (op == "all_reduce") return 2.0 * (n - 1) / n;
  if (op == "broadcast" || op == "reduce" || op == "sendrecv" || op == "hypercube") return 1;
  return double(n - 1) / n;
}

// Every point of tests/collective/collective_host.yaml at `np` ranks: each expectation met (exit
// 0), and each passing point exact on every rank with the right size and bandwidths.
void ExpectHostMatrix(int np) {
  HarnessRun run = RunHarness(np, "tests/collective/collective_host.yaml", "host");
  std::vector<Record> records = ReadRecords(run);
  EXPECT_EQ(run.exit_code, 0) << run.console;
  // 432 reductions + 192 copies + 24 roots + 128 features + 32 splits + 12 host skips.
  ASSERT_EQ(records.size(), 432u + 192u + 24u + 128u + 32u + 12u) << run.console;
  std::map<std::string, int> passed, skipped;
  for (const Record& record : records) {
    SCOPED_TRACE(record.point);
    EXPECT_TRUE(record.matched) << record.result.signature;
    EXPECT_EQ(record.kind, "collective");
    EXPECT_EQ(record.backend, "host");
    if (record.result.outcome == Outcome::kSkip) {
      ++skipped[record.scenario];
      continue;
    }
    ASSERT_EQ(record.result.outcome, Outcome::kPass) << record.result.signature;
    ++passed[record.scenario];
    ASSERT_EQ(record.result.ranks.size(), size_t(np));
    const std::string op = record.params.value("op", "");
    const std::string dtype = record.params.value("dtype", "float");
    const int64_t bytes = record.params.value("bytes", int64_t{0});
    const std::string split = record.params.value("split", "none");
    const int64_t split_value = record.params.value("split_value", int64_t{1});
    for (int r = 0; r < np; ++r) {
      const RankOutcome* rank = RankOf(record, r);
      ASSERT_NE(rank, nullptr);
      EXPECT_EQ(rank->outcome, Outcome::kPass) << rank->signature;
      EXPECT_FALSE(rank->mismatch.has_value());
      // The rank's communicator: the world, or its colour's group.
      int color = 0, group = np;
      if (split != "none") {
        auto colour_of = [&](int x) -> int {
          if (split == "mod") return x % split_value;
          if (split == "div") return x / split_value;
          if (split == "and") return x & split_value;
          return x | split_value;
        };
        color = colour_of(r);
        group = 0;
        for (int x = 0; x < np; ++x) group += colour_of(x) == color;
        EXPECT_EQ(MetricOr(rank->metrics, "split_color", -1), color);
        EXPECT_EQ(MetricOr(rank->metrics, "comm_ranks", -1), group);
      }
      const int64_t outputs = OutputElements(op, bytes, Width(dtype), group, 1.0);
      EXPECT_EQ(MetricOr(rank->metrics, "checked_elements", -1), double(outputs)) << "rank " << r;
      const double algbw = MetricOr(rank->metrics, "algbw_GBps", -1);
      EXPECT_GT(algbw, 0) << "rank " << r;
      EXPECT_NEAR(MetricOr(rank->metrics, "busbw_GBps", -1), algbw * BusFactor(op, group), 1e-9 * algbw);
      EXPECT_GT(MetricOr(rank->metrics, "time_loop_mean_us", -1), 0);
      EXPECT_GT(MetricOr(rank->metrics, "time_median_us", -1), 0);
    }
    // The point's metrics (rank 0's) keep every iteration's sample, for baseline comparisons.
    const Metric* per_iteration = FindMetric(record.result.metrics, "busbw_median_GBps");
    ASSERT_NE(per_iteration, nullptr);
    EXPECT_EQ(per_iteration->samples.size(), size_t(record.iterations));
  }
  // What runs at every rank count: every reduction, every root that exists.
  EXPECT_EQ(passed["coll_reductions"], 432);
  EXPECT_EQ(passed["coll_features"], 128);
  EXPECT_EQ(passed["coll_split"], 32);
  EXPECT_EQ(skipped["coll_copies"], (3 * 6 * 2) + (np == 3 ? 6 * 2 * 2 : 0));
  EXPECT_EQ(skipped["coll_roots"], np == 2 ? 16 : np == 3 ? 8 : 0);
  EXPECT_EQ(passed["coll_host_lacks"], 2);  // NCCL's implementation, no registration
  EXPECT_EQ(skipped["coll_host_lacks"], 10);
}

TEST(CollectiveHost, EveryOpTypeReductionAndRootIsExactAtTwoRanks) { ExpectHostMatrix(2); }
TEST(CollectiveHost, EveryOpTypeReductionAndRootIsExactAtThreeRanks) { ExpectHostMatrix(3); }
TEST(CollectiveHost, EveryOpTypeReductionAndRootIsExactAtFourRanks) { ExpectHostMatrix(4); }

void ExpectCorruptElementCaught(int np) {
  HarnessRun run = RunHarness(np, "tests/collective/collective_faults.yaml", "host");
  std::vector<Record> records = RecordsOfCleanRun(run, 11 * 2);
  std::set<std::string> ops;
  for (const Record& record : records) {
    SCOPED_TRACE(record.point);
    EXPECT_TRUE(record.matched) << record.result.signature;
    ASSERT_EQ(record.result.outcome, Outcome::kFail);
    ops.insert(record.params.value("op", ""));
    for (int r = 0; r < np; ++r) {
      const RankOutcome* rank = RankOf(record, r);
      ASSERT_NE(rank, nullptr);
      if (r != 1) {
        EXPECT_EQ(rank->outcome, Outcome::kPass) << "rank " << r << ": " << rank->signature;
        continue;
      }
      ASSERT_EQ(rank->outcome, Outcome::kFail);
      EXPECT_EQ(rank->step, "verify");
      ASSERT_TRUE(rank->mismatch.has_value());
      const Mismatch& m = *rank->mismatch;
      EXPECT_EQ(m.wrong_elements, 1);
      EXPECT_EQ(m.first_index, m.checked_elements / 2);
      EXPECT_EQ(m.checked_elements, MetricOr(rank->metrics, "checked_elements", -1));
      EXPECT_NE(m.expected, m.actual);
      EXPECT_EQ(rank->signature, "1 of " + std::to_string(m.checked_elements) + " elements wrong, first at " +
                                     std::to_string(m.first_index));
    }
  }
  EXPECT_EQ(ops.size(), 11u);
}

TEST(CollectiveHost, ACorruptElementFailsEveryOpOnItsRankAtTwoRanks) { ExpectCorruptElementCaught(2); }
TEST(CollectiveHost, ACorruptElementFailsEveryOpOnItsRankAtFourRanks) { ExpectCorruptElementCaught(4); }

TEST(CollectiveHost, TheShippedSweepPassesOnTheHostAtItsSmallSizes) {
  HarnessOptions options;
  options.np = 2;
  options.yamls = {"scenarios/collective.yaml"};
  options.backend = "host";
  options.mpirun_env = {"OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"};
  options.args = "--filter '*/bytes=*K/*'";  // 1K and 32K: the host moves GiBs slowly
  HarnessRun run = RunHarness(options);
  std::vector<Record> records = RecordsOfCleanRun(run, 11 * 4 * 2);
  for (const Record& record : records) {
    SCOPED_TRACE(record.point);
    EXPECT_TRUE(record.matched) << record.result.signature;
    EXPECT_EQ(record.result.outcome, Outcome::kPass) << record.result.signature;
    EXPECT_TRUE(record.metric_bounds.empty());  // no GPU: no reference row applies
  }
}

TEST(CollectiveReference, TheShippedTableLoadsAndEveryRowSaysWhereItComesFrom) {
  absl::StatusOr<ReferenceTable> table =
      LoadReferenceTable(std::string(GH_SOURCE_DIR) + "/results/reference/collective_busbw.yaml");
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_GE(table->rows.size(), 14u);
  std::set<std::string> kinds;
  for (const ReferenceRow& row : table->rows) kinds.insert(row.source.kind);
  EXPECT_EQ(kinds, (std::set<std::string>{"measured", "published", "inferred"}));
}

}  // namespace
}  // namespace gh::testing
