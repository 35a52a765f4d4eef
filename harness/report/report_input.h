// Everything a report renderer (summary.md, report.html) draws from: the comparison, the sweep's
// shape and the environments the jobs ran in. Plain data; the renderers only read it.
#ifndef GPUHARNESS_REPORT_REPORT_INPUT_H_
#define GPUHARNESS_REPORT_REPORT_INPUT_H_

#include <string>
#include <vector>

#include "harness/core/comparison.h"
#include "harness/report/environment_table.h"
#include "harness/report/sweep_info.h"

namespace gh {

struct ReportInput {
  std::string title;                          // "gpuharness sweep nccl_flags"
  const Comparison* comparison = nullptr;     // required
  const SweepInfo* sweep = nullptr;           // null for a plain run
  std::vector<LabeledEnvironment> environments;
  std::string baseline;                       // the baseline directory as given; "" for none
};

}  // namespace gh

#endif  // GPUHARNESS_REPORT_REPORT_INPUT_H_
