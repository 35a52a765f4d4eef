// `gpuharness minimize` end to end: a failing and a passing cell of a matrix (chosen by label
// sets), the differences in their environment and flags, delta debugging (ddmin) over them with
// each test a real probe (trials decided by the SPRT), then the workaround verified: the failing
// cell with the minimal change reverted. Writes summary.md, summary.json and repro.sh.
#ifndef GPUHARNESS_BISECT_BISECT_MINIMIZE_SESSION_H_
#define GPUHARNESS_BISECT_BISECT_MINIMIZE_SESSION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/bisect/bisect_minimize.h"
#include "harness/bisect/bisect_session.h"
#include "harness/report/failure_lines.h"

namespace gh {

struct MinimizeOptions {
  std::string matrix_path;
  std::string scenario_path;
  std::string points;
  std::string failing;  // label set of the failing cell
  std::string passing;  // label set of the passing cell
  HuntSpec hunt;
  SprtConfig sprt;
  std::string out_dir;
  std::string program;
  absl::Duration kill_grace = absl::Seconds(10);
  absl::Duration setup_timeout = absl::Minutes(30);
};

struct MinimizeSessionResult {
  int exit_status = 0;  // 0 minimal change found and its workaround verified; 1 otherwise
  std::vector<SettingChange> changes;  // every difference, passing -> failing
  std::vector<int> minimal;            // indices into `changes`
  bool workaround_verified = false;
  std::string headline;  // "with NCCL_CUMEM_ENABLE=0 every rank passes (...)"
  std::vector<FailureLine> failures;  // ProbeFailureLines over every probe: the console's end
};

// InvalidArgument for bad input (exit 2, nothing written); other errors are infrastructure.
absl::StatusOr<MinimizeSessionResult> RunMinimizeSession(const MinimizeOptions& options, driver::DriverEnv& env);

}  // namespace gh

#endif  // GPUHARNESS_BISECT_BISECT_MINIMIZE_SESSION_H_
