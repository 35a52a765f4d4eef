#include "harness/report/report_input.h"

#include "harness/report/evidence.h"

namespace gh {

std::string ReportInput::PathTo(const std::string& path_in_results) const {
  if (path_in_results.empty() || logs == nullptr) return path_in_results;
  return PathFromReports(logs->results_dir(), reports_dir, path_in_results);
}

std::string ReportInput::LinkTo(const std::string& path_in_results) const {
  return UrlPath(PathTo(path_in_results));
}

}  // namespace gh
