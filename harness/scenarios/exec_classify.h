// Turns how a command ended and what it printed into the rank's outcome, by the rules of the
// scenario's `exec:` block (their templates already expanded for this rank). Pure: unit-tested.
//
// Order: timeout; a skip rule's line (skip); a signature rule's line (its outcome, error by
// default; a crash when the command also died of a signal); a signal (crash); an exit status
// other than the expected one (error); a pass requirement without a matching line (fail);
// otherwise pass. Outcomes other than pass and skip carry the output's last lines.
#ifndef GPUHARNESS_SCENARIOS_EXEC_CLASSIFY_H_
#define GPUHARNESS_SCENARIOS_EXEC_CLASSIFY_H_

#include <string>
#include <string_view>
#include <vector>

#include "harness/core/exec_block.h"
#include "harness/core/outcome.h"
#include "harness/scenarios/exec_process.h"

namespace gh {

struct ExecRules {
  std::vector<std::string> pass;
  std::vector<ExecSignatureRule> signatures;
  std::vector<ExecSkipRule> skips;
  int exit_status = 0;
  int tail_lines = 20;
};

RankOutcome ClassifyExecEnd(const ExecEnd& end, std::string_view output, const ExecRules& rules);

// The last `lines` lines of `output`, bytes outside printable ASCII (and tab) shown as '?' so
// that garbage output stays valid text in the record.
std::string OutputTail(std::string_view output, int lines);

std::string ExecSignalName(int signal_number);  // "SIGSEGV", or "signal 42"

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_EXEC_CLASSIFY_H_
