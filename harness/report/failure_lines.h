// The lines `run`, `sweep`, `bisect` and `minimize` end with, in pytest's habit: one per unmet
// expectation or regression,
//   FAILED transport=mpi_p2p,np=2 :: ring_shift/bytes=4K/np=2 — crash: rank 1 killed by SIGSEGV (expected pass)
// each followed by its evidence (evidence.h), indented: the failing ranks, their logs and their
// last few lines (more with verbose); what changed first, and nothing for what met its
// expectation unless asked (verbose: then PASSED, SKIPPED or XFAIL lines follow, in record order).
// A known upstream failure (a `known:` expectation) and a point fixed upstream always get a line
// after the FAILED ones:
//   KNOWN nccl=v2.30.3-1 :: sliced_user_buffers/... — error: ncclUnhandledCudaError: ... (known in nccl >=2.30.3: <reference>)
//   FIXED UPSTREAM nccl=v2.31.0-1 :: sliced_user_buffers/... — meets pass inside nccl >=2.30.3: update the known issue <reference>
//
// What changed comes first: regressions, new failures, points not run (infrastructure); then
// the failures the baseline already had ("failing in the baseline too"). Within each, most
// important first (ties keep record order):
//   1. infrastructure: what says nothing about the code under test but stopped it from running
//      (a version that could not be set up), and any outcome this file does not know;
//   2. crash, 3. timeout, 4. error, 5. fail (wrong data);
//   6. an unexpected pass (expected to fail, passed), 7. an unexpected skip.
// A regression against the baseline ranks by its outcome, as an unmet expectation does.
#ifndef GPUHARNESS_REPORT_FAILURE_LINES_H_
#define GPUHARNESS_REPORT_FAILURE_LINES_H_

#include <string>
#include <vector>

#include "harness/core/comparison.h"
#include "harness/core/outcome.h"
#include "harness/report/console_style.h"
#include "harness/report/run_logs.h"
#include "harness/report/sweep_info.h"

namespace gh {

struct FailureLine {
  std::string word = "FAILED";  // FAILED, KNOWN, FIXED UPSTREAM; with verbose also PASSED, SKIPPED, XFAIL
  Outcome outcome = Outcome::kFail;
  bool infrastructure = false;  // ranks first, whatever the outcome
  std::string cell;             // "transport=mpi_p2p,np=2"; "" for a plain run
  std::string point;
  std::string detail;           // after the dash; one line, cut to a readable length
  bool known = false;           // failing in the baseline too: after what changed
  std::vector<std::string> evidence = {};  // lines printed under it, indented
};

// 0 is the most important; see the order above.
int FailureImportance(const FailureLine& line);

// The cell as the sweep names it: axis=label pairs in the matrix's axis order (`sweep` null:
// sorted by axis name, as CellKey does).
std::string FailureCellName(const std::map<std::string, std::string>& cell, const SweepInfo* sweep);

// One line per key of `comparison` whose expectation is unmet or that regressed against the
// baseline, with its evidence (`logs` null: without links to logs; paths are shown under
// logs->results_dir()); with `verbose`, more of each rank's lines, then one line for every other key.
std::vector<FailureLine> ComparisonFailureLines(const Comparison& comparison,
                                                const SweepInfo* sweep, bool verbose,
                                                const RunLogs* logs = nullptr);

// Sorts the FAILED lines, what changed before the known ones, each by importance (stably; other
// words keep their place after them) and renders each as "FAILED cell :: point — detail\n"
// ("FAILED point — detail" without a cell), then its evidence lines, the word in red (green for
// PASSED) when `style` has colour.
std::string RenderFailureLines(std::vector<FailureLine> lines, const ConsoleStyle& style);

// "crash: <signature>", or the signature alone when it already starts with "crash:", or
// "crash" when it is empty; an infra signature's own "infrastructure: " is not repeated.
std::string OutcomeAndSignature(Outcome outcome, const std::string& signature);

// The signature without a leading restatement of its outcome ("crash: ", and for infra
// "infra: " or "infrastructure: ").
std::string WithoutOutcomeName(Outcome outcome, const std::string& signature);

// `text` on one line (control characters as spaces) and at most `limit` code points, "..." ending
// a cut one.
std::string OneLineClipped(const std::string& text, size_t limit);

}  // namespace gh

#endif  // GPUHARNESS_REPORT_FAILURE_LINES_H_
