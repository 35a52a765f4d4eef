// Loads scenario YAML files into ScenarioSpecs, validated against the registry. Every error is
// InvalidArgument with "file:line:column: key: message"; callers exit with status 2.
#ifndef GPUHARNESS_CORE_SCENARIO_LOADER_H_
#define GPUHARNESS_CORE_SCENARIO_LOADER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/registry.h"
#include "harness/core/scenario_spec.h"

namespace gh {

// A file holds one scenario per YAML document (documents separated by ---).
absl::StatusOr<std::vector<ScenarioSpec>> LoadScenarioFile(
    const std::string& path, const ScenarioRegistry& registry = ScenarioRegistry::Global());

// The same from text, `display_name` standing for the file in messages (tests use it).
absl::StatusOr<std::vector<ScenarioSpec>> LoadScenarioText(
    const std::string& text, const std::string& display_name,
    const ScenarioRegistry& registry = ScenarioRegistry::Global());

}  // namespace gh

#endif  // GPUHARNESS_CORE_SCENARIO_LOADER_H_
