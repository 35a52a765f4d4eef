// Reads the `exec:` block of a scenario of kind exec (docs/scenarios/exec.md): argv, env,
// workdir, the pass/signature/skip rules, exit_status, tail_lines and the command's timeout.
// Templates are checked against the known placeholders and regexes compiled (RE2) at load time.
#ifndef GPUHARNESS_CORE_EXEC_BLOCK_LOADER_H_
#define GPUHARNESS_CORE_EXEC_BLOCK_LOADER_H_

#include "absl/status/status.h"
#include "harness/core/registry.h"
#include "harness/core/scenario_spec.h"
#include "harness/core/yaml_fields.h"

namespace gh {

// Fills spec.exec from `node`; spec.timeout must be loaded (exec.timeout must be shorter).
absl::Status LoadExecBlock(const YamlDoc& doc, const YAML::Node& node, const KindInfo& kind,
                           ScenarioSpec& spec);

}  // namespace gh

#endif  // GPUHARNESS_CORE_EXEC_BLOCK_LOADER_H_
