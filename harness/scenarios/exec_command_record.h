// What an exec rank started, written beside its log as `<log>.command.json`, so that a repro
// script (bisect/repro_script_exec.h) can run the user's own command per rank without the
// harness: the expanded argv, the block's env, the working directory, and the coordinator
// address the ranks agreed on (which the repro replaces with a port of its own).
#ifndef GPUHARNESS_SCENARIOS_EXEC_COMMAND_RECORD_H_
#define GPUHARNESS_SCENARIOS_EXEC_COMMAND_RECORD_H_

#include <string>

#include "absl/status/status.h"
#include "harness/scenarios/exec_process.h"

namespace gh {

// {"point", "rank", "nranks", "coordinator", "argv", "env": [[name, value], ...], "workdir",
// "exit_status"}; the file is `command.log_path + ".command.json"`.
absl::Status WriteExecCommandRecord(const ExecCommand& command, const std::string& point, int rank, int nranks,
                                    const std::string& coordinator, int exit_status);

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_EXEC_COMMAND_RECORD_H_
