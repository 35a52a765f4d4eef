// Reads a scenario's `expect:` block: one rule or a list of rules (outcome, signature, reason),
// each with optional `when:` conditions on the kind's parameters and the job's facts (backend,
// nranks, nccl, env, gpu_shared). docs/reference/scenario-yaml.md describes the format.
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

// Reads a `when:` map into the conditions of `rule` (its expectation untouched): parameters
// (values the axis takes, or a range on an integer or size parameter: `bytes: ">=1G"`) and
// facts (backend, nranks, nccl, env, gpu_shared, gpu). Metric bounds read theirs through it.
absl::Status LoadWhenConditions(const YamlDoc& doc, const YAML::Node& node, const std::string& path,
                                const KindInfo& kind, const ScenarioSpec& spec,
                                ExpectationRule& rule);

// Reads `valid_for:` (where the scenario's expectations hold) into spec.valid_for: the facts of
// a `when:` map (backend, nranks, nccl, env, gpu_shared, gpu); a parameter is refused, naming
// its axis as the place to narrow it.
absl::Status LoadValidFor(const YamlDoc& doc, const YAML::Node& node, const KindInfo& kind, ScenarioSpec& spec);

}  // namespace gh

#endif  // GPUHARNESS_CORE_EXPECTATION_LOADER_H_
