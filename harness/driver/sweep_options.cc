#include "harness/driver/sweep_options.h"

#include "absl/strings/str_cat.h"

namespace gh::driver {

absl::Status CheckSweepOptions(const SweepOptions& options) {
  if (options.fresh && options.rerun_failed) {
    return absl::InvalidArgumentError("--fresh and --rerun-failed: --fresh keeps nothing to rerun from; give one");
  }
  if (options.processes < 1) {
    return absl::InvalidArgumentError(absl::StrCat("--processes: expected 1 or more, got ", options.processes));
  }
  if (options.processes > 1 && options.rerun_failed) {
    return absl::InvalidArgumentError("--rerun-failed reruns a cell's points once: leave out --processes");
  }
  if (options.max_fail < 0) {
    return absl::InvalidArgumentError(absl::StrCat("--maxfail: expected 1 or more, got ", options.max_fail));
  }
  return absl::OkStatus();
}

}  // namespace gh::driver
