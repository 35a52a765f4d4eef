// Trials in a fresh child process, for rank-local kinds that ask for it (KindInfo::
// isolate_trials): a poisoned CUDA context, a crash or a hang in one trial must not touch the
// next. The parent starts the gpuharness binary itself (core/child_process.h) with the hidden subcommand
// `trial-worker`, which runs exactly one point × trial with no MPI and hands its RankOutcome
// back as JSON through a pipe. The parent records what the child returned, or a crash (the
// signal that ended it, or an exit without a result), or a timeout (it kills the child's whole
// process group at the deadline).
#ifndef GPUHARNESS_RUNTIME_TRIAL_ISOLATION_H_
#define GPUHARNESS_RUNTIME_TRIAL_ISOLATION_H_

#include <string>

#include "absl/time/time.h"
#include "harness/core/outcome.h"
#include "harness/core/registry.h"

namespace gh {

// Everything a worker needs to find and run one point × trial again from the scenario file.
struct IsolatedTrial {
  std::string executable;     // the gpuharness binary; empty: /proc/self/exe
  std::string scenario_file;  // as loaded by the parent
  std::string scenario;       // ScenarioSpec::name
  std::string point;          // Point::name
  int nranks = 1;             // the job's rank count (point names carry it)
  int rank = 0;               // the parent's rank, for the outcome
  int trial = 0;
  Backend backend = Backend::kHost;
  int device = -1;            // the GPU to bind on the cuda backend
  absl::Duration timeout = absl::Seconds(60);
};

// Runs the trial in a child and waits for it (at most `timeout`, then kills its process group).
// Never fails: every way the child can end is an outcome (crash, timeout, or the child's own).
RankOutcome RunTrialIsolated(const IsolatedTrial& trial);

// `gpuharness trial-worker ...` (hidden): the child's side. Exit 0 when it wrote an outcome to
// --result-fd, 2 for bad arguments, 3 when the point cannot be found again.
int TrialWorkerCommand(int argc, char** argv);

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_TRIAL_ISOLATION_H_
