// The process seam: the sweep starts every job through a ProcessRunner, so tests drive the
// scheduler with fake jobs. Each job runs in a NEW session (and process group), so a hung or
// crashed job is killed with all its children by signalling the session: every process it
// started, including those in process groups of their own (mpirun gives each rank one).
#ifndef GPUHARNESS_DRIVER_PROCESS_RUNNER_H_
#define GPUHARNESS_DRIVER_PROCESS_RUNNER_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace gh::driver {

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH when it has no '/'
  std::vector<std::string> env;   // the whole environment, NAME=VALUE
  std::string cwd;                // working directory
  std::string log_path;           // stdout and stderr, created or truncated
  // Called with the child's id after fork, while the child (already in its own session) waits
  // to exec; the child execs only when it returns OK, and is killed otherwise. The job ledger
  // records a job here, so no job ever runs unrecorded. Runners without real children may
  // ignore it.
  std::function<absl::Status(int)> before_exec;
};

struct ProcessExit {
  bool signaled = false;
  int code = 0;    // exit status when !signaled
  int signal = 0;  // terminating signal when signaled
  std::string ToString() const;  // "exit 1", "killed by SIGSEGV"
};

using ProcessId = int;

class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  // Starts the process in a new process group. A missing program is not an error here: the
  // job exits 127 with the reason in its log, as a shell would.
  virtual absl::StatusOr<ProcessId> Start(const ProcessSpec& spec) = 0;
  // Non-blocking: the exit once the process has ended (reaped), nullopt while it runs.
  virtual std::optional<ProcessExit> Poll(ProcessId id) = 0;
  // Sends `signal` to every process of the job `id`: its process group and (for the real
  // runner) every process of its session. A no-op once all are gone.
  virtual void SignalGroup(ProcessId id, int signal) = 0;
};

// fork/exec with setsid(); the real thing. The child also gets PR_SET_PDEATHSIG(SIGKILL), so the
// job's leader (mpirun) dies with the driver however the driver ends; what the leader leaves
// behind is stopped by the next run in the same DIR (JobLedger).
class PosixProcessRunner : public ProcessRunner {
 public:
  absl::StatusOr<ProcessId> Start(const ProcessSpec& spec) override;
  std::optional<ProcessExit> Poll(ProcessId id) override;
  void SignalGroup(ProcessId id, int signal) override;
};

// "SIGSEGV" for 11, "signal 64" when unnamed.
std::string SignalName(int signal);

// The environment of this process as NAME=VALUE entries.
std::vector<std::string> CurrentEnvironment();

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_PROCESS_RUNNER_H_
