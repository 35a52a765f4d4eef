#include "harness/core/skip_cause.h"

#include <optional>
#include <vector>

#include "harness/core/regex.h"

namespace gh {
namespace {

constexpr std::string_view kOutsideValidity = "expectations hold for ";

}  // namespace

std::string HarnessBuildMismatchSkip(std::string_view library, std::string_view compiled, std::string_view runtime,
                                     std::string_view detail) {
  std::string text = "built against " + std::string(library) + " " + std::string(compiled) + ", runtime " +
                     std::string(runtime);
  if (!detail.empty()) text += ": " + std::string(detail);
  return text;
}

std::string OutsideValiditySkip(std::string_view holds_for, std::string_view this_run) {
  return std::string(kOutsideValidity) + std::string(holds_for) + "; this run " + std::string(this_run);
}

bool IsNotApplicableSkip(Outcome outcome, std::string_view signature) {
  if (outcome != Outcome::kSkip) return false;
  if (signature.rfind(kOutsideValidity, 0) == 0) return true;
  // Library and versions are single words; the versions differ (the same is no mismatch).
  static const absl::StatusOr<Regex>* const kSpelling =
      new absl::StatusOr<Regex>(Regex::Compile(R"(^built against \S+ (\S+), runtime ([^\s:,\[]+)(: |$| \[ranks ))"));
  if (!kSpelling->ok()) return false;
  std::optional<std::vector<std::string>> groups = (*kSpelling)->SearchGroups(signature);
  return groups.has_value() && groups->size() >= 3 && (*groups)[1] != (*groups)[2];
}

}  // namespace gh
