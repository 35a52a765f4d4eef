#include "harness/scenarios/exec_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

extern char** environ;

namespace gh {
namespace {

// What the child tells the parent through the close-on-exec pipe when it cannot exec.
struct ChildFailure {
  int stage;  // 0 chdir, 1 exec
  int error;
};

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

// Waits for `pid` until `deadline`; true when it ended (status in *status).
bool WaitUntil(pid_t pid, std::chrono::steady_clock::time_point deadline, int* status) {
  for (;;) {
    pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid) return true;
    if (r < 0 && errno != EINTR) return true;  // nothing to wait for
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

absl::StatusOr<ExecEnd> RunExecCommand(const ExecCommand& command) {
  if (command.argv.empty()) return absl::InvalidArgumentError("no command to run");
  // Everything the child needs is prepared before fork: after it, only async-signal-safe calls.
  std::vector<std::string> env_strings = MergedEnvironment(command.env);
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_strings = command.argv;
  std::vector<char*> argv;
  for (std::string& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  // execvpe looks argv[0] up in the PATH of the calling process: take it from the child's env.
  const char* workdir = command.workdir.empty() ? nullptr : command.workdir.c_str();

  int log_fd = open(command.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot create log ", command.log_path, ": ", std::strerror(errno)));
  }
  int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) {
    int err = errno;
    close(log_fd);
    if (null_fd >= 0) close(null_fd);
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(err)));
  }

  const auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    close(log_fd);
    if (null_fd >= 0) close(null_fd);
    close(report[0]);
    close(report[1]);
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(err)));
  }
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // the rank dies (MPI_Abort): its command goes too
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    signal(SIGPIPE, SIG_DFL);
    if (null_fd >= 0) dup2(null_fd, 0);
    dup2(log_fd, 1);
    dup2(log_fd, 2);
    ChildFailure failure{0, 0};
    if (workdir != nullptr && chdir(workdir) != 0) {
      failure = {0, errno};
    } else {
      // PATH lookup with the child's environment.
      environ = envp.data();
      execvp(argv[0], argv.data());
      failure = {1, errno};
    }
    ssize_t ignored = write(report[1], &failure, sizeof(failure));
    (void)ignored;
    _exit(127);
  }
  // Both sides set the group, so the parent may signal it before the child runs.
  setpgid(pid, pid);
  close(log_fd);
  if (null_fd >= 0) close(null_fd);
  close(report[1]);
  ChildFailure failure{};
  ssize_t got;
  do {
    got = read(report[0], &failure, sizeof(failure));
  } while (got < 0 && errno == EINTR);
  close(report[0]);
  if (got == static_cast<ssize_t>(sizeof(failure))) {
    int status = 0;
    waitpid(pid, &status, 0);
    if (failure.stage == 0) {
      return absl::InvalidArgumentError(absl::StrCat("cannot enter working directory ",
                                                     command.workdir, ": ",
                                                     std::strerror(failure.error)));
    }
    return absl::NotFoundError(absl::StrCat("cannot run '", command.argv[0], "': ",
                                            std::strerror(failure.error)));
  }

  ExecEnd end;
  int status = 0;
  const auto deadline = start + absl::ToChronoNanoseconds(command.timeout);
  if (!WaitUntil(pid, deadline, &status)) {
    end.timed_out = true;
    if (command.before_kill) command.before_kill(pid);
    kill(-pid, SIGTERM);
    if (!WaitUntil(pid, std::chrono::steady_clock::now() +
                            absl::ToChronoNanoseconds(command.kill_grace), &status)) {
      kill(-pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
  }
  // Whatever the command left running in its group (daemons, stuck workers) goes with it.
  kill(-pid, SIGKILL);
  end.elapsed = absl::FromChrono(std::chrono::steady_clock::now() - start);
  if (!end.timed_out) {
    if (WIFSIGNALED(status)) {
      end.signaled = true;
      end.signal_number = WTERMSIG(status);
    } else if (WIFEXITED(status)) {
      end.exit_status = WEXITSTATUS(status);
    }
  }
  return end;
}

}  // namespace gh
