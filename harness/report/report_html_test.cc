#include "harness/report/report_html.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "absl/strings/str_cat.h"
#include "harness/core/testdata/contains_all.h"
#include "harness/report/report_palette.h"
#include "harness/report/report_test_records.h"

namespace gh {
namespace {

using ::gh::testing::ContainsAll;
using ::testing::HasSubstr;
using ::testing::Not;

int Count(const std::string& haystack, const std::string& needle) {
  int n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
  return n;
}

// `plots` charts in all, with `series` lines among them.
void ExpectCharts(const std::string& html, int plots, int series) {
  EXPECT_EQ(Count(html, "<svg class=\"plot\""), plots);
  EXPECT_EQ(Count(html, "<polyline class=\"series\""), series);
}

std::string RenderSmallSweep(bool with_baseline) {
  testing::SmallSweep s = testing::MakeSmallSweep();
  static Comparison comparison;  // ReportInput points at it
  comparison = CompareResults(s.records, with_baseline ? &s.baseline : nullptr);
  static SweepInfo sweep;
  sweep = s.sweep;
  ReportInput input{"gpuharness sweep nccl_small", &comparison, &sweep, s.environments,
                    with_baseline ? "results/baseline" : ""};
  return RenderReportHtml(input);
}

TEST(ReportHtmlTest, SelfContained) {
  std::string html = RenderSmallSweep(true);
  EXPECT_THAT(html, HasSubstr("<!DOCTYPE html>"));
  EXPECT_THAT(html, HasSubstr("<style>"));
  EXPECT_THAT(html, Not(HasSubstr("http://")));
  EXPECT_THAT(html, Not(HasSubstr("https://")));
  EXPECT_THAT(html, Not(HasSubstr("src=")));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("<link")));
  EXPECT_THAT(html, Not(HasSubstr("@import")));
  EXPECT_THAT(html, Not(HasSubstr("url(")));
  EXPECT_THAT(html, HasSubstr("</body></html>"));
}

TEST(ReportHtmlTest, HeatmapEntriesCarryOutcomeClasses) {
  std::string html = RenderSmallSweep(true);
  // ring: 4 cells x 2 sizes = 8 entries: 6 pass, 1 skip, 1 error (a regression, unmet).
  // capture: 4 cells x 2 = 8 entries: 7 pass, 1 crash (worst of error, crash, error; the three
  // trials together meet `error ~ /swallowed/` under the default trial verdict).
  EXPECT_EQ(Count(html, "class=\"entry o-pass\""), 13);
  EXPECT_EQ(Count(html, "class=\"entry o-skip\""), 1);
  EXPECT_EQ(Count(html, "class=\"entry o-error regression unexpected\""), 1);
  // A crash that met its expectation is hatched ("expected"), unlike an unmet one (issue 16).
  EXPECT_EQ(Count(html, "class=\"entry o-crash expected\""), 1);
  EXPECT_EQ(Count(html, "<td class=\"entry"), 16);
  EXPECT_EQ(Count(html, "<table class=\"heatmap\">"), 2);
  // The tooltip holds the point, the text and the full signature, escaped.
  EXPECT_THAT(html, HasSubstr("title=\"ring/bytes=1M/np=2\nncclUnhandledCudaError\nncclUnhandledCudaError: Cuda "
                              "failure 1 &#39;invalid argument&#39; | see log [ranks 1]\nexpected: pass\n"
                              "baseline: pass\nregression\""));
  EXPECT_THAT(html, ContainsAll({
                  ">ncclUnhandledCudaError (regression)</td>",
                  ">3 trials, 3 failed (2 swallowed, 1 crash (SIGSEGV))</td>",
                  ">skip: no symmetric memory</td>"}));
}

TEST(ReportHtmlTest, RowsAreCellsAndColumnsAreSweptParameters) {
  std::string html = RenderSmallSweep(false);
  EXPECT_THAT(html, ContainsAll({
                  "<tr><th>proto</th><th>nccl</th><th>bytes=4K</th><th>bytes=1M</th></tr>",
                  "<tr><th>proto</th><th>nccl</th><th>background=on</th><th>background=off</th></tr>",
                  "<tr><th>simple</th><th>2.28.3</th><td class=\"entry o-pass\""}));
}

TEST(ReportHtmlTest, PlotsTheMetricPerCell) {
  std::string html = RenderSmallSweep(false);
  // Only ring has metrics and a numeric swept size: one chart per metric (bandwidth, median
  // time), a series per cell that has values.
  ExpectCharts(html, 2, 8);
  EXPECT_THAT(html, ContainsAll({
                  "<title>simple / 2.28.3, bytes=1M: 66.0 GB/s</title>",
                  "<title>ll / 2.28.3, bytes=1M: 33.0 GB/s</title>",
                  ">bytes (log scale)</text>",
                  "rotate(-90)\" text-anchor=\"middle\">bandwidth (GB/s)</text>",
                  "rotate(-90)\" text-anchor=\"middle\">median time (us)</text>",
                  "<h3>ring: bandwidth (GB/s) by bytes"}));
  // Byte sizes on a log axis are ticked at every power of 4, not only where measured.
  EXPECT_THAT(html, HasSubstr("text-anchor=\"middle\">16K</text>"));
}

// Several swept parameters in the columns: x is the numeric one, each other combination a series.
TEST(ReportHtmlTest, PlotsSeriesPerOtherColumnParameter) {
  std::vector<Record> records;
  for (const char* bytes : {"4K", "64K", "1M"}) {
    for (const char* dtype : {"f32", "bf16"}) {
      double value = std::string(dtype) == "f32" ? 10 : 5;
      records.push_back(testing::MakeRecord({.point_suffix = std::string("bytes=") + bytes + "/dtype=" + dtype + "/np=2",
                                             .metrics = {{"bandwidth_GBps", value, "GB/s"}}}));
    }
  }
  Comparison comparison = CompareResults(records, nullptr);
  ReportInput input{"run", &comparison, nullptr, {}, ""};
  std::string html = RenderReportHtml(input);
  EXPECT_THAT(html, HasSubstr("<th>bytes=4K, dtype=f32</th><th>bytes=4K, dtype=bf16</th>"));
  ExpectCharts(html, 1, 2);  // bandwidth only
  EXPECT_THAT(html, HasSubstr("<title>dtype=f32, bytes=64K: 10.0 GB/s</title>"));
  EXPECT_THAT(html, HasSubstr("<title>dtype=bf16, bytes=1M: 5.00 GB/s</title>"));
  EXPECT_EQ(Count(html, "text-anchor=\"middle\">64K</text>"), 1);  // one tick per size
}

// At 24 cells one chart held 95 lines and a 95-entry legend: now at most 8 series a chart, the
// rest in a table beneath it.
TEST(ReportHtmlTest, AtMostEightSeriesAChartTheRestInATable) {
  std::vector<Record> records;
  for (int cell = 0; cell < 24; ++cell) {
    for (const char* bytes : {"4K", "1M"}) {
      records.push_back(testing::MakeRecord({.point_suffix = std::string("bytes=") + bytes + "/np=2",
                                             .cell = {{"flags", "f" + std::to_string(cell)}},
                                             .metrics = {{"bandwidth_GBps", 1.0 + cell, "GB/s"}}}));
    }
  }
  Comparison comparison = CompareResults(records, nullptr);
  ReportInput input{"wide", &comparison, nullptr, {}, ""};
  std::string html = RenderReportHtml(input);
  ExpectCharts(html, 1, 8);
  EXPECT_EQ(Count(html, "<li><span class=\"series-key\""), 8);
  EXPECT_THAT(html, HasSubstr("<p class=\"muted\">16 more series, not charted:</p>\n"
                              "<table><tr><th>series (not charted)</th><th>bytes=4K</th><th>bytes=1M</th></tr>\n"
                              "<tr><td>f8</td><td>9.00 GB/s</td><td>9.00 GB/s</td></tr>"));
  EXPECT_THAT(html, HasSubstr("<td>f23</td><td>24.0 GB/s</td>"));
}

// Every marker and outcome colour comes from the palette report_palette_test.cc checks.
TEST(ReportHtmlTest, StyleUsesThePalette) {
  std::string html = RenderSmallSweep(true);
  for (const OutcomeColour& o : kOutcomeColours) {
    EXPECT_THAT(html, HasSubstr(absl::StrCat(".o-", o.name, "{background-color:", o.background, ";color:", o.text, "}")));
  }
  for (const MarkerColours& m : kMarkers) {
    EXPECT_THAT(html, HasSubstr(absl::StrCat("td.", m.name, ",.legend .", m.name, "{box-shadow:inset 0 0 0 2px ",
                                             m.outer, ",inset 0 0 0 4px ", m.inner, "}")));
  }
}

TEST(ReportHtmlTest, NoPlotWithoutANumericSweptParameter) {
  std::vector<Record> records;
  for (const char* dtype : {"f32", "bf16"}) {
    records.push_back(testing::MakeRecord({.point_suffix = std::string("dtype=") + dtype + "/np=2",
                                           .metrics = {{"bandwidth_GBps", 3.0, "GB/s"}}}));
  }
  Comparison comparison = CompareResults(records, nullptr);
  ReportInput input{"run", &comparison, nullptr, {}, ""};
  EXPECT_EQ(Count(RenderReportHtml(input), "<svg"), 0);
}

TEST(ReportHtmlTest, ComparisonListsAndEnvironment) {
  std::string html = RenderSmallSweep(true);
  EXPECT_THAT(html, ContainsAll({
                  "<p class=\"shape\">Matrix matrices/nccl_small.yaml: 4 cells, proto (2) × nccl (2)</p>",
                  "<h2>Regressions and new failures (1)</h2>",
                  "<h2>Known failures (1)</h2>",
                  "<h2>Vanished points (1)</h2>",
                  "<td>ring/bytes=16M/np=2</td>",
                  "<h2>Environment</h2>",
                  "<td>2× NVIDIA H200 (sm 9.0)</td>",
                  "<td>2.28.3 (built with 2.28.9)</td>",
                  "<td>Open MPI v4.1.6</td>"}));
}

TEST(ReportHtmlTest, EscapesUserText) {
  std::vector<Record> records = {testing::MakeRecord(
      {.point_suffix = "tag=<b>/np=2", .outcome = Outcome::kError,
       .signature = "<script>alert('x')</script> & \"quoted\"", .cell = {{"flags", "<img src=x onerror=y>"}}})};
  Comparison comparison = CompareResults(records, nullptr);
  ReportInput input{"title <i>", &comparison, nullptr, {}, ""};
  std::string html = RenderReportHtml(input);
  EXPECT_THAT(html, Not(HasSubstr("<script>")));
  EXPECT_THAT(html, Not(HasSubstr("<img")));
  EXPECT_THAT(html, Not(HasSubstr("<b>")));
  EXPECT_THAT(html, Not(HasSubstr("<i>")));
  EXPECT_THAT(html, ContainsAll({
                  "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot;",
                  "<th>&lt;img src=x onerror=y&gt;</th>",
                  "<title>title &lt;i&gt;</title>"}));
}

TEST(EscapeHtmlTest, AllSpecialCharacters) {
  EXPECT_EQ(EscapeHtml("a&b<c>d\"e'f"), "a&amp;b&lt;c&gt;d&quot;e&#39;f");
}

}  // namespace
}  // namespace gh
