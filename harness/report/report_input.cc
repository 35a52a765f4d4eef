#include "harness/report/report_input.h"

#include "absl/strings/str_cat.h"
#include "harness/report/evidence.h"

namespace gh {

std::string ReportInput::PathTo(const std::string& path_in_results) const {
  if (path_in_results.empty() || logs == nullptr) return path_in_results;
  return PathFromReports(logs->results_dir(), reports_dir, path_in_results);
}

std::string ReportInput::LinkTo(const std::string& path_in_results) const {
  return UrlPath(PathTo(path_in_results));
}

std::string ReportInput::BaselineLine(std::string (*escape)(std::string_view),
                                      absl::string_view not_compared) const {
  if (baseline.empty()) return "";
  std::string line = absl::StrCat("Baseline: ", escape(baseline));
  if (!baseline_problem.empty()) {
    absl::StrAppend(&line, " — ", not_compared, ": ", escape(baseline_problem),
                    "; this report compares with the expectations only");
  }
  return line;
}

}  // namespace gh
