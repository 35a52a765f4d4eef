#include "harness/scenarios/exec_process.h"

#include <signal.h>
#include <unistd.h>

#include <map>

#include "absl/strings/str_cat.h"
#include "harness/core/child_process.h"

extern char** environ;

namespace gh {
namespace {

std::vector<std::string> MergedEnvironment(const std::vector<std::pair<std::string, std::string>>& set) {
  std::map<std::string, std::string> vars;
  std::vector<std::string> order;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry(*e);
    size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    std::string name = entry.substr(0, eq);
    if (vars.emplace(name, entry.substr(eq + 1)).second) order.push_back(name);
  }
  for (const auto& [name, value] : set) {
    if (vars.find(name) == vars.end()) order.push_back(name);
    vars[name] = value;
  }
  std::vector<std::string> out;
  for (const std::string& name : order) out.push_back(absl::StrCat(name, "=", vars[name]));
  return out;
}

// Polls `child` until it ends or `deadline` passes.
std::optional<ChildExit> WaitUntil(Child& child, absl::Time deadline) {
  for (;;) {
    if (std::optional<ChildExit> exit = child.Poll()) return exit;
    if (absl::Now() >= deadline) return std::nullopt;
    usleep(5000);
  }
}

}  // namespace

absl::StatusOr<ExecEnd> RunExecCommand(const ExecCommand& command) {
  if (command.argv.empty()) return absl::InvalidArgumentError("no command to run");
  ChildSpec spec;
  spec.argv = command.argv;
  spec.env = MergedEnvironment(command.env);
  spec.cwd = command.workdir;
  spec.log_path = command.log_path;
  const absl::Time start = absl::Now();
  absl::StatusOr<Child> child = Child::Start(spec);
  if (!child.ok()) return child.status();
  if (!child->start_error().ok()) {
    child->Poll();
    return child->start_error();
  }
  ExecEnd end;
  std::optional<ChildExit> exit = WaitUntil(*child, start + command.timeout);
  if (!exit) {
    end.timed_out = true;
    if (command.before_kill) command.before_kill(child->id());
    child->Signal(SIGTERM);
    exit = WaitUntil(*child, absl::Now() + command.kill_grace);
    if (!exit) {
      child->Signal(SIGKILL);
      exit = WaitUntil(*child, absl::InfiniteFuture());
    }
  }
  end.elapsed = absl::Now() - start;
  if (!end.timed_out) {
    end.signaled = exit->signaled;
    end.signal_number = exit->signal;
    end.exit_status = exit->code;
  }
  return end;
}

}  // namespace gh
