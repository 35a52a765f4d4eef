// junit.xml: one <testcase> per cell × point, the same points summary.md counts (not trials).
// classname "gpuharness.<matrix>.<scenario>" (dots inside the matrix and scenario names written
// as '_', the matrix part left out for a plain run), name "<point> [<cell>]" (the cell as the
// sweep names it, "proto=LL,nccl=2.28.9"; just the point for a plain run): Jenkins splits a
// classname at its last dot into package and class (CaseResult.getPackageName), so a version
// label must not be in it, and it finds a case's previous result by its name within the suite
// (SuiteResult.getCase), so each cell × point has a name of its own.
// An unmet expectation or a regression against the baseline is a <failure> whatever the outcome
// (an unexpected skip included), its body the evidence (evidence.h: each failing rank's last
// lines, the links to its log and the job's); a skip that met its expectation is <skipped>; a
// pass, or a non-pass outcome that met its expectation, is a plain testcase. Each trial's outcome,
// and every failing rank's whole kept output, goes to <system-out> when there are several trials
// or the point failed. A point with an infra trial is an <error type="infra">. Only attributes
// and elements Jenkins xunit's junit-10.xsd allows (tests/report/junit-10.xsd); the suite
// carries when and where it ran (timestamp, hostname) and the versions as <properties>.
#ifndef GPUHARNESS_REPORT_JUNIT_H_
#define GPUHARNESS_REPORT_JUNIT_H_

#include <string>
#include <vector>

#include "harness/core/record.h"
#include "harness/core/comparison.h"
#include "harness/report/report_input.h"

namespace gh {

// The suite name of a plain `gpuharness run`: no matrix in the classnames.
inline constexpr char kPlainRunSuite[] = "gpuharness";

// `suite_name`: the matrix name, or kPlainRunSuite. `comparison`: CompareResults over `records`
// (with the baseline, so regressions fail too); null compares `records` without a baseline.
// `report`: the sweep's shape, where the logs are, when and where it ran; null: none of those.
std::string RenderJUnit(const std::vector<Record>& records, const std::string& suite_name,
                        const Comparison* comparison = nullptr, const ReportInput* report = nullptr);

// "gpuharness.<matrix>.<scenario>" with no dot inside the parts; `matrix` "" for a plain run.
std::string JUnitClassName(const std::string& matrix, const std::string& scenario);

}  // namespace gh

#endif  // GPUHARNESS_REPORT_JUNIT_H_
