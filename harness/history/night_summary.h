// A night's summary for ci/nightly.sh (`gpuharness history summary NIGHT_DIR`): summary.md for
// people and nightly.json as data (results/SCHEMA.md), from what the night left in its
// directory: sweeps.tsv (matrix, sweep exit), <matrix>/regressions.json (night_regressions.h),
// bisects.tsv (matrix, point, cell, bisect directory, bisect exit or "-", note) and each
// bisect's summary.json and summary.md, which is attached under its regression; the baseline
// night's nightly.json names its version; the history database, when given, what is broken now
// and since which night.
#ifndef GPUHARNESS_HISTORY_NIGHT_SUMMARY_H_
#define GPUHARNESS_HISTORY_NIGHT_SUMMARY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/history/history_queries.h"

namespace gh {

inline constexpr char kNightSweepsFile[] = "sweeps.tsv";
inline constexpr char kNightBisectsFile[] = "bisects.tsv";

struct NightSummaryInputs {
  std::string night_dir;
  std::string night, cluster, version;
  int status = 0;            // ci/nightly.sh's exit status for the night
  bool good = false;         // the night becomes the baseline
  std::string baseline_dir;  // the baseline night's directory; "" none yet
  // The history's series (history_queries.h), for "broken now"; empty leaves the section out.
  std::vector<PointHistory> histories;
};

// Writes NIGHT_DIR/summary.md and NIGHT_DIR/nightly.json (each atomically) and returns their
// paths. InvalidArgument naming file, line and key for a malformed state file.
absl::StatusOr<std::vector<std::string>> WriteNightSummary(const NightSummaryInputs& inputs);

}  // namespace gh

#endif  // GPUHARNESS_HISTORY_NIGHT_SUMMARY_H_
