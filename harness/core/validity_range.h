// Where a scenario's expectations hold (`valid_for:`): conditions on the run's facts (rank
// count, GPU sharing, backend, NCCL version, environment, GPU model). A point run outside them
// is not run: it is a skip saying which condition failed and what this run had instead
// ("expectations hold for 1 rank per GPU; this run shares one GPU between 2 ranks"), which
// meets every expectation (core/skip_cause.h), never an unmet one.
#ifndef GPUHARNESS_CORE_VALIDITY_RANGE_H_
#define GPUHARNESS_CORE_VALIDITY_RANGE_H_

#include <optional>
#include <string>

#include "harness/core/expectation.h"

namespace gh {

struct Point;

// "" when every condition of `range` holds for the point in `facts` (or there is no range),
// else the skip's signature for the first condition that does not.
std::string OutsideValidity(const std::optional<ExpectationRule>& range, const Point& point,
                            const EnvironmentFacts& facts);

}  // namespace gh

#endif  // GPUHARNESS_CORE_VALIDITY_RANGE_H_
