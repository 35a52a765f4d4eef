#include "harness/core/metric_expectation.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/comparison.h"
#include "harness/core/point.h"
#include "harness/core/record.h"
#include "harness/core/registry.h"
#include "harness/core/scenario_loader.h"
#include "harness/core/testdata/error_cases.h"
#include "harness/core/testdata/loaded_scenario.h"

namespace gh {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

ScenarioRegistry MakeRegistry() {
  return testing::RegistryOfOneHostKind(
      "fake_ring", {{"transport", ParamType::kEnum, std::string("a"), "how", {"a", "b"}, {}, {}},
                    {"bytes", ParamType::kBytes, int64_t{1024}, "per rank", {}, 0.0, {}}});
}

constexpr char kScenario[] =
    "name: ring\n"
    "kind: fake_ring\n"
    "params:\n"
    "  transport: [a, b]\n"
    "  bytes: [1K, 1G]\n"
    "expect_metrics:\n"
    "  bandwidth_GBps:\n"
    "    - {min: 1800, when: {gpu: \"NVIDIA H200*\", bytes: \">=1G\"}, reason: measured 1905}\n"
    "    - {min: 0.9, vs: {transport: a}, when: {transport: b}}\n"
    "  time_median_us: {max: 50}\n";

class MetricExpectationTest : public testing::LoadedScenarioTest {
 protected:
  MetricExpectationTest() : LoadedScenarioTest(kScenario, MakeRegistry()) {}
  std::string LoadError(const std::string& text) {
    return std::string(LoadScenarioText(text, "scenarios/bad.yaml", registry_).status().message());
  }
};

EnvironmentFacts H200() { return EnvironmentFacts{{{"backend", "cuda"}, {"gpu", "NVIDIA H200"}}}; }

TEST_F(MetricExpectationTest, BoundsApplyWhereTheirConditionsHoldAndResolveTheReferencePoint) {
  const Point& big_b = PointNamed("ring/transport=b/bytes=1G/np=2");
  std::vector<MetricBound> bounds = MetricBoundsFor(spec_.expect_metrics, big_b, H200());
  ASSERT_EQ(bounds.size(), 3u);
  EXPECT_EQ(bounds[0].ToString(), "bandwidth_GBps >= 1800");
  EXPECT_EQ(bounds[0].reason, "measured 1905");
  EXPECT_EQ(bounds[1].ToString(), "bandwidth_GBps / ring/transport=a/bytes=1G/np=2 >= 0.9");
  EXPECT_EQ(bounds[2].ToString(), "time_median_us <= 50");
  // Not an H200, small size, transport a: only the time bound.
  const Point& small_a = PointNamed("ring/transport=a/bytes=1K/np=2");
  EnvironmentFacts h100{{{"backend", "cuda"}, {"gpu", "NVIDIA H100 80GB HBM3"}}};
  EXPECT_EQ(MetricBoundsFor(spec_.expect_metrics, PointNamed("ring/transport=a/bytes=1G/np=2"), h100).size(), 1u);
  EXPECT_EQ(MetricBoundsFor(spec_.expect_metrics, small_a, H200()).size(), 1u);
  EXPECT_EQ(MetricBoundsFor(spec_.expect_metrics, small_a, EnvironmentFacts{}).size(), 1u);
}

Record Measured(const ScenarioSpec& spec, const Point& point, double gbps, double us) {
  Record record = MakeRecord(spec, "scenarios/ring.yaml", point, 0, H200());
  PointOutcome result;
  result.metrics = {{"time_median_us", us, "us", {us, us}}, {"bandwidth_GBps", gbps, "GB/s", {}}};
  SetResult(record, result);
  return record;
}

TEST_F(MetricExpectationTest, AMissedBoundIsAnUnmetExpectationNamingMetricBoundAndValue) {
  const Point& a = PointNamed("ring/transport=a/bytes=1G/np=2");
  const Point& b = PointNamed("ring/transport=b/bytes=1G/np=2");
  std::vector<Record> records = {Measured(spec_, a, 1900, 40), Measured(spec_, b, 1650.2, 60)};
  // The bounds travel in the records: read back, they judge the same.
  absl::StatusOr<Record> again = RecordFromJson(RecordToJson(records[1]));
  ASSERT_TRUE(again.ok()) << again.status();
  records[1] = *again;
  Comparison comparison = CompareResults(records, nullptr);
  ASSERT_EQ(comparison.points.size(), 2u);
  EXPECT_TRUE(comparison.points[0].expectation_met());
  const PointTrials& slow = *comparison.points[1].now;
  EXPECT_FALSE(slow.expectation_met());
  EXPECT_THAT(slow.metric_misses,
              ElementsAre("metric bandwidth_GBps = 1650 GB/s, below the bound >= 1800",
                          "metric bandwidth_GBps = 0.8685 x ring/transport=a/bytes=1G/np=2, below the bound >= 0.9",
                          "metric time_median_us = 60 us, above the bound <= 50"));
  EXPECT_EQ(slow.first_unmet_signature, slow.metric_misses[0]);
  EXPECT_EQ(comparison.counts.unmet, 1);
  EXPECT_EQ(ComparisonExitStatus(comparison), 1);
}

TEST_F(MetricExpectationTest, AMetricNotRecordedMissesItsBound) {
  const Point& a = PointNamed("ring/transport=a/bytes=1K/np=2");
  Record record = MakeRecord(spec_, "scenarios/ring.yaml", a, 0, H200());
  SetResult(record, PointOutcome{});
  Comparison comparison = CompareResults({record}, nullptr);
  EXPECT_THAT(comparison.points[0].now->metric_misses,
              ElementsAre("metric time_median_us not recorded by ring/transport=a/bytes=1K/np=2, bound <= 50"));
}

TEST_F(MetricExpectationTest, BadYamlNamesFileLineColumnAndKey) {
  const std::string head = "name: ring\nkind: fake_ring\nparams: {transport: [a, b], bytes: 1K}\n";
  ::gh::testing::ExpectErrors(
      [this](const std::string& text) { return LoadError(text); }, head,
      {{"expect_metrics:\n  bandwidth_GBps: {mni: 3}\n",
        "scenarios/bad.yaml:5:20: expect_metrics.bandwidth_GBps.mni: unknown key; did you mean min?"},
       {"expect_metrics:\n  bandwidth_GBps: {min: fast}\n",
        "scenarios/bad.yaml:5:25: expect_metrics.bandwidth_GBps.min: expected a number, got 'fast'"},
       {"expect_metrics:\n  bandwidth_GBps: {reason: x}\n",
        "scenarios/bad.yaml:5:19: expect_metrics.bandwidth_GBps: expected min and/or max"},
       {"expect_metrics:\n  bandwidth_GBps: {min: 2, max: 1}\n",
        "expect_metrics.bandwidth_GBps.max: max 1 is below min 2"},
       {"expect_metrics:\n  bandwidth_GBps: {min: 1, vs: {transport: c}}\n",
        "expect_metrics.bandwidth_GBps.vs.transport:"},
       {"expect_metrics:\n  bandwidth_GBps: {min: 1, vs: {dtype: f32}}\n",
        "expect_metrics.bandwidth_GBps.vs.dtype: not a parameter set in this scenario's params"},
       {"expect_metrics:\n  bandwidth_GBps: {min: 1, when: {bytes: \">=lots\"}}\n",
        "scenarios/bad.yaml:5:42: expect_metrics.bandwidth_GBps.when.bytes: bad range clause 'lots'"},
       {"expect_metrics: [1]\n",
        "scenarios/bad.yaml:4:17: expect_metrics: expected a map of metric names to bounds"}});
}

}  // namespace
}  // namespace gh
