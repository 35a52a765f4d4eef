// Everything a report renderer (summary.md, report.html, junit.xml) draws from: the comparison,
// the sweep's shape, the environments the jobs ran in, when and where they ran, and where the
// failing runs' logs are. Plain data; the renderers only read it.
#ifndef GPUHARNESS_REPORT_REPORT_INPUT_H_
#define GPUHARNESS_REPORT_REPORT_INPUT_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/string_view.h"
#include "harness/core/comparison.h"
#include "harness/report/environment_table.h"
#include "harness/report/run_facts.h"
#include "harness/report/run_logs.h"
#include "harness/report/sweep_info.h"

namespace gh {

struct ReportInput {
  std::string title;                          // "gpuharness sweep nccl_flags"
  const Comparison* comparison = nullptr;     // required
  const SweepInfo* sweep = nullptr;           // null for a plain run
  std::vector<LabeledEnvironment> environments;
  std::string baseline;                       // the baseline directory as the reports name it; "" for none
  // Why the baseline the results were compared with is not compared with now ("" when it is, or
  // when there was none): the reports say so where they name the baseline.
  std::string baseline_problem = {};
  RunFacts facts = {};
  const RunLogs* logs = nullptr;              // null: no links to logs
  std::string reports_dir = {};               // where the reports go: links are relative to it

  // `path_in_results` (relative to the results directory, as RunLogs gives it) as a link from
  // the reports' directory, URL-encoded; "" for "".
  std::string LinkTo(const std::string& path_in_results) const;
  // The same as a path to read ("" for ""), not URL-encoded.
  std::string PathTo(const std::string& path_in_results) const;
  // The line naming the baseline in a report's markup: "Baseline: DIR", then, where it is not
  // compared, " — " `not_compared` ": PROBLEM; this report compares with the expectations only",
  // every text through `escape`; `not_compared` is those words as the format marks them. "" for
  // no baseline.
  std::string BaselineLine(std::string (*escape)(std::string_view), absl::string_view not_compared) const;
};

}  // namespace gh

#endif  // GPUHARNESS_REPORT_REPORT_INPUT_H_
