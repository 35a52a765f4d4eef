// A sweep checked before anything runs or is written: the matrix, its cells, each cell's
// launcher, the scenario files loaded, the jobs a cell runs and the hash that keys resume.
#ifndef GPUHARNESS_DRIVER_SWEEP_PLAN_H_
#define GPUHARNESS_DRIVER_SWEEP_PLAN_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/driver/cell_plan.h"
#include "harness/driver/cell_records.h"
#include "harness/driver/launcher.h"
#include "harness/driver/matrix.h"

namespace gh::driver {

// One `gpuharness run` per distinct point filter (run takes one --filter, applied to every
// file it is given): the files without filters share one job, and each pattern of a `points:`
// list gets the job of that pattern. Usually a cell runs exactly one job. A point two jobs both
// match belongs to the first only.
struct PlannedJob {
  std::vector<JobScenarioFile> files;
  std::string filter;  // "" for every point
};

// One job of one cell as planned: the points it owns, expanded once, and how it is told them.
// A job given only its --filter would run every point of its files that matches it; when that
// is more than the cell owns (the cell has several `points` filters, or an earlier job owns
// some), the job is also given `--runs` listing exactly its runs.
struct CellJob {
  size_t job = 0;                     // index into the plan's jobs
  std::string name;                   // "job", or "job<k>" when the plan has several jobs
  std::string filter;                 // its --filter ("" for none)
  std::vector<ExpectedPoint> points;  // the points it owns, in run order, every trial
  bool list_runs = false;             // the filter alone runs more than `points`: pass --runs
};

struct PlannedCell {
  CellPlan plan;
  LauncherSpec launcher;
  std::string hash;  // settings + scenario files' contents + launcher: a change reruns the cell
  std::vector<CellJob> jobs;  // the jobs that own points, in plan order
};

struct SweepPlan {
  Matrix matrix;
  std::vector<PlannedJob> jobs;  // the same for every cell
  std::vector<PlannedCell> cells;
};

// Everything that can be wrong with the input is an InvalidArgument naming file:line:col and
// the key: the matrix, a scenario file (missing, or the loader's error), a point filter that
// matches no point, a launcher (unknown, malformed, or too few ranks for a cell).
absl::StatusOr<SweepPlan> PlanSweep(const std::string& matrix_path,
                                    const ListCommandRunner& list_runner = RunVersionListCommand);
// The same for a matrix already loaded (a bisect's finer version axis, bisect_levels.h).
absl::StatusOr<SweepPlan> PlanSweepOfMatrix(Matrix matrix);

// Every job of `jobs` for `cell` (empty ones included, in order): each point of the cell's
// rank count that matches the job's files' filters and every one of the cell's, owned by the
// first job that has it. The --filter is the job's pattern, else the cell's pattern that lets
// the fewest points run.
absl::StatusOr<std::vector<CellJob>> PlanCellJobs(const std::vector<PlannedJob>& jobs,
                                                  const CellPlan& cell);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_SWEEP_PLAN_H_
