// Writes a results directory's reports: summary.md, report.html and junit.xml, compared with the
// expectations and optionally a baseline directory, and the comparison itself (comparison.json,
// comparison_record.h). The sweep driver calls it at the end of every sweep (after writing
// records.jsonl and sweep.json); `gpuharness report DIR` calls it again later and, without
// --baseline, compares as DIR/comparison.json recorded, so it writes what the sweep wrote.
#ifndef GPUHARNESS_REPORT_REPORT_WRITER_H_
#define GPUHARNESS_REPORT_REPORT_WRITER_H_

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/comparison.h"
#include "harness/report/run_facts.h"
#include "harness/report/sweep_info.h"

namespace gh {

struct ReportOptions {
  std::string dir;           // the results directory (see results_dir.h)
  std::string baseline_dir;  // "": as DIR/comparison.json recorded (none when it does not exist)
  std::set<std::string> baseline_ignore_axes;  // left out when cells meet (BaselineMatch)
  PerfOptions perf;  // how metrics compare with the baseline's (--perf-threshold, --perf-warn-only)
  // Without `baseline_dir`: `perf` was given (on the command line) and overrides the recorded one.
  bool perf_given = false;
  std::string baseline_filter;  // the sweep's --filter: the baseline's records are narrowed by it
  bool no_baseline = false;     // compare with the expectations only, whatever was recorded
  // Record the comparison (comparison.json) even without a baseline: the sweep does, so that a
  // later `report DIR` knows none was given. A given --baseline or no_baseline is recorded too.
  bool record_comparison = false;
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
  RunFacts facts;                    // when, where, with which versions
  std::optional<SweepInfo> sweep;    // DIR/sweep.json, when there is one
  // The baseline compared with as the reports name it ("" for none), and whether it came from
  // DIR/comparison.json.
  std::string baseline;
  bool baseline_recorded = false;
  // Why the recorded baseline was not compared with (moved, removed, changed); "" otherwise.
  std::string baseline_problem;
};

// Loads everything first and writes nothing when any input is bad: InvalidArgument naming the
// file (bad input, exit status 2), a malformed comparison.json included. An output directory that
// cannot be created or written is FailedPrecondition "... not writable: ..." (core/writable_dir.h).
// Each file is written atomically; a failed write is Internal (exit status 3 for both).
absl::StatusOr<ReportResult> WriteReports(const ReportOptions& options);

}  // namespace gh

#endif  // GPUHARNESS_REPORT_REPORT_WRITER_H_
