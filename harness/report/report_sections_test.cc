#include "harness/report/report_sections.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/report/report_test_records.h"

namespace gh {
namespace {

using ::testing::ElementsAre;

TEST(ReportSectionsTest, OnlySectionsWithRowsInReportOrder) {
  testing::SmallSweep s = testing::MakeSmallSweep();
  s.sweep.cells[1].status = "setup_failed";
  s.sweep.cells[1].detail = "pip install failed";
  Comparison comparison = CompareResults(s.records, &s.baseline);
  std::vector<std::string> titles;
  for (const ReportSection& section : AttentionSections(comparison, &s.sweep, 160)) {
    titles.push_back(section.title);
    for (const auto& row : section.rows) EXPECT_EQ(row.size(), section.headers.size()) << section.title;
  }
  EXPECT_THAT(titles, ElementsAre("Cells not run", "Unmet expectations", "Regressions", "New points",
                                  "Vanished points"));
  EXPECT_TRUE(AttentionSections(CompareResults({testing::MakeRecord({})}, nullptr), nullptr, 160).empty());
}

TEST(ReportSectionsTest, LongSignaturesAreCutToTheLimitEndingInAnEllipsis) {
  const std::string signature = "E: " + std::string(200, 'x');
  Comparison comparison = CompareResults(
      {testing::MakeRecord({.outcome = Outcome::kError, .signature = signature, .matched = false})},
      nullptr);
  const std::vector<ReportSection> cut = AttentionSections(comparison, nullptr, 20);
  ASSERT_EQ(cut.size(), 1u);
  EXPECT_EQ(cut[0].title, "Unmet expectations");
  EXPECT_THAT(cut[0].headers, ElementsAre("cell", "point", "expected", "got", "signature"));
  ASSERT_EQ(cut[0].rows.size(), 1u);
  EXPECT_EQ(cut[0].rows[0][4], "E: xxxxxxxxxxxxxx...");
  const std::vector<ReportSection> whole = AttentionSections(comparison, nullptr, std::string::npos);
  ASSERT_EQ(whole.size(), 1u);
  EXPECT_EQ(whole[0].rows[0][4], signature);
}

// Issue 19 item 5: a timeout's hang report is its own section, one row per point: the first
// trial that hung, each rank's place, where the ranks parted, and NCCL's first line.
TEST(ReportSectionsTest, HangsShowEachRanksPlaceTheDivergenceAndNcclsFirstLine) {
  Record pass = testing::MakeRecord({.trial = 0, .trials = 2});
  Record hung = testing::MakeRecord({.outcome = Outcome::kTimeout, .signature = "timeout after 5s in step 'exchange'",
                                     .trial = 1, .trials = 2, .matched = false});
  hung.result.hang.summary = {"rank 1: nanosleep <- Stall (step exchange)", "rank 0: MPI_Recv <- RingShift::Run (step exchange)"};
  hung.result.hang.divergence = "rank 1 is in exchange #1 outside any communication call";
  hung.result.hang.nccl_ras = "not available: host backend (no NCCL)\nsecond line";
  std::vector<ReportSection> sections = AttentionSections(CompareResults({pass, hung}, nullptr), nullptr, 160);
  ASSERT_EQ(sections.size(), 2u);
  EXPECT_EQ(sections[0].title, "Unmet expectations");
  EXPECT_EQ(sections[1].title, "Hangs");
  EXPECT_THAT(sections[1].headers, ElementsAre("cell", "point", "trial", "ranks", "divergence", "NCCL RAS"));
  ASSERT_EQ(sections[1].rows.size(), 1u);
  EXPECT_THAT(sections[1].rows[0],
              ElementsAre("-", "ring/bytes=4K/np=2", "2/2",
                          "rank 1: nanosleep <- Stall (step exchange); rank 0: MPI_Recv <- RingShift::Run (step exchange)",
                          "rank 1 is in exchange #1 outside any communication call",
                          "not available: host backend (no NCCL)"));
}

}  // namespace
}  // namespace gh
