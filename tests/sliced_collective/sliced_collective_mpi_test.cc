// Whole-binary tests of sliced_collective on the host backend under mpirun: every allocator x
// registration x collective the host has, static and dynamic slices, at 1, 2 and 4 ranks; the
// arena's placements; planted faults, an out-of-bounds dynamic slice and what the host lacks,
// each asserted rank by rank from records.jsonl.
#include <map>
#include <set>
#include <string>

#include "tests/common/harness_run.h"

namespace gh::testing {
namespace {

constexpr size_t kHostMatrixPoints = 2 * 2 * 3 * 2;  // allocator x registration x collective x slice
constexpr size_t kArenaPoints = 2 * 3 * 2;            // alignment x offset x registration

void ExpectHostMatrixPasses(int np) {
  HarnessRun run = RunHarness(np, "scenarios/selftest/sliced_collective_host.yaml", "host");
  std::vector<Record> records = RecordsOfCleanRun(run, kHostMatrixPoints + kArenaPoints);
  const std::set<std::string> points = PointsOf(records, "sliced_collective", "host", np);
  for (const Record& record : records) {
    SCOPED_TRACE(record.point);
    EXPECT_TRUE(record.matched);
    ASSERT_EQ(record.result.ranks.size(), static_cast<size_t>(np));
    if (np == 1 && record.params.value("registration", "") == "mpi_window") {
      // Open MPI 4.1 has no one-sided component for MPI_Win_create on a lone process.
      EXPECT_EQ(record.result.outcome, Outcome::kError);
      EXPECT_EQ(record.result.signature, "MPI_ERR_WIN: invalid window (MPI_Win_create)");
      EXPECT_EQ(record.result.ranks[0].step, "register");
      continue;
    }
    EXPECT_EQ(record.result.outcome, Outcome::kPass) << record.result.signature;
    const int64_t rows = record.params.value("rows", int64_t{0});
    const int64_t cols = record.params.value("cols", int64_t{0});
    const int64_t begin = record.params.value("begin", int64_t{0});
    const int64_t end = record.params.value("end", int64_t{0});
    const int64_t stride = record.params.value("dynamic_stride", int64_t{0});
    const bool dynamic = record.params.value("slice", "") == "dynamic";
    const std::string collective = record.params.value("collective", "");
    const bool arena = record.params.value("allocator", "") == "arena";
    const int64_t alignment = record.params.value("alignment", int64_t{256});
    const int64_t offset = record.params.value("offset", int64_t{0});
    const int64_t placement = arena ? (offset + alignment - 1) / alignment * alignment : offset;
    ASSERT_GT(rows, 0);
    for (int r = 0; r < np; ++r) {
      const RankOutcome* rank = RankOf(record, r);
      ASSERT_NE(rank, nullptr);
      EXPECT_EQ(rank->outcome, Outcome::kPass) << rank->signature;
      EXPECT_FALSE(rank->mismatch.has_value());
      const int64_t slice_elements = (end - begin) * cols;
      const int64_t output = collective == "all_gather" ? slice_elements * np : slice_elements;
      EXPECT_EQ(MetricOr(rank->metrics, "checked_elements", -1), double(output));
      // Where the operand sat: the rank's first row (dynamic: begin + rank * stride).
      const int64_t first_row = begin + (dynamic ? r * stride : 0);
      EXPECT_EQ(MetricOr(rank->metrics, "buffer_offset_bytes", -1), double(placement));
      EXPECT_EQ(MetricOr(rank->metrics, "slice_offset_bytes", -1),
                double(placement + first_row * cols * 4));
      EXPECT_GE(MetricOr(rank->metrics, "buffer_alignment_bytes", -1), double(placement == 0 ? 4096 : placement & -placement));
      EXPECT_GT(MetricOr(rank->metrics, "time_median_us", -1), 0);
    }
  }
  EXPECT_EQ(points.size(), kHostMatrixPoints + kArenaPoints);
  const std::string np_suffix = "/np=" + std::to_string(np);
  // Names hold every parameter the YAML sets, in the kind's declared order.
  EXPECT_EQ(points.count("sliced_host/rows=19/cols=256/inner=64/begin=2/end=15/slice=dynamic/"
                         "dynamic_stride=1/allocator=arena/registration=mpi_window/"
                         "collective=all_reduce" + np_suffix), 1u);
  EXPECT_EQ(points.count("sliced_host_arena/rows=8/cols=100/inner=16/begin=1/end=4/allocator=arena/"
                         "alignment=4K/offset=256/registration=mpi_window/collective=ring_shift" +
                         np_suffix), 1u);
}

TEST(SlicedCollectiveHost, EveryCombinationIsExactAtOneRank) { ExpectHostMatrixPasses(1); }
TEST(SlicedCollectiveHost, EveryCombinationIsExactAtTwoRanks) { ExpectHostMatrixPasses(2); }
TEST(SlicedCollectiveHost, EveryCombinationIsExactAtFourRanks) { ExpectHostMatrixPasses(4); }

class SlicedCollectiveFaults : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    run_ = new HarnessRun(RunHarness(3, "scenarios/selftest/sliced_collective_faults.yaml", "host"));
    records_ = new std::vector<Record>(ReadRecords(*run_));
  }
  static void TearDownTestSuite() {
    delete run_;
    delete records_;
  }
  static std::vector<const Record*> Of(const std::string& scenario) {
    std::vector<const Record*> out;
    for (const Record& record : *records_) {
      if (record.scenario == scenario) out.push_back(&record);
    }
    return out;
  }
  static HarnessRun* run_;
  static std::vector<Record>* records_;
};
HarnessRun* SlicedCollectiveFaults::run_ = nullptr;
std::vector<Record>* SlicedCollectiveFaults::records_ = nullptr;

TEST_F(SlicedCollectiveFaults, EveryExpectationIsMetSoTheRunExitsZero) {
  EXPECT_EQ(run_->exit_code, 0) << run_->console;
  EXPECT_EQ(records_->size(), 6u + 6u + 1u + 8u);
  for (const Record& record : *records_) {
    EXPECT_TRUE(record.matched) << record.point << ": " << record.result.signature << " vs "
                                << record.expected.ToString();
  }
}

TEST_F(SlicedCollectiveFaults, CorruptElementFailsOnRankOneWithOneWrongElement) {
  std::vector<const Record*> records = Of("sliced_corrupt");
  ASSERT_EQ(records.size(), 6u);
  for (const Record* record : records) {
    SCOPED_TRACE(record->point);
    EXPECT_EQ(record->result.outcome, Outcome::kFail);
    EXPECT_EQ(RankOf(*record, 0)->outcome, Outcome::kPass);
    EXPECT_EQ(RankOf(*record, 2)->outcome, Outcome::kPass);
    const RankOutcome* bad = RankOf(*record, 1);
    ASSERT_EQ(bad->outcome, Outcome::kFail);
    ASSERT_TRUE(bad->mismatch.has_value());
    EXPECT_EQ(bad->mismatch->wrong_elements, 1);
    const int64_t checked = bad->mismatch->checked_elements;
    // Default slice rows [0, 15) of 256 columns; all_gather holds 3 slices.
    const bool gather = record->params.value("collective", "") == "all_gather";
    EXPECT_EQ(checked, (gather ? 3 : 1) * 15 * 256);
    EXPECT_EQ(bad->mismatch->first_index, checked / 2);
    EXPECT_NE(bad->mismatch->expected, bad->mismatch->actual);
    EXPECT_EQ(record->result.signature,
              "wrong data: 1 of " + std::to_string(checked) + " elements [ranks 1]");
  }
}

TEST_F(SlicedCollectiveFaults, WrongSliceDamagesExactlyTheRanksThatReceiveIt) {
  std::vector<const Record*> records = Of("sliced_wrong_slice");
  ASSERT_EQ(records.size(), 6u);
  for (const Record* record : records) {
    SCOPED_TRACE(record->point);
    const std::string collective = record->params.value("collective", "");
    EXPECT_EQ(record->result.outcome, Outcome::kFail);
    for (int r = 0; r < 3; ++r) {
      const RankOutcome* rank = RankOf(*record, r);
      const bool damaged = collective != "ring_shift" || r == 1;  // rank 0's right neighbour
      EXPECT_EQ(rank->outcome, damaged ? Outcome::kFail : Outcome::kPass) << "rank " << r;
      if (!damaged) continue;
      ASSERT_TRUE(rank->mismatch.has_value());
      // ring_shift/all_gather: rank 0's block starts one row late; all_gather puts it first.
      if (collective != "all_reduce") {
        EXPECT_LT(rank->mismatch->first_index, 256) << "rank " << r;  // in the first row
      }
      EXPECT_GT(rank->mismatch->wrong_elements, 256);  // whole rows are wrong, not one element
    }
  }
}

TEST_F(SlicedCollectiveFaults, OutOfBoundsDynamicSliceIsAnErrorOnThatRank) {
  std::vector<const Record*> records = Of("sliced_out_of_bounds");
  ASSERT_EQ(records.size(), 1u);
  const Record& record = *records[0];
  EXPECT_EQ(record.result.outcome, Outcome::kError);
  EXPECT_EQ(record.result.signature,
            "slice rows [10,20) outside the producer's 19 rows [ranks 2]");
  EXPECT_EQ(RankOf(record, 2)->outcome, Outcome::kError);
  EXPECT_EQ(RankOf(record, 2)->step, "slice");
  for (int r : {0, 1}) {
    EXPECT_EQ(RankOf(record, r)->outcome, Outcome::kSkip) << r;
    EXPECT_EQ(RankOf(record, r)->signature, "another rank's slice is out of bounds");
  }
}

TEST_F(SlicedCollectiveFaults, WhatTheHostLacksIsASkipWithTheReason) {
  std::vector<const Record*> records = Of("sliced_host_lacks");
  ASSERT_EQ(records.size(), 8u);
  std::map<std::string, std::string> by_point;
  for (const Record* record : records) by_point[record->point] = record->result.signature;
  const std::string base = "sliced_host_lacks/inner=32/allocator=";
  EXPECT_EQ(by_point[base + "malloc/registration=none/collective=ring_shift/np=3"], "");
  EXPECT_EQ(by_point[base + "malloc/registration=none/collective=ring_shift_device/np=3"],
            "ring_shift_device needs the cuda backend");
  EXPECT_EQ(by_point[base + "malloc/registration=window_symmetric/collective=ring_shift/np=3"],
            "registration window_symmetric is not available on the host backend");
  EXPECT_EQ(by_point[base + "cuda_malloc/registration=none/collective=ring_shift/np=3"],
            "allocator cuda_malloc is not available on the host backend");
}

}  // namespace
}  // namespace gh::testing
