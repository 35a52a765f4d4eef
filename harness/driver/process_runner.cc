#include "harness/driver/process_runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "harness/driver/process_table.h"

extern char** environ;

namespace gh::driver {

std::string SignalName(int signal) {
  switch (signal) {
    case SIGHUP: return "SIGHUP";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGUSR1: return "SIGUSR1";
    case SIGSEGV: return "SIGSEGV";
    case SIGUSR2: return "SIGUSR2";
    case SIGPIPE: return "SIGPIPE";
    case SIGALRM: return "SIGALRM";
    case SIGTERM: return "SIGTERM";
    case SIGXCPU: return "SIGXCPU";
    case SIGSYS: return "SIGSYS";
    default: return absl::StrCat("signal ", signal);
  }
}

std::string ProcessExit::ToString() const {
  return signaled ? absl::StrCat("killed by ", SignalName(signal)) : absl::StrCat("exit ", code);
}

std::vector<std::string> CurrentEnvironment() {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) out.emplace_back(*e);
  return out;
}

absl::StatusOr<ProcessId> PosixProcessRunner::Start(const ProcessSpec& spec) {
  if (spec.argv.empty()) return absl::InvalidArgumentError("empty argv");
  // Everything the child needs is prepared before fork: after it only async-signal-safe calls.
  std::vector<char*> argv;
  for (const std::string& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const std::string& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  int log_fd = open(spec.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    return absl::InternalError(absl::StrCat("cannot open ", spec.log_path, ": ", strerror(errno)));
  }
  const char* path = spec.argv[0].c_str();
  bool search = spec.argv[0].find('/') == std::string::npos;
  std::string exec_failed = absl::StrCat("gpuharness sweep: cannot execute '", spec.argv[0], "': ");
  const pid_t parent = getpid();
  // Closed by the child's exec (or exit): once the parent reads EOF, the child has its session.
  int started[2];
  int go[2];  // the parent's word that before_exec is done: 'g' to exec, anything else to stop
  if (pipe2(started, O_CLOEXEC) != 0) {
    int err = errno;
    close(log_fd);
    return absl::InternalError(absl::StrCat("pipe: ", strerror(err)));
  }
  if (pipe2(go, O_CLOEXEC) != 0) {
    int err = errno;
    for (int fd : {log_fd, started[0], started[1]}) close(fd);
    return absl::InternalError(absl::StrCat("pipe: ", strerror(err)));
  }
  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    close(log_fd);
    for (int fd : {started[0], started[1], go[0], go[1]}) close(fd);
    return absl::InternalError(absl::StrCat("fork: ", strerror(err)));
  }
  if (pid == 0) {
    close(started[0]);
    close(go[1]);
    setsid();  // a new session and process group: killable as a whole, deaf to our tty
    // The job dies with the driver, even a SIGKILLed one; if the driver is already gone, the
    // signal would never come: stop now.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    char word = 0;
    ssize_t got;
    while ((got = read(go[0], &word, 1)) < 0 && errno == EINTR) {
    }
    if (got != 1 || word != 'g') _exit(127);
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, 0);
    dup2(log_fd, 1);
    dup2(log_fd, 2);
    if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) _exit(127);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    signal(SIGPIPE, SIG_DFL);
    if (search) {
      execvpe(path, argv.data(), envp.data());
    } else {
      execve(path, argv.data(), envp.data());
    }
    const char* why = strerror(errno);
    ssize_t ignored = write(2, exec_failed.data(), exec_failed.size());
    ignored = write(2, why, strlen(why));
    ignored = write(2, "\n", 1);
    (void)ignored;
    _exit(127);
  }
  close(log_fd);
  close(started[1]);
  close(go[0]);
  absl::Status before = spec.before_exec ? spec.before_exec(pid) : absl::OkStatus();
  const char word = before.ok() ? 'g' : 'x';
  ssize_t written = write(go[1], &word, 1);
  (void)written;
  close(go[1]);
  if (!before.ok()) {
    close(started[0]);
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    return before;
  }
  // Not setpgid() from here: it would race the child's setsid(), which fails in a process that
  // already leads a group, leaving the job in the driver's session. Wait for the exec instead.
  char ignored;
  while (read(started[0], &ignored, 1) < 0 && errno == EINTR) {
  }
  close(started[0]);
  return static_cast<ProcessId>(pid);
}

std::optional<ProcessExit> PosixProcessRunner::Poll(ProcessId id) {
  int status = 0;
  pid_t r = waitpid(id, &status, WNOHANG);
  if (r == 0) return std::nullopt;
  ProcessExit exit;
  if (r < 0) {  // not our child any more: treat as gone
    exit.code = 255;
    return exit;
  }
  if (WIFSIGNALED(status)) {
    exit.signaled = true;
    exit.signal = WTERMSIG(status);
  } else {
    exit.code = WEXITSTATUS(status);
  }
  return exit;
}

void PosixProcessRunner::SignalGroup(ProcessId id, int signal) { SignalSession(id, signal); }

}  // namespace gh::driver
