#include "harness/runtime/trial_isolation.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/core/point.h"
#include "harness/core/scenario_loader.h"
#include "harness/runtime/crash_record.h"
#include "harness/runtime/point_context.h"
#include "harness/runtime/rank_outcome_codec.h"

extern char** environ;

namespace gh {

#if defined(GH_HAVE_CUDA)
// trial_isolation_cuda.cc: binds the worker to its GPU (signature on failure).
absl::Status BindTrialDevice(int device);
#endif

namespace {

constexpr int kResultFd = 3;  // where the worker finds the pipe's write end

RankOutcome Ended(const IsolatedTrial& trial, Outcome outcome, std::string signature,
                  std::string step) {
  RankOutcome out;
  out.rank = trial.rank;
  out.device = trial.device;
  out.outcome = outcome;
  out.signature = std::move(signature);
  out.step = std::move(step);
  return out;
}

std::string FormatSeconds(absl::Duration d) {
  return absl::StrFormat("%gs", absl::ToDoubleSeconds(d));
}

}  // namespace

RankOutcome RunTrialIsolated(const IsolatedTrial& trial) {
  const std::string exe = trial.executable.empty() ? "/proc/self/exe" : trial.executable;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return Ended(trial, Outcome::kError,
                 absl::StrCat("trial isolation: pipe: ", std::strerror(errno)), "spawn");
  }
  std::vector<std::string> args = {
      "gpuharness",    "trial-worker",
      "--scenario-file", trial.scenario_file,
      "--scenario",    trial.scenario,
      "--point",       trial.point,
      "--nranks",      absl::StrCat(trial.nranks),
      "--rank",        absl::StrCat(trial.rank),
      "--trial",       absl::StrCat(trial.trial),
      "--backend",     std::string(BackendName(trial.backend)),
      "--device",      absl::StrCat(trial.device),
      "--result-fd",   absl::StrCat(kResultFd)};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], kResultFd);  // dup2 clears FD_CLOEXEC
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group, so that a timeout kills whatever the trial started too; default
  // signal dispositions and an empty mask, whatever the parent's crash guard installed.
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |
                                      POSIX_SPAWN_SETSIGMASK);
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, exe.c_str(), &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(fds[1]);
  if (spawned != 0) {
    close(fds[0]);
    return Ended(trial, Outcome::kError,
                 absl::StrCat("trial isolation: cannot start ", exe, ": ", std::strerror(spawned)),
                 "spawn");
  }

  // Read the result while waiting: a large outcome must not block the child on a full pipe.
  const absl::Time deadline = absl::Now() + trial.timeout;
  std::string result;
  bool eof = false;
  int status = 0;
  bool exited = false;
  bool timed_out = false;
  while (!exited) {
    if (!eof) {
      pollfd pfd{fds[0], POLLIN, 0};
      if (poll(&pfd, 1, 20) > 0) {
        char buf[4096];
        const ssize_t n = read(fds[0], buf, sizeof buf);
        if (n > 0) {
          result.append(buf, static_cast<size_t>(n));
        } else if (n == 0 || errno != EINTR) {
          eof = true;
        }
      }
    } else {
      usleep(5000);
    }
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      exited = true;
    } else if (absl::Now() >= deadline) {
      kill(-pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      exited = true;
      timed_out = true;
    }
  }
  // Whatever the child wrote before it exited is in the pipe still.
  for (;;) {
    char buf[4096];
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    result.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  // Anything the trial left behind in its group (a helper process) goes with it.
  kill(-pid, SIGKILL);

  if (timed_out) {
    return Ended(trial, Outcome::kTimeout,
                 absl::StrCat("timeout after ", FormatSeconds(trial.timeout),
                              " in trial ", trial.trial, " (isolated worker killed)"),
                 "isolated trial");
  }
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const std::string name = SignalName(sig);
    return Ended(trial, Outcome::kCrash,
                 absl::StrCat(name == "SIG?" ? absl::StrCat("signal ", sig) : name,
                              " in isolated trial ", trial.trial),
                 "isolated trial");
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 0 && !result.empty()) {
    absl::StatusOr<RankOutcome> decoded = DecodeRankOutcome(result);
    if (decoded.ok()) {
      decoded->rank = trial.rank;
      return *std::move(decoded);
    }
    return Ended(trial, Outcome::kCrash,
                 absl::StrCat("isolated trial ", trial.trial, " returned an unreadable outcome: ",
                              decoded.status().message()),
                 "isolated trial");
  }
  return Ended(trial, Outcome::kCrash,
               absl::StrCat("isolated trial ", trial.trial, " exited with status ", code,
                            " without an outcome"),
               "isolated trial");
}

namespace {

struct WorkerArgs {
  std::string scenario_file, scenario, point;
  int nranks = 1, rank = 0, trial = 0, device = -1, result_fd = -1;
  Backend backend = Backend::kHost;
};

absl::StatusOr<WorkerArgs> ParseWorkerArgs(int argc, char** argv) {
  WorkerArgs args;
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) return absl::InvalidArgumentError(absl::StrCat(flag, ": missing value"));
    const std::string value = argv[i + 1];
    auto to_int = [&](int* out) -> absl::Status {
      if (!absl::SimpleAtoi(value, out)) {
        return absl::InvalidArgumentError(absl::StrCat(flag, ": expected an integer, got '",
                                                       value, "'"));
      }
      return absl::OkStatus();
    };
    absl::Status status;
    if (flag == "--scenario-file") args.scenario_file = value;
    else if (flag == "--scenario") args.scenario = value;
    else if (flag == "--point") args.point = value;
    else if (flag == "--nranks") status = to_int(&args.nranks);
    else if (flag == "--rank") status = to_int(&args.rank);
    else if (flag == "--trial") status = to_int(&args.trial);
    else if (flag == "--device") status = to_int(&args.device);
    else if (flag == "--result-fd") status = to_int(&args.result_fd);
    else if (flag == "--backend") {
      if (value == "host") args.backend = Backend::kHost;
      else if (value == "cuda") args.backend = Backend::kCuda;
      else return absl::InvalidArgumentError(absl::StrCat("--backend: host or cuda, got '", value, "'"));
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag '", flag, "'"));
    }
    if (!status.ok()) return status;
  }
  if (args.scenario_file.empty() || args.scenario.empty() || args.point.empty() ||
      args.result_fd < 0) {
    return absl::InvalidArgumentError(
        "needs --scenario-file, --scenario, --point and --result-fd");
  }
  return args;
}

bool WriteAll(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

int TrialWorkerCommand(int argc, char** argv) {
  absl::StatusOr<WorkerArgs> args = ParseWorkerArgs(argc, argv);
  if (!args.ok()) {
    std::fprintf(stderr, "gpuharness trial-worker: %s\n", std::string(args.status().message()).c_str());
    return 2;
  }
  absl::StatusOr<std::vector<ScenarioSpec>> specs =
      LoadScenarioFile(args->scenario_file, ScenarioRegistry::Global());
  if (!specs.ok()) {
    std::fprintf(stderr, "gpuharness trial-worker: %s\n", std::string(specs.status().message()).c_str());
    return 3;
  }
  const ScenarioSpec* spec = nullptr;
  for (const ScenarioSpec& s : *specs) {
    if (s.name == args->scenario) spec = &s;
  }
  const KindInfo* kind = spec != nullptr ? ScenarioRegistry::Global().Find(spec->kind) : nullptr;
  absl::StatusOr<std::vector<Point>> points =
      spec != nullptr ? ExpandPoints(*spec, args->nranks)
                      : absl::StatusOr<std::vector<Point>>(absl::NotFoundError("no scenario"));
  const Point* point = nullptr;
  if (points.ok()) {
    for (const Point& p : *points) {
      if (p.name == args->point) point = &p;
    }
  }
  if (kind == nullptr || point == nullptr) {
    std::fprintf(stderr, "gpuharness trial-worker: %s: no point '%s' in scenario '%s'\n",
                 args->scenario_file.c_str(), args->point.c_str(), args->scenario.c_str());
    return 3;
  }

  RankOutcome outcome;
#if defined(GH_HAVE_CUDA)
  if (args->backend == Backend::kCuda) {
    if (absl::Status bound = BindTrialDevice(args->device); !bound.ok()) {
      outcome = RankOutcome::Error(std::string(bound.message()), "bind device");
    }
  }
#endif
  if (outcome.outcome == Outcome::kPass) {
    // No MPI here: isolated kinds are rank-local and never touch the communicator.
    PointContext ctx(*point, args->trial, args->backend, args->rank, args->nranks, args->rank,
                     MPI_COMM_NULL, nullptr, nullptr);
    std::unique_ptr<Scenario> scenario = kind->make();
    outcome = scenario->Run(ctx);
  }
  outcome.rank = args->rank;
  outcome.device = args->device;
  if (!WriteAll(args->result_fd, EncodeRankOutcome(outcome))) {
    std::fprintf(stderr, "gpuharness trial-worker: cannot return the outcome: %s\n",
                 std::strerror(errno));
    return 3;
  }
  close(args->result_fd);
  return 0;
}

}  // namespace gh
