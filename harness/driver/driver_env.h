// What a driver command (`sweep`, `bisect`, `minimize`) runs with: its seams (processes, clock),
// this machine's resources and environment, where progress goes and the stop flag; and the
// results DIR it holds while it runs.
#ifndef GPUHARNESS_DRIVER_DRIVER_ENV_H_
#define GPUHARNESS_DRIVER_DRIVER_ENV_H_

#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/driver/clock.h"
#include "harness/driver/dir_lock.h"
#include "harness/driver/job_ledger.h"
#include "harness/driver/process_runner.h"
#include "harness/driver/resource_pool.h"
#include "harness/report/console_style.h"

namespace gh::driver {

struct DriverEnv {
  ProcessRunner* runner = nullptr;
  Clock* clock = nullptr;
  Resources resources;
  std::vector<std::string> base_env;  // the jobs' environment before a cell's changes
  std::FILE* progress = stdout;
  ConsoleStyle style;                 // live: a sweep's progress as one updating line
  const std::atomic<bool>* stop = nullptr;  // set by SIGINT/SIGTERM/SIGHUP: stop the jobs, exit 3

  // `line` and a newline on `progress` (when there is one), flushed.
  void Print(const std::string& line) const;
};

// What a driver holds in its results DIR while it runs: DIR's lock (a second sweep, bisect or
// minimize there is refused) and its job ledger, through which every job and set-up runs.
class ResultsDirClaim {
 public:
  // Takes DIR's lock (Unavailable when another run holds it), then stops whatever jobs an
  // earlier run left running there (said on env.progress), before anything is started.
  static absl::StatusOr<std::unique_ptr<ResultsDirClaim>> Claim(const std::string& dir, absl::Duration kill_grace,
                                                                const DriverEnv& env);
  ProcessRunner& runner() { return runner_; }  // env.runner behind the ledger

 private:
  ResultsDirClaim(DirLock lock, const std::string& dir, ProcessRunner& inner)
      : lock_(std::move(lock)), ledger_(dir), runner_(inner, ledger_) {}
  DirLock lock_;
  JobLedger ledger_;
  LedgeredProcessRunner runner_;
};

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_DRIVER_ENV_H_
