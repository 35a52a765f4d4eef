// Turns how a command ended and what it printed into the rank's outcome, by the rules of the
// scenario's `exec:` block (their templates already expanded for this rank). Pure: unit-tested.
//
// Order: timeout; a skip rule's line (skip); a signature rule's line (its outcome, error by
// default; a crash when the command also died of a signal); a signal (crash); an exit status
// other than the expected one (error: with no signature rules at all, the signature is the
// output's last `SomethingError: message` line, else `exit status N: <last line>`); a pass requirement without a matching line (fail);
// otherwise pass. Outcomes other than pass and skip carry the output's last lines.
// Every regex is compiled once, when the rules are built, and searched line by line (RE2:
// linear in the line, so a 10 MiB line costs time, never the stack).
#ifndef GPUHARNESS_SCENARIOS_EXEC_CLASSIFY_H_
#define GPUHARNESS_SCENARIOS_EXEC_CLASSIFY_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "harness/scenarios/exec_block.h"
#include "harness/core/outcome.h"
#include "harness/core/regex.h"
#include "harness/scenarios/exec_process.h"

namespace gh {

// One rank's rules, their placeholders expanded and their regexes compiled.
struct ExecRules {
  struct Signature {
    std::string name;
    Regex regex;
    Outcome outcome = Outcome::kError;
  };
  struct Skip {
    Regex regex;
    std::string reason;  // "" = the first capture group's text, else the line
  };

  // Each compiles `pattern` (already expanded). InvalidArgument "<key>: invalid regular
  // expression '<pattern>': <RE2's reason>" when it does not compile, e.g. a placeholder's
  // value made it unbalanced; `key` names the rule ("exec.signatures[0].regex").
  absl::Status AddPass(std::string_view key, std::string_view pattern);
  absl::Status AddSignature(std::string_view key, std::string name, std::string_view pattern,
                            Outcome outcome);
  absl::Status AddSkip(std::string_view key, std::string_view pattern, std::string reason);

  std::vector<Regex> pass;
  std::vector<Signature> signatures;
  std::vector<Skip> skips;
  int exit_status = 0;
  int tail_lines = 20;
};

RankOutcome ClassifyExecEnd(const ExecEnd& end, std::string_view output, const ExecRules& rules);

// The last `lines` lines of `output`, bytes outside printable ASCII (and tab) shown as '?' so
// that garbage output stays valid text in the record.
std::string OutputTail(std::string_view output, int lines);

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_EXEC_CLASSIFY_H_
