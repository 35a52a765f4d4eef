// The first screen of a bisect's summary.md, written as a bug report a framework developer can
// act on: what broke (first bad, last good, the failure in plain words), the command each
// process ran, the failing processes' last output lines, and the environment with each arm's
// package versions. No absolute machine path (each is a placeholder such as <DIR> or
// <matrix_dir>) and no harness jargon: that follows under "## Harness details".
#ifndef GPUHARNESS_BISECT_BISECT_SUMMARY_REPORT_H_
#define GPUHARNESS_BISECT_BISECT_SUMMARY_REPORT_H_

#include <string>
#include <utility>
#include <vector>

#include "harness/bisect/bisect_runner.h"
#include "harness/bisect/probe.h"

namespace gh {

struct BisectContext;

// Absolute places replaced by placeholders, longest first: {"/abs/out", "<DIR>"}, ...
using PathPlaceholders = std::vector<std::pair<std::string, std::string>>;

// <DIR> (the bisect's output directory), <matrix_dir>, <scenario_dir>, ~ ($HOME), the directory
// of the gpuharness program as <gpuharness_dir>; longest first.
PathPlaceholders BugReportPlaceholders(const BisectContext& context);

// `text` with every placeholder's place replaced.
std::string WithoutMachinePaths(const std::string& text, const PathPlaceholders& places);

// The bug report sections (markdown, ending before "## Harness details"). Reads the decisive
// trials' directories (job.json, records.jsonl, the job's environment.json and exec command
// records, the versions' venvs); what cannot be read is said, never an error.
std::string RenderBugReport(const BisectConfig& config, const BisectResult& result, const BisectContext& context);

}  // namespace gh

#endif  // GPUHARNESS_BISECT_BISECT_SUMMARY_REPORT_H_
