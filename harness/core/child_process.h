// The one way the harness starts a process: jobs, version set-ups, version list commands, the
// machine's tools (nvidia-smi, scontrol, sbatch, git), stack tools (addr2line, py-spy), isolated
// trials and exec commands all start here. Every child
//  - runs in a session of its own, so it and everything it starts are signalled as one
//    (Signal: every process of the session, those in process groups of their own too);
//  - starts with stdin from /dev/null, default signal dispositions and an empty signal mask,
//    and with argv[0] looked up in the PATH of its own environment, as a shell would;
//  - is started by a keeper, a small process forked from this one that leads the session: it
//    starts the program, waits for it and ends as it ended (the same exit status or signal), and
//    kills whatever the program left behind — in the session, or adopted by the keeper as the
//    subreaper of orphans that left it (a nested keeper) — before it ends itself, once the
//    program has ended or once this process has died however it died (PR_SET_PDEATHSIG tells
//    the keeper; a SIGKILLed driver leaves no set-up, list command or job behind). The keeper ignores the signals a session
//    receives as a whole, so a SIGTERM to the session ends the program, not the keeper.
// A results directory's job ledger (driver/job_ledger.h) is the second line: the next run there
// stops whatever an entry still names.
#ifndef GPUHARNESS_CORE_CHILD_PROCESS_H_
#define GPUHARNESS_CORE_CHILD_PROCESS_H_

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace gh {

struct ChildSpec {
  std::vector<std::string> argv;  // argv[0]: a path, or a name looked up in the child's PATH
  // The whole environment (NAME=VALUE); nullopt: this process's.
  std::optional<std::vector<std::string>> env;
  std::string cwd;  // "": this process's
  // Where stdout and stderr go: `log_path` (created or truncated) when set; else, with
  // `capture`, each through a pipe this process reads (Child::out_fd, err_fd); else inherited.
  std::string log_path;
  bool capture = false;
  // Descriptors handed on: {an fd of this process, the number the program sees it as (>= 3)}.
  std::vector<std::pair<int, int>> pass_fds;
  // Called with the child's id (its session's) before the program starts; the program starts
  // only when it returns OK (the job ledger records a job here, so none runs unrecorded).
  std::function<absl::Status(int id)> before_exec;
};

struct ChildExit {
  bool signaled = false;
  int code = 0;    // exit status when !signaled
  int signal = 0;  // terminating signal when signaled
  std::string ToString() const;  // "exit 1", "killed by SIGSEGV"
};

struct CommandRequest;
struct CommandResult;

// A started child. Destroying one that still runs kills its session and reaps it.
class Child {
 public:
  // Errors: a log that cannot be created (InvalidArgument: a bad path is bad input), no pipe or
  // no fork (Internal), before_exec's error. A program that cannot be started is no error here:
  // start_error() says why and the child exits 127 (with `log_path`, the reason is in the log).
  static absl::StatusOr<Child> Start(const ChildSpec& spec);

  Child(Child&& other) noexcept;
  Child& operator=(Child&& other) noexcept;
  ~Child();

  int id() const { return pid_; }  // the keeper's pid: the session's id
  // Why the program did not start: InvalidArgument "cannot enter working directory DIR: why",
  // NotFound "cannot run 'NAME': why"; OK when it started.
  const absl::Status& start_error() const { return start_error_; }
  // Non-blocking: how it ended, once it has (every later call returns the same); whatever is
  // still left in its session is killed then.
  std::optional<ChildExit> Poll();
  // Sends `signal` to every process of its session.
  void Signal(int signal);
  // With `capture`: the read ends of its stdout and stderr pipes (-1 once closed, or without).
  int out_fd() const { return out_fd_; }
  int err_fd() const { return err_fd_; }
  void CloseOutput();

 private:
  friend absl::StatusOr<CommandResult> RunCommand(const CommandRequest& request);
  Child() = default;
  void Release();

  int pid_ = -1;
  absl::Status start_error_;
  std::optional<ChildExit> exit_;
  int out_fd_ = -1, err_fd_ = -1;
};

// A command run to its end with its output read as it comes.
struct CommandRequest {
  ChildSpec child;  // `capture` and `log_path` are RunCommand's own
  absl::Duration timeout = absl::Seconds(60);
  const std::atomic<bool>* stop = nullptr;  // set: the command is killed, Cancelled
  size_t max_bytes = size_t{1} << 20;       // of stdout; stderr keeps its last 64 KiB
  // Looks at stdout so far after each read; an error stops the command and is returned.
  std::function<absl::Status(absl::string_view out)> check;
};

struct CommandResult {
  ChildExit exit;
  std::string out;
  std::string err;
  bool ok() const { return !exit.signaled && exit.code == 0; }
};

// Errors (the command's session is killed first): NotFound/InvalidArgument as start_error(),
// DeadlineExceeded "did not finish within 2s", Cancelled "stopped", ResourceExhausted "printed
// more than N bytes", `check`'s error, Internal (no pipe, no fork). A nonzero exit is no error.
absl::StatusOr<CommandResult> RunCommand(const CommandRequest& request);

// The first line a short command prints (stdout, else stderr: python3 --version wrote there
// before 3.4), trimmed; "" when it cannot run, fails or takes longer than `timeout`.
std::string CommandFirstLine(const std::vector<std::string>& argv, absl::Duration timeout = absl::Seconds(10));

// The last non-empty line of `err` (a tool's reason for failing: git's "fatal: ..."), trimmed
// to `max_chars`; "" when there is none.
std::string LastLine(absl::string_view err, size_t max_chars = 300);

}  // namespace gh

#endif  // GPUHARNESS_CORE_CHILD_PROCESS_H_
