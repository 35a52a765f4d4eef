// Expected metrics of points (scenario `expect_metrics:`): bounds a point's measured metric must
// keep, under the same `when:` conditions as outcome expectations (core/expectation.h).
//   expect_metrics:
//     bandwidth_GBps: {min: 1800, when: {gpu: "NVIDIA H200*", bytes: ">=1G"}}
//     bandwidth_vs_copy: {min: 0.9}                        # a ratio the kind records itself
//     time_median_us: {max: 1.1, vs: {transport: mpi_p2p}} # relative to another point
//     busbw_GBps: {min: reference}                         # the shipped reference floor
// A bound with `vs:` compares the metric with the same metric of the reference point: this point
// with the listed parameters changed, in the same cell (the same job's run). Every rule whose
// conditions hold applies (unlike outcome rules, where the first wins). A missed bound is an
// unmet expectation; its signature names the metric, the bound and the value. `min: reference`
// takes the bound from a reference table (core/reference_floors.h): the row for the point's
// GPU, ranks, op and size, or no bound where the table has none.
#ifndef GPUHARNESS_CORE_METRIC_EXPECTATION_H_
#define GPUHARNESS_CORE_METRIC_EXPECTATION_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/expectation.h"
#include "harness/core/metric.h"
#include "harness/core/reference_floors.h"
#include "nlohmann/json.hpp"

namespace gh {

struct Point;

// One bound as it applies to one point.
struct MetricBound {
  std::string metric;          // "bandwidth_GBps"
  std::optional<double> min;   // value >= min
  std::optional<double> max;   // value <= max
  // The reference point's name for a relative bound ("" for an absolute one): the bound is
  // then on metric / the reference point's metric.
  std::string reference_point;
  std::string reason;
  // A min taken from a reference table: the row (ReferenceRow::Describe), else "".
  std::string reference = {};
  // "bandwidth_GBps >= 1800", "time_median_us / ring_shift/transport=mpi_p2p/np=2 <= 1.1"
  std::string ToString() const;
};

// A bound as the YAML states it, with its conditions (only the rule's `when` parts are used).
struct MetricBoundRule {
  std::string metric;
  std::optional<double> min, max;
  std::map<std::string, std::string> vs;  // parameter -> value as formatted in point names
  std::string reason;
  ExpectationRule when;
  // `min: reference`: min is the floor of this table's row for the point (no row: no bound).
  std::shared_ptr<const ReferenceTable> min_reference = {};
};

// The bounds of `rules` whose conditions hold for the point in `facts`, reference points
// resolved. A `vs` parameter missing from the point's name leaves the bound out.
std::vector<MetricBound> MetricBoundsFor(const std::vector<MetricBoundRule>& rules,
                                         const Point& point, const EnvironmentFacts& facts);

// A point's metric by name (the median over its passing trials), or nullptr.
using MetricLookup = std::function<const Metric*(const std::string& point, const std::string& metric)>;

// The signature of every missed bound of `point`: "metric bandwidth_GBps = 1650.2 GB/s, below
// the bound >= 1800", "metric time_median_us = 1.32 x ring_shift/...=mpi_p2p/np=2, above the
// bound <= 1.1"; a metric the point (or its reference) did not record: "metric X not recorded,
// bound >= 1800"; a reference floor: "metric busbw_GBps = 301.2 GB/s, below the reference for
// <the row> (floor 324)". Empty when every bound holds.
std::vector<std::string> MissedMetricBounds(const std::vector<MetricBound>& bounds,
                                            const std::string& point, const MetricLookup& lookup);

nlohmann::json MetricBoundsToJson(const std::vector<MetricBound>& bounds);
// InvalidArgument naming `path` ("expected.metrics[1].min: expected a number").
absl::StatusOr<std::vector<MetricBound>> MetricBoundsFromJson(const nlohmann::json& json,
                                                              const std::string& path);

}  // namespace gh

#endif  // GPUHARNESS_CORE_METRIC_EXPECTATION_H_
