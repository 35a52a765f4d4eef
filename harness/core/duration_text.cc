#include "harness/core/duration_text.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace gh {
namespace {

absl::Status NotADuration(absl::string_view text) {
  return absl::InvalidArgumentError(
      absl::StrCat("expected a duration such as 90s, 10m or 1h, got '", text, "'"));
}

}  // namespace

absl::StatusOr<absl::Duration> ParseDurationValue(absl::string_view text) {
  double seconds = 0;
  // SimpleAtod also reads "nan" and "inf"; absl::ParseDuration reads "inf": neither is a
  // timeout anyone means.
  if (absl::SimpleAtod(text, &seconds)) {
    if (!std::isfinite(seconds)) return NotADuration(text);
    return absl::Seconds(seconds);
  }
  absl::Duration duration;
  if (!absl::ParseDuration(text, &duration) || duration == absl::InfiniteDuration() ||
      duration == -absl::InfiniteDuration()) {
    return NotADuration(text);
  }
  return duration;
}

absl::StatusOr<absl::Duration> ParseDurationText(absl::string_view text) {
  absl::StatusOr<absl::Duration> duration = ParseDurationValue(text);
  if (!duration.ok()) return duration.status();
  if (*duration <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("a duration must be positive");
  }
  return *duration;
}

std::string FormatDurationText(absl::Duration duration) { return absl::FormatDuration(duration); }

}  // namespace gh
