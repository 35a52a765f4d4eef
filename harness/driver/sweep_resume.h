// What a sweep run again into its DIR finds there: the cells an earlier run finished under the
// same plan (cells/<cell>/done.json with the cell's hash, beside its records.jsonl), the points
// `--rerun-failed` runs again, and how a rerun cell's new records replace its old ones.
#ifndef GPUHARNESS_DRIVER_SWEEP_RESUME_H_
#define GPUHARNESS_DRIVER_SWEEP_RESUME_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/comparison.h"
#include "harness/core/record.h"
#include "harness/driver/sweep_plan.h"

namespace gh::driver {

struct DoneCell {
  double wall_s = 0;
  int unmet = 0;      // the cell's unmet expectations when it finished
  int infra = 0;      // its records that ended infra: a rerun runs the cell again
  int processes = 1;  // --processes: how many of the cell's processes ran (absent: 1)
};

// Cell `cell`'s done.json in `cell_dir` when it says the cell finished under this plan; nullopt
// when it did not (no done.json, or one of another plan); InvalidArgument naming the file and
// the key when done.json is malformed.
absl::StatusOr<std::optional<DoneCell>> ReadDoneCell(const std::string& cell_dir, const PlannedCell& cell);

// --rerun-failed: for each done cell (by plan index), its points whose last result is unmet or
// a regression against `baseline`.
absl::StatusOr<std::map<size_t, std::set<std::string>>> FailedPoints(const SweepPlan& plan,
                                                                     const std::string& cells_dir,
                                                                     const std::vector<Record>* baseline,
                                                                     const BaselineMatch& match);

// --fresh: removes what an earlier sweep left in `out_dir` (cells, versions, its outputs) and
// makes cells/ again; InternalError "--fresh: cannot remove PATH: why".
absl::Status RemoveSweepResults(const std::string& out_dir);

// A rerun cell's records: the earlier ones in their order, each rerun point's new records
// where its old ones were (a point new to the cell at the end).
std::vector<Record> MergeRerunRecords(const std::vector<Record>& previous, std::vector<Record> fresh);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_SWEEP_RESUME_H_
