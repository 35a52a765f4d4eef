// Reads one YAML document of a scenario file into a ScenarioSpec: name, kind, description,
// params (the axes), ranks, trials, timeout, warmup, iterations and verdict, then hands
// `expect:` to expectation_loader.h and `exec:` to exec_block_loader.h.
#ifndef GPUHARNESS_CORE_SCENARIO_DOCUMENT_H_
#define GPUHARNESS_CORE_SCENARIO_DOCUMENT_H_

#include "absl/status/statusor.h"
#include "harness/core/registry.h"
#include "harness/core/scenario_spec.h"
#include "harness/core/yaml_fields.h"

namespace gh {

absl::StatusOr<ScenarioSpec> LoadScenarioDocument(const YamlDoc& doc, const YAML::Node& node,
                                                  const ScenarioRegistry& registry);

}  // namespace gh

#endif  // GPUHARNESS_CORE_SCENARIO_DOCUMENT_H_
