// Narrowing a planned sweep to some of its points, done on the plan so that every later stage
// (the jobs, resume, the reports) sees the same points:
//   `sweep --filter GLOB`: only the points whose name matches, for the whole sweep; the glob is
//     part of each cell's hash, so a done cell is resumed only under the same filter;
//   `sweep --rerun-failed`: a done cell's points whose last result was unmet or a regression.
// A job that loses points is told exactly its runs (--runs); jobs and cells left without a
// point are dropped.
#ifndef GPUHARNESS_DRIVER_SWEEP_NARROWING_H_
#define GPUHARNESS_DRIVER_SWEEP_NARROWING_H_

#include <functional>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "harness/driver/sweep_plan.h"

namespace gh::driver {

// Keeps the points of `cell` for which `keep(point name)` holds. Returns the runs left.
size_t NarrowCell(PlannedCell& cell, const std::function<bool(const std::string&)>& keep);

// --filter GLOB (* and ?): InvalidArgument "--filter 'x': matches no point of the matrix"
// when nothing is left.
absl::Status FilterPlan(SweepPlan& plan, const std::string& glob);

// Every run of the cell, in run order (its jobs' points, every trial).
size_t CellRuns(const PlannedCell& cell);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_SWEEP_NARROWING_H_
