// The seam between a `gpuharness run` job and its reports. The runtime runs the points and
// writes records.jsonl and environment.json as it goes; whatever is rendered from the finished
// records (junit.xml, the console table) is the reporter's, which the command line supplies.
// So the runtime never includes harness/report/: the arrow points from cli to both.
#ifndef GPUHARNESS_CORE_JOB_REPORTER_H_
#define GPUHARNESS_CORE_JOB_REPORTER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "harness/core/record.h"

namespace gh {

class JobReporter {
 public:
  virtual ~JobReporter() = default;

  // Called once, on rank 0, when the job ends with `records` (every record, in the order
  // written to `out_dir`/records.jsonl). Also called when the job is cut short (after a
  // timeout, from the watchdog thread, just before the process exits), so it must not wait on
  // the other ranks. A non-OK status (a report could not be written) is printed and makes the
  // job's exit status 3 (infrastructure).
  virtual absl::Status WriteReports(const std::string& out_dir,
                                    const std::vector<Record>& records) = 0;
};

}  // namespace gh

#endif  // GPUHARNESS_CORE_JOB_REPORTER_H_
