#include "harness/runtime/trial_isolation.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/core/child_process.h"
#include "harness/core/file_util.h"
#include "harness/core/point.h"
#include "harness/core/scenario_loader.h"
#include "harness/core/signal_name.h"
#include "harness/runtime/crash_record.h"
#include "harness/runtime/point_context.h"
#include "harness/runtime/rank_outcome_codec.h"

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

// This binary, by the name its process listing shows, unless the trial names another.
std::string WorkerExecutable(const IsolatedTrial& trial) {
  if (!trial.executable.empty()) return trial.executable;
  std::error_code ec;
  std::string exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  return ec ? "/proc/self/exe" : exe;
}

// The worker's command line: the point to run and the descriptor to write its outcome to.
std::vector<std::string> WorkerArgv(const IsolatedTrial& trial, const std::string& exe) {
  return {exe,
      "trial-worker",
      "--scenario-file", trial.scenario_file,
      "--scenario",    trial.scenario,
      "--point",       trial.point,
      "--nranks",      absl::StrCat(trial.nranks),
      "--rank",        absl::StrCat(trial.rank),
      "--trial",       absl::StrCat(trial.trial),
      "--backend",     std::string(BackendName(trial.backend)),
      "--device",      absl::StrCat(trial.device),
      "--result-fd",   absl::StrCat(kResultFd)};
}

// How the worker ended, and what it wrote to the result pipe.
struct WorkerEnd {
  ChildExit exit;
  bool timed_out = false;  // killed at the trial's deadline
  std::string result;
};

// Reads the result while waiting: a large outcome must not block the child on a full pipe.
// Kills the child at `deadline`.
WorkerEnd WaitReading(Child& child, int result_fd, absl::Time deadline) {
  WorkerEnd end;
  bool eof = false;
  std::optional<ChildExit> exit;
  while (!exit) {
    if (!eof) {
      pollfd pfd{result_fd, POLLIN, 0};
      if (poll(&pfd, 1, 20) > 0) {
        char buf[4096];
        const ssize_t n = read(result_fd, buf, sizeof buf);
        if (n > 0) {
          end.result.append(buf, static_cast<size_t>(n));
        } else if (n == 0 || errno != EINTR) {
          eof = true;
        }
      }
    } else {
      usleep(5000);
    }
    exit = child.Poll();
    if (!exit && absl::Now() >= deadline) {
      child.Signal(SIGKILL);
      while (!(exit = child.Poll())) usleep(1000);
      end.timed_out = true;
    }
  }
  // Whatever the child wrote before it exited is in the pipe still.
  for (;;) {
    char buf[4096];
    const ssize_t n = read(result_fd, buf, sizeof buf);
    if (n <= 0) break;
    end.result.append(buf, static_cast<size_t>(n));
  }
  end.exit = *exit;
  return end;
}

// The trial's outcome from how its worker ended: the outcome it wrote, else a timeout or crash.
RankOutcome OutcomeOfWorker(const IsolatedTrial& trial, WorkerEnd end) {
  if (end.timed_out) {
    return Ended(trial, Outcome::kTimeout,
                 absl::StrCat("timeout after ", FormatSeconds(trial.timeout),
                              " in trial ", trial.trial, " (isolated worker killed)"),
                 "isolated trial");
  }
  if (end.exit.signaled) {
    return Ended(trial, Outcome::kCrash,
                 absl::StrCat(SignalName(end.exit.signal), " in isolated trial ", trial.trial),
                 "isolated trial");
  }
  const int code = end.exit.code;
  if (code == 0 && !end.result.empty()) {
    absl::StatusOr<RankOutcome> decoded = DecodeRankOutcome(end.result);
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

}  // namespace

RankOutcome RunTrialIsolated(const IsolatedTrial& trial) {
  const std::string exe = WorkerExecutable(trial);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return Ended(trial, Outcome::kError,
                 absl::StrCat("trial isolation: pipe: ", std::strerror(errno)), "spawn");
  }
  ChildSpec spec;
  spec.argv = WorkerArgv(trial, exe);
  spec.pass_fds = {{fds[1], kResultFd}};
  // A session of its own: a timeout kills whatever the trial started too.
  absl::StatusOr<Child> child = Child::Start(spec);
  close(fds[1]);
  absl::Status started = child.ok() ? child->start_error() : child.status();
  if (!started.ok()) {
    close(fds[0]);
    return Ended(trial, Outcome::kError,
                 absl::StrCat("trial isolation: cannot start ", exe, ": ", started.message()), "spawn");
  }
  WorkerEnd end = WaitReading(*child, fds[0], absl::Now() + trial.timeout);
  close(fds[0]);
  return OutcomeOfWorker(trial, std::move(end));
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
  const std::string encoded = EncodeRankOutcome(outcome);
  if (!WriteAll(args->result_fd, encoded.data(), encoded.size())) {
    std::fprintf(stderr, "gpuharness trial-worker: cannot return the outcome: %s\n",
                 std::strerror(errno));
    return 3;
  }
  close(args->result_fd);
  return 0;
}

}  // namespace gh
