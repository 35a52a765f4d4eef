#include "harness/core/perf_comparison.h"

#include <cmath>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/comparison.h"
#include "harness/core/testdata/test_records.h"

namespace gh {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

// `n` deterministic samples around `center` with +-2 % spread (a sawtooth: no RNG needed).
std::vector<double> Samples(double center, int n = 60) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(center * (0.98 + 0.04 * ((i * 37) % n) / n));
  return out;
}

Metric Time(double center, int n = 60) { return {"time_median_us", center, "us", Samples(center, n)}; }
Metric Bandwidth(double center) { return {"bandwidth_GBps", center, "GB/s", Samples(center)}; }

TEST(PerfComparisonTest, TenPercentLongerTimesAreSlowerWithTheirInterval) {
  MetricChange change = CompareMetricSamples(Time(100), Time(110), PerfOptions{});
  EXPECT_EQ(change.verdict, PerfVerdict::kSlower);
  EXPECT_NEAR(change.worse, 0.10, 0.005);
  EXPECT_LT(change.worse_low, change.worse);
  EXPECT_GT(change.worse_high, change.worse);
  EXPECT_LT(change.p_value, 1e-6);
  EXPECT_THAT(change.Text(), MatchesRegex("slower by 10\\.[0-9] % \\(95 % CI [0-9.]+\u2013[0-9.]+ %\\)"));
}

TEST(PerfComparisonTest, LowerBandwidthIsSlowerAndHigherIsFaster) {
  EXPECT_EQ(CompareMetricSamples(Bandwidth(100), Bandwidth(90), PerfOptions{}).verdict, PerfVerdict::kSlower);
  MetricChange faster = CompareMetricSamples(Bandwidth(100), Bandwidth(110), PerfOptions{});
  EXPECT_EQ(faster.verdict, PerfVerdict::kFaster);
  EXPECT_THAT(faster.Text(), HasSubstr("faster by 10.0 % (95 % CI "));
}

TEST(PerfComparisonTest, AOnePercentChangeIsSignificantButBelowTheThreshold) {
  MetricChange change = CompareMetricSamples(Time(100), Time(101), PerfOptions{});
  EXPECT_EQ(change.verdict, PerfVerdict::kNoChange);
  EXPECT_THAT(change.Text(), HasSubstr("no change (+1.0 %, 95 % CI "));
  // With a threshold under it, the same change counts.
  EXPECT_EQ(CompareMetricSamples(Time(100), Time(101), PerfOptions{.threshold = 0.005}).verdict,
            PerfVerdict::kSlower);
}

TEST(PerfComparisonTest, FewNoisySamplesAreNotEnoughEvidence) {
  // 3 samples each, ranges overlapping: the median moved 10 % but the test is not significant.
  Metric before{"time_median_us", 100, "us", {80, 100, 120}};
  Metric now{"time_median_us", 110, "us", {90, 110, 125}};
  EXPECT_EQ(CompareMetricSamples(before, now, PerfOptions{}).verdict, PerfVerdict::kNoChange);
}

TEST(PerfComparisonTest, OnlyMetricsWithSamplesOnBothSidesCompare) {
  std::vector<Metric> before = {Time(100), {"iterations", 60, "count", {}}, Bandwidth(50)};
  std::vector<Metric> now = {Time(100), {"iterations", 60, "count", {}}};
  std::vector<MetricChange> changes = CompareMetrics(before, now, PerfOptions{});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].metric, "time_median_us");
}

TEST(PerfComparisonTest, DifferentHardwareOrSharingIsIncomparable) {
  EXPECT_EQ(IncomparableReason({"cuda", "NVIDIA H200", false}, {"cuda", "NVIDIA H200", false}), "");
  EXPECT_EQ(IncomparableReason({"cuda", "NVIDIA H100 80GB HBM3", false}, {"cuda", "NVIDIA H200", false}),
            "measured on NVIDIA H100 80GB HBM3 (baseline) vs NVIDIA H200");
  EXPECT_EQ(IncomparableReason({"cuda", "", false}, {"cuda", "NVIDIA H200", true}),
            "ranks shared a GPU now, not in the baseline");
  EXPECT_EQ(IncomparableReason({"host", "", false}, {"cuda", "", false}), "backend host (baseline) vs cuda");
  EXPECT_EQ(IncomparableReason({"host", "", false}, {"host", "cpu: AMD EPYC", false}), "");
}

std::vector<Record> Measured(double center, const std::string& hardware = "") {
  testing::RecordSpec spec{.metrics = {Time(center)}};
  Record record = testing::MakeRecord(spec);
  record.hardware = hardware;
  return {record};
}

TEST(PerfComparisonTest, ASlowerPointIsAPerfRegressionThatFailsTheRunUnlessWarnOnly) {
  std::vector<Record> baseline = Measured(100);
  Comparison comparison = CompareResults(Measured(110), &baseline);
  ASSERT_EQ(comparison.points.size(), 1u);
  EXPECT_TRUE(comparison.points[0].perf_regressed());
  EXPECT_EQ(comparison.points[0].change, BaselineChange::kUnchanged);
  EXPECT_EQ(comparison.counts.perf_regressions, 1);
  EXPECT_EQ(ComparisonExitStatus(comparison), 1);
  EXPECT_THAT(ComparisonHeadline(comparison), HasSubstr("; perf: 1 point slower, 0 faster"));
  BaselineMatch warn_only;
  warn_only.perf.warn_only = true;
  Comparison warned = CompareResults(Measured(110), &baseline, warn_only);
  EXPECT_EQ(warned.counts.perf_regressions, 1);
  EXPECT_EQ(ComparisonExitStatus(warned), 0);
  EXPECT_THAT(ComparisonHeadline(warned), HasSubstr("(warn only)"));
  Comparison same = CompareResults(Measured(100.5), &baseline);
  EXPECT_EQ(same.counts.perf_regressions, 0);
  EXPECT_EQ(ComparisonExitStatus(same), 0);
}

TEST(PerfComparisonTest, PointsOnDifferentHardwareAreSaidIncomparableNotCompared) {
  std::vector<Record> baseline = Measured(100, "NVIDIA H100 80GB HBM3");
  Comparison comparison = CompareResults(Measured(150, "NVIDIA H200"), &baseline);
  EXPECT_TRUE(comparison.points[0].perf.empty());
  EXPECT_EQ(comparison.points[0].incomparable, "measured on NVIDIA H100 80GB HBM3 (baseline) vs NVIDIA H200");
  EXPECT_EQ(comparison.counts.perf_incomparable, 1);
  EXPECT_EQ(ComparisonExitStatus(comparison), 0);
}

TEST(PerfComparisonTest, SamplesOfEveryPassingTrialArePooledAndRoundTrip) {
  testing::RecordSpec spec{.metrics = {Time(100, 10)}};
  std::vector<Record> records = testing::MakeTrials(spec, {Outcome::kPass, Outcome::kPass, Outcome::kFail}, {});
  absl::StatusOr<Record> again = RecordFromJson(RecordToJson(records[0]));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->result.metrics[0].samples, records[0].result.metrics[0].samples);
  std::vector<PointTrials> points = AggregateTrials(records);
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].FindMetric("time_median_us")->samples.size(), 20u);
}

}  // namespace
}  // namespace gh

namespace gh {
namespace {

TEST(ParsePercentTest, WithOrWithoutThePercentSign) {
  EXPECT_DOUBLE_EQ(*ParsePercent("5%"), 0.05);
  EXPECT_DOUBLE_EQ(*ParsePercent("2.5 %"), 0.025);
  EXPECT_DOUBLE_EQ(*ParsePercent("10"), 0.10);
  EXPECT_EQ(ParsePercent("0%").status().message(),
            "expected a percentage above 0 and below 100 such as 5%, got '0%'");
  EXPECT_FALSE(ParsePercent("five").ok());
  EXPECT_FALSE(ParsePercent("100").ok());
}

}  // namespace
}  // namespace gh
