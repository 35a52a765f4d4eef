// The `exec:` block of a scenario of kind `exec` (its KindInfo::block_key, held in
// ScenarioSpec::block): the command each rank starts, its environment and working directory,
// and the rules that turn the command's end and output into an outcome. Plain data filled by the
// loader (docs/scenarios/exec.md documents the YAML).
// Strings marked "template" may hold placeholders such as {rank}: see exec_template.h.
#ifndef GPUHARNESS_SCENARIOS_EXEC_BLOCK_H_
#define GPUHARNESS_SCENARIOS_EXEC_BLOCK_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "harness/core/outcome.h"
#include "harness/core/scenario_spec.h"

namespace gh {

// A line of the output matching `regex` ends the rank as `outcome` with signature `name`.
struct ExecSignatureRule {
  std::string name;       // the record's signature, e.g. "async_computation_precondition"
  std::string regex;      // template; RE2 syntax, searched in each line
  Outcome outcome = Outcome::kError;  // error (default) or fail
};

// A line matching `regex` makes the rank a skip. The reason is `reason` when given, else the
// regex's first capture group when it captured something, else the whole line.
struct ExecSkipRule {
  std::string regex;   // template
  std::string reason;  // template; may be empty
};

struct ExecBlock : KindBlock {
  std::vector<std::string> argv;  // templates; argv[0] is looked up in PATH
  // Templates, in document order. An entry whose value expands to "" is left as inherited.
  std::vector<std::pair<std::string, std::string>> env;
  std::string workdir;            // template; "" = the scenario file's directory
  std::vector<std::string> pass;  // templates: each must match a line of the rank's output
  std::vector<ExecSignatureRule> signatures;  // first matching rule wins
  std::vector<ExecSkipRule> skips;            // checked before signatures
  int exit_status = 0;            // what a passing command exits with
  int tail_lines = 20;            // lines of a failing rank's output kept in the record
  // The command's own deadline; default: the scenario's timeout less a margin, so that the
  // rank records the timeout itself before the harness watchdog would end the job.
  std::optional<absl::Duration> timeout;
};

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_EXEC_BLOCK_H_
