// Reads a scenario's `expect_metrics:` block (core/metric_expectation.h): a map from metric
// name to a bound {min, max, vs, when, reason} or a list of bounds. docs/reference/scenario-yaml.md
// describes the format.
#ifndef GPUHARNESS_CORE_METRIC_EXPECTATION_LOADER_H_
#define GPUHARNESS_CORE_METRIC_EXPECTATION_LOADER_H_

#include "absl/status/status.h"
#include "harness/core/registry.h"
#include "harness/core/scenario_spec.h"
#include "harness/core/yaml_fields.h"

namespace gh {

// Appends the bounds of `node` to spec.expect_metrics; `spec.axes` must be loaded (`vs:` and
// `when:` values must be ones the axes take). Errors are "file:line:col: key: message".
absl::Status LoadMetricExpectations(const YamlDoc& doc, const YAML::Node& node,
                                    const KindInfo& kind, ScenarioSpec& spec);

}  // namespace gh

#endif  // GPUHARNESS_CORE_METRIC_EXPECTATION_LOADER_H_
