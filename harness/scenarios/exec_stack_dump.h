// Stacks of an exec command's processes at its timeout (docs/explanation/hangs.md), taken before the
// harness kills them. Python processes: where py-spy is installed (GH_PY_SPY names it, "off"
// turns it off; else "py-spy" on PATH) the harness runs `py-spy dump --pid` on each Python
// interpreter of the command's process group (<dir>/spy-<pid>.txt). Otherwise, and for any
// process py-spy could not read, faulthandler: a sitecustomize.py the harness writes, first on
// the child's PYTHONPATH, registers it on SIGUSR1 (every thread, into a file of its own per
// process: <dir>/py-<pid>.txt) and then runs any sitecustomize it shadows; at the timeout the
// harness sends SIGUSR1 to each process that registered and reads what they wrote. The
// record's stack_note says which tool took which pid's stacks. Native programs offer nothing
// without a debugger: the record says so rather than nothing.
#ifndef GPUHARNESS_SCENARIOS_EXEC_STACK_DUMP_H_
#define GPUHARNESS_SCENARIOS_EXEC_STACK_DUMP_H_

#include <sys/types.h>

#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "harness/core/outcome.h"
#include "harness/scenarios/exec_process.h"

namespace gh {

// How long the harness waits for the processes' faulthandler dumps after asking.
inline constexpr absl::Duration kExecStackWait = absl::Seconds(1);
// How long all of the command's py-spy dumps may take together (one takes ~0.7 s here).
inline constexpr absl::Duration kPySpyWait = absl::Seconds(3);

class ExecStackDump {
 public:
  // `dir` is created (emptied) to hold the bootstrap and the dumps.
  explicit ExecStackDump(std::string dir) : dir_(std::move(dir)) {}

  // Writes the bootstrap and points `command` at it (PYTHONPATH first, GH_STACK_DUMP_DIR),
  // and makes the command ask for the stacks at its timeout (ExecCommand::before_kill).
  absl::Status Prepare(ExecCommand& command);
  // Runs py-spy on the Python processes of process group `group` (at most kPySpyWait), then
  // signals every registered process py-spy did not read; waits at most kExecStackWait for
  // their dumps.
  void Request(pid_t group) const;
  // After the command ended by a timeout: the dumps into `outcome` (stack: the frames,
  // innermost first, the current thread's first; stack_note: which processes and threads) and
  // appended to the log at `log_path`; or the note that nothing could be had.
  void Attach(const std::string& log_path, RankOutcome& outcome) const;

 private:
  std::string dir_;
};

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_EXEC_STACK_DUMP_H_
