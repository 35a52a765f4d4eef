#include "harness/driver/process_runner.h"

extern char** environ;

namespace gh::driver {

std::vector<std::string> CurrentEnvironment() {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) out.emplace_back(*e);
  return out;
}

absl::StatusOr<ProcessId> PosixProcessRunner::Start(const ProcessSpec& spec) {
  absl::StatusOr<Child> child = Child::Start(spec);
  if (!child.ok()) return child.status();
  const ProcessId id = child->id();
  children_.emplace(id, *std::move(child));
  return id;
}

std::optional<ProcessExit> PosixProcessRunner::Poll(ProcessId id) {
  auto it = children_.find(id);
  if (it == children_.end()) return ProcessExit{false, 255, 0};  // not ours (any more)
  std::optional<ProcessExit> exit = it->second.Poll();
  if (exit) children_.erase(it);
  return exit;
}

void PosixProcessRunner::SignalGroup(ProcessId id, int signal) {
  // Once reaped, its session was cleared (Child::Poll): nothing is left to signal.
  if (auto it = children_.find(id); it != children_.end()) it->second.Signal(signal);
}

}  // namespace gh::driver
