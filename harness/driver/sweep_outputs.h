// The sweep's outputs, regenerated from the cells every time (atomically, so a driver killed
// midway leaves the previous complete set): records.jsonl (every done cell's records, in matrix
// order, each carrying its cell's labels), junit.xml, sweep.json, summary.md, report.html; and
// the comparison against expectations and an optional baseline that decides the exit status.
#ifndef GPUHARNESS_DRIVER_SWEEP_OUTPUTS_H_
#define GPUHARNESS_DRIVER_SWEEP_OUTPUTS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/record.h"
#include "harness/driver/sweep_plan.h"
#include "harness/core/comparison.h"
#include "harness/report/results_dir.h"
#include "harness/report/sweep_info.h"

namespace gh::driver {

// Where each cell stands, in plan order.
struct CellStatus {
  std::string status = "pending";  // "done", "setup_failed", "pending"
  std::string detail;
  double wall_s = 0;
};

SweepInfo MakeSweepInfo(const SweepPlan& plan, const std::vector<CellStatus>& cells);

struct SweepOutputsResult {
  int records = 0;
  int unmet = 0;
  int regressions = 0;
  int exit_status = 0;   // ComparisonExitStatus
  std::string headline;  // ComparisonHeadline
  int cells_failed = 0;  // cells with an unmet expectation or a regression
  Comparison comparison;
  SweepInfo sweep;
};

// What the sweep is compared with: `records` null, no baseline.
struct SweepBaseline {
  const std::vector<Record>* records = nullptr;
  std::string dir;      // as the user named it (the reports show it relative to DIR)
  BaselineMatch match;  // which cell axes a point is matched across
  std::string filter = {};  // --filter, which narrowed the baseline's records too
};

// --baseline DIR read (nullopt when `baseline_dir` is empty), its records narrowed to the points
// --filter keeps (the others are not "vanished"); InvalidArgument "--baseline: why" when unreadable.
absl::StatusOr<std::optional<ResultsDir>> LoadSweepBaseline(const std::string& baseline_dir,
                                                            const std::string& filter);

// --baseline-ignore names axes of the plan's matrix, needs a baseline (`baseline` not null), and
// must not make two cells of either side one: InvalidArgument naming the flag otherwise.
absl::Status CheckBaselineIgnore(const SweepPlan& plan, const BaselineMatch& match,
                                 const std::vector<Record>* baseline, const std::string& baseline_dir);

// Reads DIR/cells/<cell>/records.jsonl of done and set-up-failed cells.
absl::StatusOr<SweepOutputsResult> WriteSweepOutputs(const SweepPlan& plan,
                                                     const std::vector<CellStatus>& cells,
                                                     const std::string& out_dir,
                                                     const SweepBaseline& baseline);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_SWEEP_OUTPUTS_H_
