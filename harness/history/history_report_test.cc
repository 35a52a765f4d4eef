// The history page: the three questions first, letters and frames besides colour, expected
// failures told apart, numbers to three significant digits, trends on demand, no scripts.
#include "harness/history/history_report.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/history/history_queries.h"
#include "harness/history/testdata/history_fixture.h"

namespace gh {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::HistoryTest;
using testing::kP2p;
using testing::kPut;
using testing::NightRecord;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_F(HistoryTest, ReportLeadsWithBrokenFlippedAndFlaky) {
  HistoryDb db = OpenDb();
  ThreeNights(db);
  const std::string html = RenderHistoryHtml(*Nights(db), *LoadHistories(db));
  const size_t broken = html.find("<h2>Broken now (1)</h2>"), flips = html.find("<h2>Changed on the latest night, night3 (0)</h2>"),
               flaky = html.find("<h2>Flaky (0)</h2>"), every = html.find("<h2>Every point, night by night</h2>");
  ASSERT_NE(broken, std::string::npos) << html;
  ASSERT_NE(flips, std::string::npos);
  ASSERT_NE(flaky, std::string::npos);
  ASSERT_NE(every, std::string::npos);
  EXPECT_LT(broken, flips);
  EXPECT_LT(flips, flaky);
  EXPECT_LT(flaky, every);
  const std::string broken_row = html.substr(broken, flips - broken);
  EXPECT_THAT(broken_row, HasSubstr(absl::StrCat("nightly [transport=p2p] :: ", kP2p)));
  EXPECT_THAT(broken_row, HasSubstr("<td>night2 (version n08), 2 nights</td><td>night1 (version n03)</td>"));
  EXPECT_THAT(broken_row, HasSubstr("wrong data on ranks 1"));
  // Each night's verdict a letter; the unmet one framed and marked.
  EXPECT_THAT(html, HasSubstr("<span class=\"v v-fail unmet\" title=\"night2 (version n08): fail — wrong data on ranks 1\">F!</span>"));
  EXPECT_THAT(html, HasSubstr("<span class=\"v v-pass\" title=\"night1 (version n03): pass\">P</span>"));
  for (const char* night : {"night1", "night2", "night3"}) {
    EXPECT_THAT(html, HasSubstr(absl::StrCat("<th class=\"night\"><span>", night, "</span></th>")));
  }
  EXPECT_THAT(html, Not(HasSubstr("()")));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("http")));
}

TEST_F(HistoryTest, ReportTellsExpectedFailuresAndLeavesVersionsOutWhenThereAreNone) {
  HistoryDb db = OpenDb();
  Record expected = NightRecord(kP2p, "n01", 0, Outcome::kCrash, Outcome::kCrash);
  Record unexpected = NightRecord(kPut, "n01", 0, Outcome::kCrash);
  for (Record* r : {&expected, &unexpected}) r->cell.erase("nightly");
  Ingest(db, WriteRecords("n1", {expected, unexpected}, {}), "night1");
  const std::string html = RenderHistoryHtml(*Nights(db), *LoadHistories(db));
  EXPECT_THAT(html, HasSubstr("<span class=\"v v-crash expected\" title=\"night1: crash (expected) — wrong data on ranks 1\">C</span>"));
  EXPECT_THAT(html, HasSubstr("<span class=\"v v-crash unmet\" title=\"night1: crash — wrong data on ranks 1\">C!</span>"));
  EXPECT_THAT(html, HasSubstr("<h2>Broken now (1)</h2>"));
}

TEST_F(HistoryTest, ReportRoundsNumbersAndDrawsOnlyChangingMetrics) {
  HistoryDb db = OpenDb();
  for (int night = 1; night <= 3; ++night) {
    Record r = NightRecord(kP2p, "n01", 0, Outcome::kPass);
    r.result.metrics = {{"iterations", 2, "count"}, {"time_median_us", 15.94321 * night, "us"}};
    Ingest(db, WriteRecords(absl::StrCat("n", night), {r}, {"n01"}), absl::StrCat("night", night));
  }
  const std::string html = RenderHistoryHtml(*Nights(db), *LoadHistories(db));
  EXPECT_THAT(html, HasSubstr("<li class=\"constant\">iterations: 2 count on every night</li>"));
  EXPECT_THAT(html, HasSubstr("time_median_us: 15.9 .. 47.8 us</li>"));
  EXPECT_EQ(Count(html, "<polyline"), 1u);
  EXPECT_THAT(html, HasSubstr("<details><summary>2 metrics</summary>"));
  EXPECT_THAT(html, Not(HasSubstr("15.94321")));
  EXPECT_THAT(html, Not(HasSubstr("47.82963")));
}

TEST_F(HistoryTest, ReportNamesFlakyPointsWithTheirRate) {
  HistoryDb db = OpenDb();
  const auto pass = Outcome::kPass, fail = Outcome::kFail;
  Ingest(db, WriteSweep("n1", "n01", {{kP2p, {pass}}}), "night1");
  Ingest(db, WriteSweep("n2", "n02", {{kP2p, {fail}}}), "night2");
  Ingest(db, WriteSweep("n3", "n03", {{kP2p, {pass}}}), "night3");
  const std::string html = RenderHistoryHtml(*Nights(db), *LoadHistories(db));
  EXPECT_THAT(html, HasSubstr("<h2>Flaky (1)</h2>"));
  EXPECT_THAT(html, HasSubstr("<td>1 of 3 trials (33.3 %, 95 % interval 6.15-79.2 %)</td><td>1 of 3</td>"));
  EXPECT_THAT(html, HasSubstr("<h2>Changed on the latest night, night3 (1)</h2>"));
  EXPECT_THAT(html, HasSubstr("fail &rarr; <b>pass</b> at version n03</td><td>night2 (version n02)</td>"));
}

}  // namespace
}  // namespace gh
