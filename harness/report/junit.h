// junit.xml: one <testcase> per cell × point, the same points summary.md counts (not trials).
// classname "gpuharness.<matrix>.<cell key>" (cell key: CellKey, e.g. "algo=Ring,proto=LL"; the
// matrix and cell parts are left out where absent), name the point: one stable id per cell ×
// point for CI history and flake trackers. An unmet expectation or a regression against the
// baseline is a <failure> whatever the outcome (an unexpected skip included); a skip that met its
// expectation is <skipped>; a pass, or a non-pass outcome that met its expectation, is a plain
// testcase. Each trial's outcome goes to <system-out> when there are several or the point failed.
// Only attributes Jenkins xunit's junit-10.xsd allows (tests/report/junit-10.xsd); <error> is
// never written (errors="0"): every unmet outcome is the test's failure, not the harness's.
#ifndef GPUHARNESS_REPORT_JUNIT_H_
#define GPUHARNESS_REPORT_JUNIT_H_

#include <string>
#include <vector>

#include "harness/core/record.h"
#include "harness/core/comparison.h"

namespace gh {

// The suite name of a plain `gpuharness run`: no matrix in the classnames.
inline constexpr char kPlainRunSuite[] = "gpuharness";

// `suite_name`: the matrix name, or kPlainRunSuite. `comparison`: CompareResults over `records`
// (with the baseline, so regressions fail too); null compares `records` without a baseline.
std::string RenderJUnit(const std::vector<Record>& records, const std::string& suite_name,
                        const Comparison* comparison = nullptr);

}  // namespace gh

#endif  // GPUHARNESS_REPORT_JUNIT_H_
