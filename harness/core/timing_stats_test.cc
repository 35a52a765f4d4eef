#include "harness/core/timing_stats.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "harness/core/record.h"

namespace gh {
namespace {

TEST(TimingStatsTest, TheMedianAndBandwidthMetricsCarryEverySampleInTheOrderTaken) {
  TimingStats stats = SummarizeTimings({4, 1, 2});
  EXPECT_EQ(stats.median_us, 2);
  EXPECT_EQ(stats.samples_us, (std::vector<double>{4, 1, 2}));
  std::vector<Metric> metrics = TimingMetrics(stats, 4000);
  ASSERT_EQ(metrics.front().name, "time_median_us");
  EXPECT_EQ(metrics.front().samples, (std::vector<double>{4, 1, 2}));
  ASSERT_EQ(metrics.back().name, "bandwidth_GBps");
  EXPECT_DOUBLE_EQ(metrics.back().value, 2);
  EXPECT_EQ(metrics.back().samples, (std::vector<double>{1, 4, 2}));
  const std::vector<std::string>& sampled = SampledMetricNames();
  for (const Metric& m : metrics) {
    const bool known = std::find(sampled.begin(), sampled.end(), m.name) != sampled.end();
    EXPECT_EQ(!m.samples.empty(), known) << m.name << ": SampledMetricNames() names the metrics with samples";
  }
}

TEST(TimingStatsTest, ARecordWritesSamplesAtPointLevelOnlyWithItsWarmupAndIterations) {
  Record record;
  record.scenario = "s";
  record.point = "s/np=1";
  record.warmup = 3;
  record.iterations = 2;
  record.hardware = "cpu: Example CPU";
  record.result.metrics = TimingMetrics(SummarizeTimings({5, 6}), 0);
  RankOutcome rank;
  rank.metrics = record.result.metrics;
  record.result.ranks = {rank};
  nlohmann::json json = RecordToJson(record);
  EXPECT_EQ(json["metrics"][0]["samples"], nlohmann::json::array({5.0, 6.0}));
  EXPECT_FALSE(json["ranks"][0]["metrics"][0].contains("samples"));
  EXPECT_EQ(json["timing"], (nlohmann::json{{"warmup", 3}, {"iterations", 2}}));
  EXPECT_EQ(json["hardware"], "cpu: Example CPU");
  absl::StatusOr<Record> again = RecordFromJson(json);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->warmup, 3);
  EXPECT_EQ(again->iterations, 2);
  EXPECT_EQ(again->hardware, "cpu: Example CPU");
  // Without samples there is no timing field.
  record.result.metrics.clear();
  EXPECT_FALSE(RecordToJson(record).contains("timing"));
  json["metrics"][0]["samples"] = "many";
  EXPECT_EQ(RecordFromJson(json).status().message(), "metrics[0].samples: expected an array of numbers");
}

}  // namespace
}  // namespace gh
