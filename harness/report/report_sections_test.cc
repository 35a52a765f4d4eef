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

}  // namespace
}  // namespace gh
