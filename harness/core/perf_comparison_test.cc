#include "harness/core/perf_comparison.h"

#include <cmath>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/comparison.h"
#include "harness/core/perf_statistics.h"
#include "harness/core/testdata/test_records.h"

namespace gh {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;

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
  EXPECT_THAT(change.Text(), MatchesRegex("slower by 10\\.[0-9] % \\(95 % CI [0-9.]+\u2013[0-9.]+ %\\), "
                                          "1 process per side: counts only beyond 8\\.0 % \\(3 per side recommended\\)"));
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
  // With a threshold and a between-process floor under it, the same change counts.
  EXPECT_EQ(CompareMetricSamples(Time(100), Time(101), PerfOptions{.threshold = 0.005, .single_process_floor = 0})
                .verdict,
            PerfVerdict::kSlower);
}

TEST(PerfComparisonTest, OneProcessPerSideCountsOnlyBeyondTheBetweenProcessFloor) {
  // 6 %: significant among the iterations and above the 5 % threshold, but two processes of one
  // build differ by that much: not a change with one process per side.
  MetricChange change = CompareMetricSamples(Time(100), Time(106), PerfOptions{});
  EXPECT_EQ(change.verdict, PerfVerdict::kNoChange);
  EXPECT_LT(change.p_value, 1e-6);
  EXPECT_FALSE(change.process_level());
  EXPECT_THAT(change.Text(), HasSubstr("no change (+6.0 %, 95 % CI "));
  EXPECT_THAT(change.Text(), HasSubstr(" %), 1 process per side: counts only beyond 8.0 % (3 per side recommended)"));
  // A threshold above the floor is the floor.
  EXPECT_THAT(CompareMetricSamples(Time(100), Time(106), PerfOptions{.threshold = 0.1}).Text(),
              HasSubstr("counts only beyond 10.0 %"));
}

// `levels` processes of `n` samples each, process i around levels[i] * scale.
ProcessSamples Processes(const std::vector<double>& levels, double scale = 1, int n = 50) {
  ProcessSamples out{"time_median_us", "us", {}, -1};
  for (double level : levels) out.processes.push_back(Samples(level * scale, n));
  return out;
}

// Process levels spread like the H200's at 64 MiB (43.6..44.5 us: 2 %).
const std::vector<double> kBaselineLevels = {44.0, 44.4, 43.6};
const std::vector<double> kNowLevels = {44.4, 43.6, 44.5};

TEST(PerfComparisonTest, ThreeProcessesPerSideTestTheProcessLevelAndCatchAFivePercentDrop) {
  MetricChange change = CompareProcessSamples(Processes(kBaselineLevels), Processes(kNowLevels, 1 / 0.95), PerfOptions{});
  EXPECT_TRUE(change.process_level());
  EXPECT_EQ(change.baseline_processes, 3);
  EXPECT_EQ(change.now_processes, 3);
  EXPECT_EQ(change.baseline_samples, 150);
  EXPECT_EQ(change.verdict, PerfVerdict::kSlower);
  EXPECT_NEAR(change.worse, 1 / 0.95 - 1 + 0.0038, 0.002);  // the planted 5.3 % and the levels' +0.4 %
  EXPECT_LT(change.worse_low, 0.0526);  // the interval reaches the threshold from both sides
  EXPECT_GT(change.worse_high, 0.05);
  EXPECT_LT(change.p_value, 0.01);
  EXPECT_THAT(change.Text(), MatchesRegex("slower by 5\\.[0-9] % \\(99 % CI [0-9.]+\u2013[0-9.]+ %\\)"));
  // The same levels without the drop: no change, the sample-level test notwithstanding.
  MetricChange same = CompareProcessSamples(Processes(kBaselineLevels), Processes(kNowLevels), PerfOptions{});
  EXPECT_EQ(same.verdict, PerfVerdict::kNoChange);
  EXPECT_LT(MannWhitneyU(Processes(kNowLevels).processes[2], Processes(kBaselineLevels).processes[2]).p_value, 0.01);
}

TEST(PerfComparisonTest, ProcessesAtDifferentLevelsAreNoiseNotAChange) {
  // Bimodal process levels like the H200's at 1 MiB (7 or 10 us): 3 processes per side whose
  // medians differ by 20 % on average are not a change when the sides' processes overlap.
  MetricChange change = CompareProcessSamples(Processes({7.0, 10.0, 10.2}), Processes({10.1, 9.8, 10.4}), PerfOptions{});
  EXPECT_EQ(change.verdict, PerfVerdict::kNoChange);
  EXPECT_GT(change.worse, 0.05);
  EXPECT_GT(change.p_value, 0.01);
  EXPECT_THAT(change.Text(), HasSubstr("no change (+"));
  EXPECT_THAT(change.Text(), Not(HasSubstr("recommended")));
  // Two per side: said, and tested on the process level.
  MetricChange two = CompareProcessSamples(Processes({7.0, 10.0}), Processes({10.1, 9.8}), PerfOptions{});
  EXPECT_TRUE(two.process_level());
  EXPECT_THAT(two.Text(), HasSubstr(" %), 2 vs 2 processes (3 per side recommended)"));
}

TEST(PerfComparisonTest, ATrialIndexThatDoesNotFollowStartsANewProcess) {
  std::vector<ProcessSamples> samples;
  for (int trial : {0, 1, 2}) AddTrialSamples({Time(10, 4)}, trial, std::nullopt, samples);  // one run, 3 trials
  for (int trial : {0, 2}) AddTrialSamples({Time(10, 4)}, trial, std::nullopt, samples);  // a second (trial 1 failed)
  AddTrialSamples({Time(10, 4), {"iterations", 4, "count", {}}}, 0, std::nullopt, samples);  // a third
  ASSERT_EQ(samples.size(), 1u);  // metrics without samples are left out
  EXPECT_EQ(samples[0].name, "time_median_us");
  ASSERT_EQ(samples[0].processes.size(), 3u);
  EXPECT_EQ(samples[0].processes[0].size(), 12u);
  EXPECT_EQ(samples[0].processes[1].size(), 8u);
  EXPECT_EQ(samples[0].processes[2].size(), 4u);
}

// `sweep --processes N` records say their process: process 0 passed only its trial 0 and
// process 1 only its trial 1, which the trial-restart rule would take for one process; records
// read back in another order still group by process.
TEST(PerfComparisonTest, RecordsThatNameTheirProcessGroupByIt) {
  std::vector<ProcessSamples> samples;
  AddTrialSamples({Time(10, 4)}, 0, 0, samples);
  AddTrialSamples({Time(20, 3)}, 1, 1, samples);
  AddTrialSamples({Time(30, 2)}, 0, 2, samples);
  AddTrialSamples({Time(40, 1)}, 1, 0, samples);  // process 0 again, after process 2
  ASSERT_EQ(samples.size(), 1u);
  ASSERT_EQ(samples[0].processes.size(), 3u);
  EXPECT_EQ(samples[0].processes[0].size(), 5u);  // 4 + 1
  EXPECT_EQ(samples[0].processes[0].back(), Time(40, 1).samples[0]);
  EXPECT_EQ(samples[0].processes[1].size(), 3u);
  EXPECT_EQ(samples[0].processes[2].size(), 2u);
  // The same records without their process: trial 0 then 1 reads as one process.
  std::vector<ProcessSamples> unnamed;
  AddTrialSamples({Time(10, 4)}, 0, std::nullopt, unnamed);
  AddTrialSamples({Time(20, 3)}, 1, std::nullopt, unnamed);
  EXPECT_EQ(unnamed[0].processes.size(), 1u);
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

// Three runs of one point, their records one after the other (as `cat */records.jsonl` gives).
std::vector<Record> ThreeRuns(const std::vector<double>& levels, double scale) {
  std::vector<Record> records;
  for (double level : levels) {
    std::vector<Record> run = Measured(level * scale);
    records.insert(records.end(), run.begin(), run.end());
  }
  return records;
}

TEST(PerfComparisonTest, RecordsOfSeveralRunsCompareProcessByProcess) {
  std::vector<Record> baseline = ThreeRuns(kBaselineLevels, 1);
  Comparison slower = CompareResults(ThreeRuns(kNowLevels, 1 / 0.95), &baseline);
  ASSERT_EQ(slower.points.size(), 1u);
  ASSERT_EQ(slower.points[0].perf.size(), 1u);
  EXPECT_EQ(slower.points[0].perf[0].baseline_processes, 3);
  EXPECT_EQ(slower.points[0].perf[0].now_processes, 3);
  EXPECT_TRUE(slower.points[0].perf_regressed());
  EXPECT_EQ(slower.points[0].now->trials, 3);
  Comparison same = CompareResults(ThreeRuns(kNowLevels, 1), &baseline);
  EXPECT_FALSE(same.points[0].perf_regressed());
  EXPECT_EQ(ComparisonExitStatus(same), 0);
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
  // One run's trials: one process.
  ASSERT_EQ(points[0].perf_samples.size(), 1u);
  EXPECT_EQ(points[0].perf_samples[0].processes.size(), 1u);
}

}  // namespace
}  // namespace gh

namespace gh {
namespace {

TEST(ParsePercentTest, TakesThePercentSignAndRefusesABareNumber) {
  EXPECT_DOUBLE_EQ(*ParsePercent("5%"), 0.05);
  EXPECT_DOUBLE_EQ(*ParsePercent("2.5 %"), 0.025);
  // A bare 0.05 reads as 5 % to some and 0.05 % to others: said, not guessed.
  EXPECT_EQ(ParsePercent("0.05").status().message(), "expected a percentage with its % sign such as 5%, got '0.05'");
  EXPECT_EQ(ParsePercent("10").status().message(), "expected a percentage with its % sign such as 5%, got '10'");
  EXPECT_EQ(ParsePercent("0%").status().message(),
            "expected a percentage above 0 and below 100 such as 5%, got '0%'");
  EXPECT_FALSE(ParsePercent("five").ok());
  EXPECT_FALSE(ParsePercent("100").ok());
}

}  // namespace
}  // namespace gh
