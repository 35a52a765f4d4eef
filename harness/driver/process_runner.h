// The jobs' process seam: the sweep, bisect and minimize start every job and set-up through a
// ProcessRunner, so tests drive the scheduler with fake jobs. The real one starts each through
// the harness's one way to start a process (core/child_process.h): a session of its own, killed
// as a whole, and nothing left behind when it ends or when the driver dies.
#ifndef GPUHARNESS_DRIVER_PROCESS_RUNNER_H_
#define GPUHARNESS_DRIVER_PROCESS_RUNNER_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/child_process.h"

namespace gh::driver {

using ProcessSpec = ChildSpec;  // argv, env, cwd, log_path, before_exec
using ProcessExit = ChildExit;
using ProcessId = int;

class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  // Starts the process in a new session. A missing program is not an error here: the job
  // exits 127 with the reason in its log, as a shell would.
  virtual absl::StatusOr<ProcessId> Start(const ProcessSpec& spec) = 0;
  // Non-blocking: the exit once the process has ended (reaped), nullopt while it runs.
  virtual std::optional<ProcessExit> Poll(ProcessId id) = 0;
  // Sends `signal` to every process of the job `id`. A no-op once all are gone.
  virtual void SignalGroup(ProcessId id, int signal) = 0;
};

// The real thing: Child::Start.
class PosixProcessRunner : public ProcessRunner {
 public:
  absl::StatusOr<ProcessId> Start(const ProcessSpec& spec) override;
  std::optional<ProcessExit> Poll(ProcessId id) override;
  void SignalGroup(ProcessId id, int signal) override;

 private:
  std::map<ProcessId, Child> children_;
};

// The environment of this process as NAME=VALUE entries.
std::vector<std::string> CurrentEnvironment();

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_PROCESS_RUNNER_H_
