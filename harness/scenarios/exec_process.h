// Runs one command as a child in a session of its own (core/child_process.h), its output (stdout
// and stderr) going straight to a log file, and ends the whole session when the deadline passes.
#ifndef GPUHARNESS_SCENARIOS_EXEC_PROCESS_H_
#define GPUHARNESS_SCENARIOS_EXEC_PROCESS_H_

#include <sys/types.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace gh {

struct ExecCommand {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH
  // Set (or replace) these variables; everything else is inherited.
  std::vector<std::pair<std::string, std::string>> env;
  std::string workdir;            // "" = the rank's own
  std::string log_path;           // created (truncated); stdout and stderr both go here
  absl::Duration timeout = absl::Seconds(60);
  // After the deadline: SIGTERM to the session, then SIGKILL once this has passed.
  absl::Duration kill_grace = absl::Seconds(2);
  // At the deadline, before the session is killed, with its id (the process group of the
  // command): asks the processes for their stacks (exec_stack_dump.h). May be empty.
  std::function<void(pid_t)> before_kill;
};

struct ExecEnd {
  bool timed_out = false;   // the deadline passed; the session was killed
  bool signaled = false;    // ended by a signal (not counting our own kill after a timeout)
  int signal_number = 0;
  int exit_status = 0;      // when neither timed out nor signaled
  absl::Duration elapsed;
};

// Error statuses: the log cannot be created (InvalidArgument: a bad path is bad input), the
// program cannot be started (NotFound/PermissionDenied/...: "cannot run 'x': No such file or
// directory"), the working directory does not exist (likewise), fork fails (Internal).
absl::StatusOr<ExecEnd> RunExecCommand(const ExecCommand& command);

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_EXEC_PROCESS_H_
