// Reads a scenario's `expect:` block: one rule or a list of rules (outcome, signature, reason),
// each with optional `when:` conditions on the kind's parameters and the job's facts (backend,
// nranks, nccl, env, gpu_shared). docs/scenario-format.md describes the format.
#ifndef GPUHARNESS_CORE_EXPECTATION_LOADER_H_
#define GPUHARNESS_CORE_EXPECTATION_LOADER_H_

#include "absl/status/status.h"
#include "harness/core/registry.h"
#include "harness/core/scenario_spec.h"
#include "harness/core/yaml_fields.h"

namespace gh {

// Appends the rules of `node` to spec.expect; `spec.axes` must be loaded (a `when:` value must
// be one the axis takes). Regexes are checked (RE2) at load time.
absl::Status LoadExpectations(const YamlDoc& doc, const YAML::Node& node, const KindInfo& kind,
                              ScenarioSpec& spec);

}  // namespace gh

#endif  // GPUHARNESS_CORE_EXPECTATION_LOADER_H_
