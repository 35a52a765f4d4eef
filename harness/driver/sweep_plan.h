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
// match is expected from, and kept from, the first only.
struct PlannedJob {
  std::vector<JobScenarioFile> files;
  std::string filter;  // "" for every point
};

struct PlannedCell {
  CellPlan plan;
  LauncherSpec launcher;
  std::string hash;  // settings + scenario files' contents + launcher: a change reruns the cell
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
                                    const ListCommandRunner& list_runner = RunListCommandWithShell);

// The one --filter a job of a cell is given: the job's pattern, else the cell's first; and
// whether the job then runs more points than the cell wants (several patterns apply).
std::string JobFilter(const PlannedJob& job, const CellPlan& cell);
bool JobRunsSuperset(const PlannedJob& job, const CellPlan& cell);

// The `gpuharness run` arguments of one job of a cell.
std::vector<std::string> RunArguments(const PlannedJob& job, const CellPlan& cell,
                                      const std::string& run_dir, const std::string& version_dir);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_SWEEP_PLAN_H_
