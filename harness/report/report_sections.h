// The tables report.html and summary.md both show before the per-scenario matrices: the cells a
// sweep did not run, then the comparison's entries by what happened to them. Built once here;
// each format only renders them (its heading, its table markup, its escaping).
#ifndef GPUHARNESS_REPORT_REPORT_SECTIONS_H_
#define GPUHARNESS_REPORT_REPORT_SECTIONS_H_

#include <cstddef>
#include <string>
#include <vector>

#include "harness/core/comparison.h"
#include "harness/report/sweep_info.h"

namespace gh {

struct ReportSection {
  std::string title;                             // "Regressions"; rendered "<title> (<rows>)"
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;    // plain text, one entry per header
};

// In report order, only those with rows: "Cells not run" (with a sweep), "Unmet expectations",
// "Regressions", "Performance vs baseline" (report/perf_report.h), "Fixes", "Changed signatures", "New points", "Vanished points", "Hangs" (the
// first hang report of each point that timed out; its "NCCL Inspector" column, each rank's last
// completed collective, only when some hang has one), "NCCL Inspector" (the points run with
// `nccl_inspector: true`: their first trial's busiest collectives, or why there are none). Signatures and
// cell details longer than `max_text_chars` are cut to that many characters, ending "...".
std::vector<ReportSection> AttentionSections(const Comparison& comparison, const SweepInfo* sweep,
                                             size_t max_text_chars);

// The first failure's signature, else the skip reason, else "" (not cut).
std::string TrialsSignature(const PointTrials& trials);

}  // namespace gh

#endif  // GPUHARNESS_REPORT_REPORT_SECTIONS_H_
