// Reads the `exec:` block of a scenario of kind exec (docs/scenarios/exec.md): argv, env,
// workdir, the pass/signature/skip rules, exit_status, tail_lines and the command's timeout.
// Templates are checked against the known placeholders and regexes compiled (RE2) at load time.
#ifndef GPUHARNESS_SCENARIOS_EXEC_BLOCK_LOADER_H_
#define GPUHARNESS_SCENARIOS_EXEC_BLOCK_LOADER_H_

#include <memory>

#include "absl/status/statusor.h"
#include "harness/core/registry.h"
#include "harness/core/scenario_spec.h"
#include "harness/core/yaml_fields.h"

namespace gh {

// The ExecBlock of kind `kind`'s scenario `spec` from `node` (its KindInfo::read_block); an
// undefined `node` is the missing block's error. spec.timeout must be loaded (exec.timeout must
// be shorter).
absl::StatusOr<std::shared_ptr<const KindBlock>> ReadExecBlock(const YamlDoc& doc, const YAML::Node& node,
                                                               const KindInfo& kind, const ScenarioSpec& spec);

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_EXEC_BLOCK_LOADER_H_
