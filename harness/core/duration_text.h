// The one duration grammar of every YAML file (scenario, matrix, launcher) and every flag:
// a bare number is seconds ("60", "1.5"); otherwise a number with a unit, or several run
// together: "500ms", "90s", "10m", "1h30m". nan, inf, zero and negatives are rejected.
#ifndef GPUHARNESS_CORE_DURATION_TEXT_H_
#define GPUHARNESS_CORE_DURATION_TEXT_H_

#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace gh {

// The text as a duration, any sign; InvalidArgument "expected a duration such as 90s, 10m or
// 1h, got 'TEXT'" when it is none (nan and inf included). Callers add file, line and key.
absl::StatusOr<absl::Duration> ParseDurationValue(absl::string_view text);

// ParseDurationValue, then "a duration must be positive" for zero and negatives.
absl::StatusOr<absl::Duration> ParseDurationText(absl::string_view text);

// "10m", "1m30s", "250ms": what ParseDurationText reads back.
std::string FormatDurationText(absl::Duration duration);

}  // namespace gh

#endif  // GPUHARNESS_CORE_DURATION_TEXT_H_
