// Sweep progress: on a terminal one line rewritten in place (cells done, running, failed,
// elapsed, estimate); in CI logs (not a tty, or CI=true) one line per finished cell only.
#ifndef GPUHARNESS_DRIVER_SWEEP_PROGRESS_H_
#define GPUHARNESS_DRIVER_SWEEP_PROGRESS_H_

#include <cstdio>
#include <string>

#include "absl/time/time.h"

namespace gh::driver {

struct CellSummary {
  std::string id;
  int records = 0;
  int passed = 0;
  int unmet = 0;
  bool failed = false;       // unmet expectation, or the job timed out / crashed
  std::string how;           // "exit 0", "timeout", "killed by SIGSEGV", "resumed", "setup failed"
  double wall_s = 0;
};

class SweepProgress {
 public:
  // `total`: cells in the sweep; `resumed`: of those, already done.
  SweepProgress(std::FILE* out, bool interactive, int total, int resumed, absl::Time start);
  void CellStarted(absl::Time now);
  void CellFinished(const CellSummary& cell, absl::Time now);
  void Tick(absl::Time now);   // redraws the line on a terminal, at most 5 times a second
  void Finish(absl::Time now); // ends the in-place line
  std::string StatusLine(absl::Time now) const;  // "3/12 cells done, 2 running, 1 failed, ..."

  // Interactive when `out` is a terminal and CI is not "true"/"1".
  static bool ShouldBeInteractive(std::FILE* out);

 private:
  std::FILE* out_;
  bool interactive_;
  int total_, done_, running_ = 0, failed_ = 0, finished_here_ = 0;
  absl::Time start_;
  absl::Time last_draw_ = absl::InfinitePast();
  double run_seconds_ = 0;  // wall time of the cells finished in this invocation
};

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_SWEEP_PROGRESS_H_
