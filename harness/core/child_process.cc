#include "harness/core/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "harness/core/duration_text.h"
#include "harness/core/process_table.h"
#include "harness/core/signal_name.h"

extern char** environ;

namespace gh {
namespace {

constexpr int kMaxPassFds = 8;

// Everything after fork runs only async-signal-safe code (the parent may have threads): what
// the keeper and the program need is prepared before it.
struct Plan {
  char** argv = nullptr;
  char** envp = nullptr;  // null: inherit
  const char* cwd = nullptr;
  const char* exec_failed = nullptr;  // "gpuharness: cannot execute 'x': " for the log
  size_t exec_failed_size = 0;
  bool log = false;       // stdout and stderr to the log: the exec failure is written there
  pid_t parent = 0;
  int null_fd = -1, out_fd = -1, err_fd = -1;  // -1: inherited
  int go_fd = -1, report_fd = -1;
  std::pair<int, int> pass[kMaxPassFds];        // source -> target
  int passes = 0;
};

// What the program (or the keeper) writes to the report pipe when it cannot start.
struct StartFailure {
  int stage = 0;  // kChdir, kExec, kFork
  int error = 0;
};
constexpr int kChdir = 0, kExec = 1, kFork = 2;

constexpr int kKeeperWakeSignal = SIGUSR2;  // parent death; checked against getppid()

// Closes fds lo..hi: close_range (Linux 5.9+), else one by one up to the descriptor limit.
void CloseRange(int lo, int hi) {
  if (lo > hi) return;
#ifdef SYS_close_range
  if (syscall(SYS_close_range, static_cast<unsigned>(lo), static_cast<unsigned>(hi), 0) == 0) return;
#endif
  struct rlimit limit;
  const int top = getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < 65536 ? static_cast<int>(limit.rlim_cur)
                                                                                  : 65536;
  for (int fd = lo; fd <= std::min(hi, top); ++fd) close(fd);
}

// Closes every fd from `first` on but the `n` in `keep` (sorted in place; no allocation).
void CloseAllBut(int first, int* keep, int n) {
  std::sort(keep, keep + n);
  int from = first;
  for (int i = 0; i < n; ++i) {
    if (keep[i] < from) continue;
    CloseRange(from, keep[i] - 1);
    from = keep[i] + 1;
  }
  CloseRange(from, 0x7fffffff);
}

void WriteFailure(int fd, int stage, int error) {
  StartFailure f{stage, error};
  ssize_t ignored = write(fd, &f, sizeof f);
  (void)ignored;
}

int64_t NowMs() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<int64_t>(t.tv_sec) * 1000 + t.tv_nsec / 1000000;
}

void SleepMs(int ms) {
  timespec t{ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&t, &t) != 0 && errno == EINTR) {
  }
}

// The program: descriptors in place, signals as new, then exec.
[[noreturn]] void RunProgram(const Plan& p) {
  // Move every source above every target first, so that no dup2 overwrites a source.
  int top = std::max(2, p.report_fd);
  for (int i = 0; i < p.passes; ++i) top = std::max(top, p.pass[i].second);
  std::pair<int, int> moves[kMaxPassFds + 3];
  int n = 0;
  auto lift = [&](int src, int dst) {
    if (src >= 0) moves[n++] = {fcntl(src, F_DUPFD_CLOEXEC, top + 1), dst};
  };
  lift(p.null_fd, 0);
  lift(p.out_fd, 1);
  lift(p.err_fd, 2);
  for (int i = 0; i < p.passes; ++i) lift(p.pass[i].first, p.pass[i].second);
  const int report = fcntl(p.report_fd, F_DUPFD_CLOEXEC, top + 1);
  for (int i = 0; i < n; ++i) {
    if (moves[i].first < 0 || dup2(moves[i].first, moves[i].second) < 0) {
      WriteFailure(report, kExec, errno);
      _exit(127);
    }
  }
  int keep[kMaxPassFds + 1];
  int kept = 0;
  keep[kept++] = report;
  for (int i = 0; i < p.passes; ++i) keep[kept++] = p.pass[i].second;
  CloseAllBut(3, keep, kept);
  sigset_t none;
  sigemptyset(&none);
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) signal(sig, SIG_DFL);
  }
  sigprocmask(SIG_SETMASK, &none, nullptr);
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // dies with its keeper
  if (p.cwd != nullptr && chdir(p.cwd) != 0) {
    WriteFailure(report, kChdir, errno);
    _exit(127);
  }
  if (p.envp != nullptr) environ = p.envp;  // PATH lookup in the program's own environment
  execvp(p.argv[0], p.argv);
  const int error = errno;
  if (p.log) {
    const char* why = strerror(error);
    ssize_t ignored = write(2, p.exec_failed, p.exec_failed_size);
    ignored = write(2, why, strlen(why));
    ignored = write(2, "\n", 1);
    (void)ignored;
  }
  WriteFailure(report, kExec, error);
  _exit(127);
}

// Parses "pid (comm) S ppid pgrp session ..." from /proc/<pid>/stat.
bool ReadStatRaw(const char* pid_name, char* state, int* ppid, int* pgrp, int* session) {
  char path[64] = "/proc/";
  size_t n = strlen(path);
  for (const char* c = pid_name; *c != '\0' && n < sizeof path - 6; ++c) path[n++] = *c;
  memcpy(path + n, "/stat", 6);
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[1024];
  const ssize_t got = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (got <= 0) return false;
  buf[got] = '\0';
  char* p = strrchr(buf, ')');
  if (p == nullptr || p[1] != ' ') return false;
  p += 2;
  *state = *p;
  long fields[3] = {0, 0, 0};  // ppid, pgrp, session
  for (int i = 0; i < 3; ++i) {
    while (*p != ' ' && *p != '\0') ++p;
    if (*p == '\0') return false;
    ++p;
    bool negative = *p == '-';
    if (negative) ++p;
    while (*p >= '0' && *p <= '9') fields[i] = fields[i] * 10 + (*p++ - '0');
    if (negative) fields[i] = -fields[i];
  }
  *ppid = static_cast<int>(fields[0]);
  *pgrp = static_cast<int>(fields[1]);
  *session = static_cast<int>(fields[2]);
  return true;
}

struct DirEntry64 {
  uint64_t ino;
  int64_t off;
  unsigned short reclen;
  unsigned char type;
  char name[];
};

// Signals, without allocating, the keeper's family: every live member of its session (and their
// process groups) and every live child it has adopted as the subreaper (a process that left the
// session, such as a nested keeper, whose parent has died). Returns how many it found.
int SignalFamilyRaw(int sig) {
  const pid_t self = getpid();
  const int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return 0;
  int found = 0;
  alignas(8) char buf[8192];
  for (;;) {
    const long n = syscall(SYS_getdents64, dir, buf, sizeof buf);
    if (n <= 0) break;
    for (long at = 0; at < n;) {
      const DirEntry64* e = reinterpret_cast<const DirEntry64*>(buf + at);
      at += e->reclen;
      pid_t pid = 0;
      const char* c = e->name;
      for (; *c >= '0' && *c <= '9'; ++c) pid = pid * 10 + (*c - '0');
      if (*c != '\0' || pid <= 0 || pid == self) continue;
      char state = '?';
      int ppid = 0, pgrp = 0, session = 0;
      if (!ReadStatRaw(e->name, &state, &ppid, &pgrp, &session) || state == 'Z') continue;
      if (session != self && ppid != self) continue;
      ++found;
      kill(pid, sig);
      if (session == self && pgrp > 1 && pgrp != self) kill(-pgrp, sig);
    }
  }
  close(dir);
  return found;
}

// Reaps every child that has ended; records the program's status. False once it has no child.
bool ReapChildren(pid_t program, int* status, bool* program_done) {
  for (;;) {
    int st = 0;
    const pid_t done = waitpid(-1, &st, WNOHANG);
    if (done == 0) return true;
    if (done < 0) return errno == EINTR;
    if (done == program) {
      *status = st;
      *program_done = true;
    }
  }
}

// Kills the family until nothing of it is left (every descendant dead and reaped), for at most
// `limit_ms`: a process stuck in the kernel cannot be waited for forever.
void ClearFamily(pid_t program, int* status, bool* program_done, int64_t limit_ms) {
  for (const int64_t until = NowMs() + limit_ms; NowMs() < until; SleepMs(10)) {
    const int live = SignalFamilyRaw(SIGKILL);
    if (!ReapChildren(program, status, program_done) && live == 0) return;
  }
}

// Ends as `status` says the program ended.
[[noreturn]] void EndAs(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);  // the program dumped its own core, if any
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, nullptr);
    kill(getpid(), sig);
    _exit(128 + sig);
  }
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}

// The keeper: leads the session, starts the program once the parent says go, waits for it,
// and clears the session when it ends or when the parent dies.
[[noreturn]] void RunKeeper(const Plan& p) {
  setsid();
  // Orphans of the program (a rank whose mpirun died, the child of a nested keeper) come to the
  // keeper, not to init, so none escapes the clean-up by leaving the session.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  sigset_t wake;
  sigemptyset(&wake);
  sigaddset(&wake, SIGCHLD);
  sigaddset(&wake, kKeeperWakeSignal);
  sigprocmask(SIG_BLOCK, &wake, nullptr);
  prctl(PR_SET_PDEATHSIG, kKeeperWakeSignal);
  if (getppid() != p.parent) _exit(127);  // the parent died before the signal was armed
  int keep[kMaxPassFds + 5] = {p.null_fd, p.out_fd, p.err_fd, p.go_fd, p.report_fd};
  int kept = 5;
  for (int i = 0; i < p.passes; ++i) keep[kept++] = p.pass[i].first;
  CloseAllBut(3, keep, kept);  // fds 0-2 stay: the program inherits them unless redirected
  char word = 0;
  ssize_t got;
  while ((got = read(p.go_fd, &word, 1)) < 0 && errno == EINTR) {
  }
  if (got != 1 || word != 'g') _exit(127);
  const pid_t program = fork();
  if (program == 0) RunProgram(p);
  if (program < 0) {
    WriteFailure(p.report_fd, kFork, errno);
    _exit(127);
  }
  CloseRange(0, 0x7fffffff);  // it holds no pipe of the program or of another child open
  // Whatever the session receives as a whole (a SIGTERM at a timeout) is the program's to act on.
  for (int sig = 1; sig < 32; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP || sig == SIGCHLD || sig == SIGCONT || sig == SIGSEGV || sig == SIGBUS ||
        sig == SIGILL || sig == SIGFPE || sig == SIGABRT || sig == SIGTRAP || sig == SIGSYS || sig == kKeeperWakeSignal) {
      continue;
    }
    signal(sig, SIG_IGN);
  }
  int status = 0;
  bool program_done = false;
  for (;;) {
    siginfo_t info;
    sigwaitinfo(&wake, &info);  // EINTR or any wake: look at both again
    ReapChildren(program, &status, &program_done);
    if (program_done) break;
    if (getppid() == p.parent) continue;
    // The parent is gone: the family goes, SIGTERM first (mpirun and srun end their ranks).
    SignalFamilyRaw(SIGTERM);
    for (const int64_t until = NowMs() + 2000; NowMs() < until; SleepMs(20)) {
      ReapChildren(program, &status, &program_done);
      if (program_done && SignalFamilyRaw(0) == 0) break;
    }
    ClearFamily(program, &status, &program_done, 10000);
    _exit(137);
  }
  // What the program left behind (orphaned ranks, a daemon, a nested keeper) goes with it, and
  // the keeper ends only once all of it has: a driver that saw it end finds nothing left.
  ClearFamily(program, &status, &program_done, 10000);
  EndAs(status);
}

void CloseFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

absl::Status Errno(const std::string& what) { return absl::InternalError(absl::StrCat(what, ": ", strerror(errno))); }

}  // namespace

std::string ChildExit::ToString() const {
  return signaled ? absl::StrCat("killed by ", SignalName(signal)) : absl::StrCat("exit ", code);
}

absl::StatusOr<Child> Child::Start(const ChildSpec& spec) {
  if (spec.argv.empty()) return absl::InvalidArgumentError("no command to run");
  std::vector<std::string> argv_strings = spec.argv;
  std::vector<char*> argv;
  for (std::string& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings = spec.env.value_or(std::vector<std::string>{});
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  const std::string exec_failed = absl::StrCat("gpuharness: cannot execute '", spec.argv[0], "': ");

  Plan p;
  p.argv = argv.data();
  p.envp = spec.env.has_value() ? envp.data() : nullptr;
  p.cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();
  p.exec_failed = exec_failed.data();
  p.exec_failed_size = exec_failed.size();
  p.parent = getpid();
  if (spec.pass_fds.size() > kMaxPassFds) return absl::InvalidArgumentError("too many descriptors to pass on");
  for (const auto& [src, dst] : spec.pass_fds) {
    if (dst < 3) return absl::InvalidArgumentError("descriptors 0-2 are the child's stdin, stdout and stderr");
    p.pass[p.passes++] = {src, dst};
  }
  Child child;
  int out[2] = {-1, -1}, err[2] = {-1, -1}, go[2] = {-1, -1}, report[2] = {-1, -1};
  auto close_all = [&](absl::Status why) {  // what failed, after closing everything opened
    for (int* fd : {&p.null_fd, &out[0], &out[1], &err[0], &err[1], &go[0], &go[1], &report[0], &report[1]}) {
      CloseFd(*fd);
    }
    return why;
  };
  if (!spec.log_path.empty()) {
    out[1] = open(spec.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out[1] < 0) {
      return absl::InvalidArgumentError(absl::StrCat("cannot create log ", spec.log_path, ": ", strerror(errno)));
    }
    p.out_fd = p.err_fd = out[1];
    p.log = true;
  } else if (spec.capture && (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)) {
    return close_all(Errno("pipe"));
  } else if (spec.capture) {
    p.out_fd = out[1];
    p.err_fd = err[1];
  }
  p.null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (pipe2(go, O_CLOEXEC) != 0 || pipe2(report, O_CLOEXEC) != 0) return close_all(Errno("pipe"));
  p.go_fd = go[0];
  p.report_fd = report[1];
  const pid_t pid = fork();
  if (pid < 0) return close_all(Errno("fork"));
  if (pid == 0) RunKeeper(p);
  child.pid_ = pid;
  for (int* fd : {&p.null_fd, &out[1], &err[1], &go[0], &report[1]}) CloseFd(*fd);
  child.out_fd_ = std::exchange(out[0], -1);
  child.err_fd_ = std::exchange(err[0], -1);
  absl::Status before = spec.before_exec ? spec.before_exec(pid) : absl::OkStatus();
  const char word = before.ok() ? 'g' : 'x';
  ssize_t written = write(go[1], &word, 1);
  (void)written;
  CloseFd(go[1]);
  if (!before.ok()) {
    CloseFd(report[0]);
    kill(pid, SIGKILL);
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    child.pid_ = -1;
    return before;
  }
  // EOF once the program has exec'd (the pipe closes on exec): then its session exists.
  StartFailure failure;
  ssize_t got;
  while ((got = read(report[0], &failure, sizeof failure)) < 0 && errno == EINTR) {
  }
  CloseFd(report[0]);
  if (got == static_cast<ssize_t>(sizeof failure)) {
    child.start_error_ = failure.stage == kChdir
        ? absl::InvalidArgumentError(absl::StrCat("cannot enter working directory ", spec.cwd, ": ",
                                                  strerror(failure.error)))
        : absl::NotFoundError(absl::StrCat("cannot run '", spec.argv[0], "': ", strerror(failure.error)));
  }
  return child;
}

Child::Child(Child&& other) noexcept { *this = std::move(other); }

Child& Child::operator=(Child&& other) noexcept {
  if (this != &other) {
    Release();
    pid_ = std::exchange(other.pid_, -1);
    start_error_ = std::move(other.start_error_);
    exit_ = std::move(other.exit_);
    out_fd_ = std::exchange(other.out_fd_, -1);
    err_fd_ = std::exchange(other.err_fd_, -1);
  }
  return *this;
}

Child::~Child() { Release(); }

void Child::Release() {
  CloseOutput();
  if (pid_ > 0 && !exit_) {
    Signal(SIGKILL);
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  pid_ = -1;
}

void Child::CloseOutput() {
  CloseFd(out_fd_);
  CloseFd(err_fd_);
}

std::optional<ChildExit> Child::Poll() {
  if (exit_ || pid_ <= 0) return exit_;
  int status = 0;
  const pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == 0 || (r < 0 && errno == EINTR)) return std::nullopt;
  ChildExit exit;
  if (r < 0) {
    exit.code = 255;  // not our child any more
  } else if (WIFSIGNALED(status)) {
    exit.signaled = true;
    exit.signal = WTERMSIG(status);
  } else {
    exit.code = WEXITSTATUS(status);
  }
  exit_ = exit;
  // A keeper killed with its session leaves no one to clear it: what is left goes now.
  SignalSession(pid_, SIGKILL);
  return exit_;
}

void Child::Signal(int signal) {
  if (pid_ > 0) SignalSession(pid_, signal);
}

namespace {

// Reads what is there on `fd` into `out` (keeping its last `keep` bytes when set); false at EOF.
bool Drain(int fd, std::string& out, size_t keep = 0) {
  char buf[16384];
  const ssize_t n = read(fd, buf, sizeof buf);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  out.append(buf, static_cast<size_t>(n));
  if (keep > 0 && out.size() > keep) out.erase(0, out.size() - keep);
  return true;
}

}  // namespace

absl::StatusOr<CommandResult> RunCommand(const CommandRequest& request) {
  ChildSpec spec = request.child;
  spec.log_path.clear();
  spec.capture = true;
  absl::StatusOr<Child> started = Child::Start(spec);
  if (!started.ok()) return started.status();
  Child& child = *started;
  if (!child.start_error().ok()) return child.start_error();
  const absl::Time deadline = absl::Now() + request.timeout;
  CommandResult result;
  absl::Status ended;
  while (child.out_fd() >= 0 || child.err_fd() >= 0 || !child.Poll()) {
    if (request.stop != nullptr && request.stop->load()) {
      ended = absl::CancelledError("stopped");
      break;
    }
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      ended = absl::DeadlineExceededError(absl::StrCat("did not finish within ", FormatDurationText(request.timeout)));
      break;
    }
    pollfd fds[2];
    int n = 0;
    for (int fd : {child.out_fd(), child.err_fd()}) {
      if (fd >= 0) fds[n++] = {fd, POLLIN, 0};
    }
    // Short waits: a stop request and the child's end are looked at between them.
    const int64_t left_ms = absl::ToInt64Milliseconds(left);  // INT64_MAX when unbounded
    const int wait_ms = static_cast<int>(std::min<int64_t>(n > 0 ? 50 : 10, left_ms < 50 ? left_ms + 1 : 50));
    if (n == 0) {
      SleepMs(wait_ms);
      continue;
    }
    if (poll(fds, n, wait_ms) <= 0) continue;  // EINTR (a stop signal): look again
    for (int i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      const bool is_out = fds[i].fd == child.out_fd();
      if (!Drain(fds[i].fd, is_out ? result.out : result.err, is_out ? 0 : 65536)) {
        close(fds[i].fd);
        (is_out ? child.out_fd_ : child.err_fd_) = -1;
      }
    }
    if (result.out.size() > request.max_bytes) {
      ended = absl::ResourceExhaustedError(absl::StrCat("printed more than ", request.max_bytes, " bytes"));
      break;
    }
    if (request.check) {
      ended = request.check(result.out);
      if (!ended.ok()) break;
    }
  }
  if (!ended.ok()) return ended;  // ~Child kills its session
  result.exit = *child.Poll();
  return result;
}

std::string CommandFirstLine(const std::vector<std::string>& argv, absl::Duration timeout) {
  CommandRequest request;
  request.child.argv = argv;
  request.timeout = timeout;
  absl::StatusOr<CommandResult> ran = RunCommand(request);
  if (!ran.ok() || !ran->ok()) return "";
  const std::string& text = ran->out.empty() ? ran->err : ran->out;
  return std::string(absl::StripAsciiWhitespace(text.substr(0, text.find('\n'))));
}

std::string LastLine(absl::string_view err, size_t max_chars) {
  absl::string_view last;
  for (absl::string_view line : absl::StrSplit(err, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) last = line;
  }
  std::string out(last);
  if (out.size() > max_chars) out = out.substr(0, max_chars) + "...";
  return out;
}

}  // namespace gh
