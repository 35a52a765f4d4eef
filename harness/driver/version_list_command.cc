#include "harness/driver/version_list_command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "harness/core/duration_text.h"
#include "harness/driver/process_table.h"
#include "harness/driver/stop_signals.h"

namespace gh::driver {
namespace {

// Forks /bin/sh -c `command` in `cwd`, in its own session, stdout into `out_fd`.
absl::StatusOr<pid_t> StartShell(const VersionListCommand& r, int out_fd, int read_fd) {
  const pid_t parent = getpid();
  const char* argv[] = {"/bin/sh", "-c", r.command.c_str(), nullptr};
  int started[2];  // closed by the exec: then the child has its session
  if (pipe2(started, O_CLOEXEC) != 0) return absl::InternalError(absl::StrCat("pipe: ", strerror(errno)));
  pid_t pid = fork();
  if (pid < 0) {
    const int err = errno;
    close(started[0]);
    close(started[1]);
    return absl::InternalError(absl::StrCat("fork: ", strerror(err)));
  }
  if (pid == 0) {
    close(started[0]);
    setsid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, 0);
    dup2(out_fd, 1);
    close(read_fd);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    signal(SIGPIPE, SIG_DFL);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) signal(sig, SIG_DFL);
    if (!r.cwd.empty() && chdir(r.cwd.c_str()) != 0) _exit(127);
    execv("/bin/sh", const_cast<char**>(argv));
    _exit(127);
  }
  close(started[1]);
  char ignored;
  while (read(started[0], &ignored, 1) < 0 && errno == EINTR) {
  }
  close(started[0]);
  return pid;
}

// Kills the command's session and reaps its leader.
void KillAndReap(pid_t pid) {
  SignalSession(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

absl::Status TimedOut(const VersionListCommand& r) {
  return absl::FailedPreconditionError(absl::StrCat("`", r.command, "` did not finish within ",
                                                    FormatDurationText(r.timeout), " (versions.list.timeout)"));
}

absl::Status Stopped(const VersionListCommand& r) {
  return absl::CancelledError(absl::StrCat("stopped while running `", r.command, "`"));
}

// Reads the command's output from `fd` into `out` until it closes it; the first limit it passes
// (stop, deadline, bytes, labels) ends the reading with that error.
absl::Status ReadOutput(const VersionListCommand& r, const std::atomic<bool>& stop, absl::Time deadline,
                        int fd, std::string* out) {
  size_t lines = 0;
  bool line_has_text = false;
  char buf[16384];
  for (;;) {
    if (stop.load()) return Stopped(r);
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return TimedOut(r);
    pollfd p{fd, POLLIN, 0};
    const int wait_ms = static_cast<int>(std::min<int64_t>(50, absl::ToInt64Milliseconds(left) + 1));
    const int ready = poll(&p, 1, wait_ms);  // EINTR (a stop signal): the loop looks again
    if (ready < 0 && errno != EINTR) return absl::InternalError(absl::StrCat("poll: ", strerror(errno)));
    if (ready <= 0) continue;
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return absl::OkStatus();  // end of output (or a read error: the exit status tells)
    for (ssize_t i = 0; i < n; ++i) {
      if (buf[i] == '\n') {
        line_has_text = false;
      } else if (!line_has_text && buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\r') {
        line_has_text = true;
        ++lines;
      }
    }
    if (out->size() + static_cast<size_t>(n) > r.max_bytes) {
      return absl::FailedPreconditionError(
          absl::StrCat("`", r.command, "` printed more than ", r.max_bytes, " bytes (the limit)"));
    }
    if (lines > r.max_lines) {
      return absl::FailedPreconditionError(
          absl::StrCat("`", r.command, "` printed more than ", r.max_lines, " versions (the limit)"));
    }
    out->append(buf, static_cast<size_t>(n));
  }
}

// Waits for the leader `pid` to end (it may run on after closing its output), within the same
// limits; reaps it.
absl::StatusOr<int> WaitForExit(const VersionListCommand& r, const std::atomic<bool>& stop, absl::Time deadline,
                                pid_t pid) {
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return status;
    if (done < 0 && errno != EINTR) return absl::InternalError(absl::StrCat("waitpid: ", strerror(errno)));
    if (stop.load()) return Stopped(r);
    if (absl::Now() >= deadline) return TimedOut(r);
    absl::SleepFor(absl::Milliseconds(10));
  }
}

}  // namespace

absl::StatusOr<std::string> RunVersionListCommand(const VersionListCommand& r) {
  const std::atomic<bool>& stop = r.stop != nullptr ? *r.stop : StopFlag();
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return absl::InternalError(absl::StrCat("pipe: ", strerror(errno)));
  absl::StatusOr<pid_t> pid = StartShell(r, fds[1], fds[0]);
  close(fds[1]);
  if (!pid.ok()) {
    close(fds[0]);
    return pid.status();
  }
  const absl::Time deadline = absl::Now() + r.timeout;
  std::string out;
  absl::Status read = ReadOutput(r, stop, deadline, fds[0], &out);
  close(fds[0]);
  absl::StatusOr<int> status = read.ok() ? WaitForExit(r, stop, deadline, *pid) : read;
  if (!status.ok()) {
    KillAndReap(*pid);
    return status.status();
  }
  SignalSession(*pid, SIGKILL);  // nothing it started outlives it
  if (!WIFEXITED(*status) || WEXITSTATUS(*status) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("`", r.command, "` exited with status ",
                     WIFEXITED(*status) ? WEXITSTATUS(*status) : 128 + WTERMSIG(*status)));
  }
  return out;
}

}  // namespace gh::driver
