#include "harness/report/report_sections.h"

#include <map>
#include <string>
#include <utility>

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
  // What changed leads; what not running costs, and what was known, follow.
  EXPECT_THAT(titles, ElementsAre("Regressions and new failures", "Cells not run", "Known failures", "New points",
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

// Every entry lands in one group, for one reason: what changed (a regression, a new failure, a
// failure that changed, a point that never ran), what was known (expected, or unmet in the
// baseline too), what was fixed, or nothing.
TEST(ReportSectionsTest, ClassifyAttentionSaysWhatChangedAndWhatWasKnown) {
  using testing::MakeRecord;
  const Expectation crash{Outcome::kCrash, std::nullopt, "planted SIGSEGV"};
  auto point = [](const char* name) { return std::string("p=") + name + "/np=2"; };
  std::vector<Record> before = {
      MakeRecord({.point_suffix = point("regressed")}),
      MakeRecord({.point_suffix = point("still_bad"), .outcome = Outcome::kError, .signature = "E: a", .matched = false}),
      MakeRecord({.point_suffix = point("differs"), .outcome = Outcome::kError, .signature = "E: a", .matched = false}),
      MakeRecord({.point_suffix = point("fixed"), .outcome = Outcome::kError, .signature = "E: a", .matched = false}),
      MakeRecord({.point_suffix = point("skipped_then_bad"), .outcome = Outcome::kSkip, .signature = "no GPU"}),
      MakeRecord({.point_suffix = point("fine")})};
  std::vector<Record> now = {
      MakeRecord({.point_suffix = point("regressed"), .outcome = Outcome::kFail, .matched = false}),
      MakeRecord({.point_suffix = point("still_bad"), .outcome = Outcome::kError, .signature = "E: a", .matched = false}),
      MakeRecord({.point_suffix = point("differs"), .outcome = Outcome::kCrash, .signature = "SIGSEGV", .matched = false}),
      MakeRecord({.point_suffix = point("fixed")}),
      MakeRecord({.point_suffix = point("skipped_then_bad"), .outcome = Outcome::kError, .signature = "E", .matched = false}),
      MakeRecord({.point_suffix = point("fine")}),
      MakeRecord({.point_suffix = point("planted"), .outcome = Outcome::kCrash, .signature = "SIGSEGV", .expected = crash}),
      MakeRecord({.point_suffix = point("brand_new"), .outcome = Outcome::kError, .signature = "E", .matched = false}),
      MakeRecord({.point_suffix = point("launcher"), .outcome = Outcome::kInfra, .signature = "infrastructure: x",
                  .matched = false})};
  const Comparison comparison = CompareResults(now, &before);
  std::map<std::string, std::pair<Attention, std::string>> got;
  for (const PointComparison& e : comparison.points) {
    if (!e.now) continue;
    const AttentionOf a = ClassifyAttention(e, true);
    got[e.key.point.substr(7, e.key.point.find("/np=") - 7)] = {a.group, a.why};  // "ring/p=<name>/np=2"
  }
  using P = std::pair<Attention, std::string>;
  EXPECT_EQ(got["regressed"], (P{Attention::kChanged, "regression"}));
  EXPECT_EQ(got["still_bad"], (P{Attention::kKnown, "failing in the baseline too"}));
  EXPECT_EQ(got["differs"], (P{Attention::kChanged, "failing differently than in the baseline"}));
  EXPECT_EQ(got["fixed"], (P{Attention::kFixed, "fixed"}));
  EXPECT_EQ(got["skipped_then_bad"], (P{Attention::kChanged, "new failure"}));
  EXPECT_EQ(got["fine"], (P{Attention::kNone, ""}));
  EXPECT_EQ(got["planted"], (P{Attention::kKnown, "expected: planted SIGSEGV"}));
  EXPECT_EQ(got["brand_new"], (P{Attention::kChanged, "new point"}));
  EXPECT_EQ(got["launcher"], (P{Attention::kChanged, "not run (infrastructure)"}));
  // Without a baseline nothing can be new or known to fail before: unmet is unmet.
  const Comparison alone = CompareResults(now, nullptr);
  for (const PointComparison& e : alone.points) {
    if (e.now->expectation_met() || e.now->worst == Outcome::kInfra) continue;
    EXPECT_EQ(ClassifyAttention(e, false).why, "unmet expectation") << e.key.point;
  }
}

}  // namespace
}  // namespace gh
