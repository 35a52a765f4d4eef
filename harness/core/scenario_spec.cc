#include "harness/core/scenario_spec.h"

#include "absl/strings/str_cat.h"

namespace gh {

std::string SourceLoc::ToString() const {
  if (line <= 0) return file;
  return absl::StrCat(file, ":", line, ":", column);
}

std::string RankRequirement::ToString() const {
  if (min == max) return absl::StrCat(min);
  if (max == INT_MAX) return absl::StrCat(">=", min);
  return absl::StrCat(min, "..", max);
}

}  // namespace gh
