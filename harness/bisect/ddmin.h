// Delta debugging (Zeller and Hildebrandt's ddmin): the smallest subset of n changes that, applied
// to a passing configuration, still makes the test fail. The result is 1-minimal: removing any
// single change from it makes the failure go away (or the test unresolved).
#ifndef GPUHARNESS_BISECT_DDMIN_H_
#define GPUHARNESS_BISECT_DDMIN_H_

#include <functional>
#include <vector>

#include "absl/status/statusor.h"

namespace gh {

enum class DdOutcome { kPass, kFail, kUnresolved };

// The test applies the changes whose indices it is given (ascending) and says what happened.
// A test error (infrastructure, not the configuration) aborts the search.
using DdTest = std::function<absl::StatusOr<DdOutcome>(const std::vector<int>& changes)>;

struct DdminResult {
  std::vector<int> minimal;  // ascending indices into the n changes
  int tests_run = 0;         // distinct subsets tested (the full set included, the empty one not)
};

// Precondition checked: the full set of n >= 1 changes fails (FailedPrecondition otherwise).
// The empty set is assumed to pass (it is the passing configuration the caller started from).
// Subsets are tested at most once (results are memoised).
absl::StatusOr<DdminResult> Ddmin(int n, const DdTest& test);

}  // namespace gh

#endif  // GPUHARNESS_BISECT_DDMIN_H_
