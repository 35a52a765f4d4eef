// The sections report.html and summary.md both show before the per-scenario matrices, leading
// with what changed. Built once here; each format only renders them (its heading, its table
// markup, its escaping, and the evidence under each row that has an entry).
#ifndef GPUHARNESS_REPORT_REPORT_SECTIONS_H_
#define GPUHARNESS_REPORT_REPORT_SECTIONS_H_

#include <cstddef>
#include <string>
#include <vector>

#include "harness/core/comparison.h"
#include "harness/report/sweep_info.h"

namespace gh {

// Where an entry belongs in a report that leads with what changed.
enum class Attention {
  kNone,     // nothing to say beyond the matrices
  kChanged,  // a regression, a new or different failure, or a point not run (infrastructure)
  kKnown,    // a failure the scenario expects (or its known upstream issue), or one already unmet in the baseline
  kFixed,    // failing in the baseline, passing now; or inside a known issue's versions and meeting the expectation
};

struct AttentionOf {
  Attention group = Attention::kNone;
  // Why, in a few words: "regression", "new failure", "new point", "failing differently than in
  // the baseline", "not run (infrastructure)", "unmet expectation" (no baseline), "expected:
  // <the expectation's reason>", "upstream, known in nccl >=2.30.3: <reference>", "failing in the
  // baseline too", "fixed", "fixed upstream: <reference>".
  std::string why;
};
AttentionOf ClassifyAttention(const PointComparison& entry, bool has_baseline);

struct ReportSection {
  std::string title;                             // rendered "<title> (<rows>)"
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;    // plain text, one entry per header
  // Per row, the comparison entry it shows, or null (may be shorter than `rows`). With
  // `with_evidence`, renderers show each entry's evidence (evidence.h) beneath its row, unfolded
  // when `evidence_open`.
  std::vector<const PointComparison*> entries = {};
  bool with_evidence = false;
  bool evidence_open = false;
  const PointComparison* EntryOfRow(size_t row) const { return row < entries.size() ? entries[row] : nullptr; }
};

// In report order, only those with rows:
//   "Regressions and new failures" (with a baseline; "Unmet expectations" without one: every
//     kChanged entry, its evidence open), "Performance vs baseline" (report/perf_report.h),
//   "Cells not run" (with a sweep), "Known failures" (kKnown, its evidence folded), "Fixes", "Fixed upstream"
//   (inside a known issue's versions and meeting the expectation), "Changed signatures"
//   (those not already leading), "New points", "Vanished points", "Hangs" (the first hang report
//   of each point that timed out; its "NCCL Inspector" column, each rank's last completed
//   collective, only when some hang has one), "NCCL Inspector" (the points run with
//   `nccl_inspector: true`: their first trial's busiest collectives, or why there are none).
// Signatures and details longer than `max_text_chars` are cut to that many characters, ending "...".
std::vector<ReportSection> AttentionSections(const Comparison& comparison, const SweepInfo* sweep,
                                             size_t max_text_chars);

// The first failure's signature, else the skip reason, else "" (not cut).
std::string TrialsSignature(const PointTrials& trials);

}  // namespace gh

#endif  // GPUHARNESS_REPORT_REPORT_SECTIONS_H_
