// junit.xml: one <testcase> per point × trial (classname = scenario, name = point[#trial]).
// pass → plain testcase, skip → <skipped>, fail → <failure>, error/crash/timeout → <error>;
// a testcase whose outcome met a non-pass expectation is reported as passing.
#ifndef GPUHARNESS_REPORT_JUNIT_H_
#define GPUHARNESS_REPORT_JUNIT_H_

#include <string>
#include <vector>

#include "harness/core/record.h"

namespace gh {

std::string RenderJUnit(const std::vector<Record>& records, const std::string& suite_name);

}  // namespace gh

#endif  // GPUHARNESS_REPORT_JUNIT_H_
