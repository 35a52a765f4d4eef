// The point filter users write after --filter (or -k) and under a matrix cell's `points:`: a
// glob over point names, or globs joined by `and`, `or`, `not` and parentheses, as pytest's -k
// joins its words:
//     ring_shift/*                      every ring_shift point
//     *np=2 or *np=4                    either rank count
//     ring_shift/* and not *bytes=1G*   ring_shift without its largest size
// `not` binds tightest, then `and`, then `or`. Globs are GlobMatches' ('*', '?'); a glob cannot
// hold a space or a parenthesis, and the three words are operators, never globs.
#ifndef GPUHARNESS_CORE_POINT_FILTER_H_
#define GPUHARNESS_CORE_POINT_FILTER_H_

#include <string_view>

#include "absl/status/status.h"

namespace gh {

// OK for "" (every point) and for a well-formed filter; otherwise InvalidArgument naming what
// is wrong and where: "expected a glob after 'and' at the end", "unbalanced ')' at column 12".
absl::Status CheckPointFilter(std::string_view filter);

// Whether `point_name` passes `filter` ("" passes everything). A malformed filter (which
// CheckPointFilter refuses up front) matches nothing.
bool PointNameMatches(std::string_view filter, std::string_view point_name);

}  // namespace gh

#endif  // GPUHARNESS_CORE_POINT_FILTER_H_
