// A list of point × trial runs, one per line as "<point name>\t<trial>": what
// `gpuharness run --runs FILE` is limited to. The sweep writes one to continue a job that ended
// early (a crash, a timeout, a lost CUDA context) with the runs it did not get to.
#ifndef GPUHARNESS_CORE_RUN_LIST_H_
#define GPUHARNESS_CORE_RUN_LIST_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace gh {

struct RunKey {
  std::string point;  // Point::name
  int trial = 0;      // 0-based
  bool operator==(const RunKey& other) const {
    return point == other.point && trial == other.trial;
  }
  bool operator<(const RunKey& other) const {
    return point != other.point ? point < other.point : trial < other.trial;
  }
};

std::string FormatRunList(const std::vector<RunKey>& runs);

// The run list `gpuharness run` writes into its DIR before the first point: every run it plans,
// in order. `gpuharness report DIR` counts those without a record (a job cut short).
inline constexpr char kPlannedRunsFile[] = "planned.runs";

// Parses FormatRunList's text; `path` names the file in errors ("runs.txt:3: ..."). Empty
// lines are ignored; a duplicate run is an error. `line_numbers`, when given, receives each
// run's 1-based line.
absl::StatusOr<std::vector<RunKey>> ParseRunList(const std::string& text, const std::string& path,
                                                 std::vector<int>* line_numbers = nullptr);

}  // namespace gh

#endif  // GPUHARNESS_CORE_RUN_LIST_H_
