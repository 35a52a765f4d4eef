#include "harness/driver/sweep_narrowing.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "harness/core/point_filter.h"
#include "harness/core/stable_hash.h"
#include "harness/core/point.h"

namespace gh::driver {

size_t NarrowCell(PlannedCell& cell, const std::function<bool(const std::string&)>& keep) {
  for (CellJob& job : cell.jobs) {
    const size_t before = job.points.size();
    std::erase_if(job.points, [&](const ExpectedPoint& p) { return !keep(p.point.name); });
    if (job.points.size() != before) job.list_runs = true;
  }
  std::erase_if(cell.jobs, [](const CellJob& job) { return job.points.empty(); });
  return CellRuns(cell);
}

absl::Status FilterPlan(SweepPlan& plan, const std::string& glob) {
  for (PlannedCell& cell : plan.cells) {
    NarrowCell(cell, [&](const std::string& point) { return PointNameMatches(glob, point); });
    cell.hash = StableHash(absl::StrCat(cell.hash, "\nfilter=", glob));
  }
  std::erase_if(plan.cells, [](const PlannedCell& cell) { return cell.jobs.empty(); });
  if (plan.cells.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--filter '", glob, "': matches no point of the matrix"));
  }
  return absl::OkStatus();
}

size_t CellRuns(const PlannedCell& cell) {
  size_t runs = 0;
  for (const CellJob& job : cell.jobs) runs += RunsOf(job.points).size();
  return runs;
}

}  // namespace gh::driver
