// When, where and with which versions the runs of a results directory ran, as every report states
// it near its top: from the records' start times, each job's environment.json and the sweep's
// version axes.
#ifndef GPUHARNESS_REPORT_RUN_FACTS_H_
#define GPUHARNESS_REPORT_RUN_FACTS_H_

#include <string>
#include <vector>

#include "harness/core/record.h"
#include "harness/report/environment_table.h"
#include "harness/report/sweep_info.h"

namespace gh {

struct RunFacts {
  std::string when;        // "2026-12-07 12:20–12:31 UTC"; "" when no record has a start time
  std::string first_start;  // the first start, "2026-12-07T12:20:20" (UTC), for JUnit's timestamp
  std::vector<std::string> hosts;
  // "vm (host backend, cpu: AMD EPYC)", "node-a, node-b (8× NVIDIA H100 80GB HBM3 (sm 9.0))"
  std::string where;
  // "fw 2.5.0; gpuharness 0.1.0, NCCL 2.28.9, driver 580.95.05, CUDA runtime 13.0, Open MPI v4.1.4":
  // the sweep's version axes first, then what the jobs' environments report.
  std::string versions;
  // "Ran 2026-12-07 12:20–12:31 UTC on vm (host backend, ...) with fw 2.5.0; gpuharness 0.1.0, ...";
  // "" when nothing is known.
  std::string Line() const;
};

RunFacts DescribeRun(const std::vector<Record>& records, const std::vector<LabeledEnvironment>& environments,
                     const SweepInfo* sweep);

}  // namespace gh

#endif  // GPUHARNESS_REPORT_RUN_FACTS_H_
