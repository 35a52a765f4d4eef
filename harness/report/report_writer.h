// Writes a results directory's reports: summary.md, report.html and junit.xml, compared with
// the expectations and optionally a baseline directory. `gpuharness report` calls it, and the
// sweep driver calls it at the end of a sweep (after writing records.jsonl and sweep.json).
#ifndef GPUHARNESS_REPORT_REPORT_WRITER_H_
#define GPUHARNESS_REPORT_REPORT_WRITER_H_

#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/comparison.h"

namespace gh {

struct ReportOptions {
  std::string dir;           // the results directory (see results_dir.h)
  std::string baseline_dir;  // "" for no baseline comparison
  std::set<std::string> baseline_ignore_axes;  // left out when cells meet (BaselineMatch)
  PerfOptions perf;  // how metrics compare with the baseline's (--perf-threshold, --perf-warn-only)
  std::string out_dir;       // where the files go; "" means `dir`
  std::string title;         // "" means "gpuharness sweep <matrix>" or "gpuharness results <dir>"
};

struct ReportResult {
  Comparison comparison;
  std::string headline;              // ComparisonHeadline
  int exit_status = 0;               // ComparisonExitStatus: 1 unmet or regression, 3 any infra
  std::vector<std::string> written;  // paths of the files written
  int torn_lines = 0;                // partial last lines skipped in records.jsonl
  // A plain run's DIR/planned.runs: how many runs it planned, and how many of them have no
  // record (the job was cut short: a crash, a kill). 0 and 0 without the file.
  int planned_runs = 0;
  int unrecorded_runs = 0;
};

// Loads everything first and writes nothing when any input is bad: InvalidArgument naming the
// file (bad input, exit status 2). An output directory that cannot be created or written is
// FailedPrecondition "... not writable: ..." (core/writable_dir.h). Each file is written
// atomically; a failed write is Internal (exit status 3 for both).
absl::StatusOr<ReportResult> WriteReports(const ReportOptions& options);

}  // namespace gh

#endif  // GPUHARNESS_REPORT_REPORT_WRITER_H_
