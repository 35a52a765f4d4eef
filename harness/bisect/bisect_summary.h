// A bisect's outputs: summary.md (a bug report, then the harness details: the answer, a table
// of every probe: version, trials, counts, signatures, verdict; then the versions in order, in
// the seeds' row shape) and
// summary.json (the same, for tools and for `gpuharness repro`).
#ifndef GPUHARNESS_BISECT_BISECT_SUMMARY_H_
#define GPUHARNESS_BISECT_BISECT_SUMMARY_H_

#include <string>
#include <vector>

#include "harness/bisect/bisect_runner.h"
#include "harness/bisect/probe.h"
#include "harness/bisect/repro_script.h"
#include "harness/report/failure_lines.h"
#include "nlohmann/json.hpp"

namespace gh {

struct BisectContext {
  std::string out_dir;       // the bisect's output directory (absolute), <DIR> in the report
  std::string matrix;        // the matrix file as given
  std::string scenario;      // scenario file(s), as run
  std::string points;        // the point filter ("" for every point)
  std::string cell;          // the fixed flag axes, "proto=ll" ("" for none)
  std::string version_axis;
  std::vector<std::string> excluded;  // versions the matrix excludes for this cell
  std::vector<std::string> repro_scripts;  // file names written beside the summary
  // A perf bisect's hunt in words: "time_median_us worse by 5% or more (higher is worse)";
  // "" for a bisect of outcomes.
  std::string perf_hunt = {};
};

// A probe's trials in a few words: "2/2 failed (wrong data [ranks 1])", "14/14 passed",
// "set-up failed: ...", "1/2 failed, 1 other (SIGSEGV...)".
std::string ProbeCell(const ProbeRecord& probe);

// The FAILED lines (report/failure_lines.h) `bisect` and `minimize` end with: per probe, its
// trials that neither passed nor skipped, one line per point, outcome and signature with how
// many of the probe's trials showed it (and whether it is the hunted failure, when `hunt` is
// given); a version that could not be set up is one infrastructure line. The cell is
// "<axis>=<label>" (the label alone when `axis` is "": minimize's configurations).
std::vector<FailureLine> ProbeFailureLines(const std::vector<ProbeRecord>& probes, const std::string& axis,
                                           const Hunt* hunt);

// How often the bisect saw the arm's version fail, for its repro script.
void SetSeenFailing(ReproArm& arm, const ProbeTally& tally);

// The bug report (bisect_summary_report.h), then "## Harness details": the answer, the hunt,
// the settings and trial economy, every probe, the versions in order.
std::string RenderBisectMarkdown(const BisectConfig& config, const BisectResult& result,
                                 const BisectContext& context);
nlohmann::json BisectSummaryJson(const BisectConfig& config, const BisectResult& result,
                                 const BisectContext& context);

}  // namespace gh

#endif  // GPUHARNESS_BISECT_BISECT_SUMMARY_H_
