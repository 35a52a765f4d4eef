// ring_shift's loop and graph statistics (ring_shift_timing.h) and its nccl_ce transport, without a GPU.
#include "harness/scenarios/ring_shift_timing.h"

#include <mpi.h>

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/point.h"
#include "harness/core/registry.h"
#include "harness/core/scenario_loader.h"
#include "harness/runtime/point_context.h"
#include "harness/scenarios/ring_shift.h"

namespace gh {
namespace {

using ::testing::DoubleEq;
using ::testing::ElementsAre;
using ::testing::Field;

// A metric with this name, unit and value (to 4 ULPs, as EXPECT_DOUBLE_EQ).
::testing::Matcher<const Metric&> IsMetric(const std::string& name, double value,
                                           const std::string& unit) {
  return ::testing::AllOf(Field(&Metric::name, name), Field(&Metric::value, DoubleEq(value)),
                          Field(&Metric::unit, unit));
}

TEST(LoopMetricsTest, MeanTimeAndBandwidthOfTheLoop) {
  // 50 iterations of 1 MB in 2000 us: 40 us each, 25 GB/s.
  EXPECT_THAT(LoopMetrics("", 2000, 50, 1e6),
              ElementsAre(IsMetric("time_loop_mean_us", 40, "us"),
                          IsMetric("bandwidth_loop_GBps", 25, "GB/s")));
}

TEST(LoopMetricsTest, PrefixNamesTheReferenceCopy) {
  EXPECT_THAT(LoopMetrics("copy_", 100, 4, 2e6),
              ElementsAre(IsMetric("copy_time_loop_mean_us", 25, "us"),
                          IsMetric("copy_bandwidth_loop_GBps", 80, "GB/s")));
}

TEST(LoopMetricsTest, NoBytesGivesTheTimeAlone) {
  EXPECT_THAT(LoopMetrics("", 30, 3, 0), ElementsAre(IsMetric("time_loop_mean_us", 10, "us")));
}

TEST(LoopMetricsTest, NoIterationsOrNoTimeGivesNothing) {
  EXPECT_TRUE(LoopMetrics("", 30, 0, 1e6).empty());
  EXPECT_TRUE(LoopMetrics("", 0, 5, 1e6).empty());
}

TEST(GraphMetricsTest, MedianOverReplaysOfThePerExchangeMean) {
  // Three replays of 50 exchanges of 1 MB: 40, 44 and 41 us per exchange.
  const std::vector<Metric> metrics = GraphMetrics({2000, 2200, 2050}, 50, 1e6);
  ASSERT_THAT(metrics, ElementsAre(IsMetric("time_graph_mean_us", 41, "us"),
                                   IsMetric("bandwidth_graph_GBps", 1e6 / 41e3, "GB/s")));
  // One sample per replay, in the order they ran.
  EXPECT_THAT(metrics[0].samples, ElementsAre(DoubleEq(40), DoubleEq(44), DoubleEq(41)));
  EXPECT_THAT(metrics[1].samples, ElementsAre(DoubleEq(25), DoubleEq(1e6 / 44e3), DoubleEq(1e6 / 41e3)));
}

TEST(GraphMetricsTest, EvenReplayCountInterpolatesTheMedian) {
  EXPECT_THAT(GraphMetrics({100, 140}, 10, 0), ElementsAre(IsMetric("time_graph_mean_us", 12, "us")));
}

TEST(GraphMetricsTest, NothingWithoutReplaysIterationsOrTime) {
  EXPECT_TRUE(GraphMetrics({}, 50, 1e6).empty());
  EXPECT_TRUE(GraphMetrics({100}, 0, 1e6).empty());
  EXPECT_TRUE(GraphMetrics({100, 0, 90}, 5, 1e6).empty());
}

// The copy-engine transport parses from YAML and, on the host backend, is a skip that names it
// (before any MPI or CUDA call: the context has neither).
TEST(RingShiftHostTest, CopyEngineTransportIsASkipOnTheHostBackend) {
  absl::StatusOr<std::vector<ScenarioSpec>> specs = LoadScenarioText(
      "name: ce\nkind: ring_shift\nparams: {transport: nccl_ce, bytes: 4K}\n", "ce.yaml");
  ASSERT_TRUE(specs.ok()) << specs.status();
  ASSERT_EQ(specs->size(), 1u);
  absl::StatusOr<std::vector<Point>> points = ExpandPoints((*specs)[0], 1);
  ASSERT_TRUE(points.ok()) << points.status();
  ASSERT_EQ(points->size(), 1u);
  EXPECT_EQ((*points)[0].name, "ce/bytes=4K/transport=nccl_ce/np=1");
  const KindInfo* kind = ScenarioRegistry::Global().Find("ring_shift");
  ASSERT_NE(kind, nullptr);
  PointContext ctx((*points)[0], 0, Backend::kHost, 0, 1, 0, MPI_COMM_NULL, nullptr, nullptr);
  RankOutcome out = kind->make()->Run(ctx);
  EXPECT_EQ(out.outcome, Outcome::kSkip);
  EXPECT_EQ(out.signature, "transport nccl_ce needs the cuda backend");
}

}  // namespace
}  // namespace gh
