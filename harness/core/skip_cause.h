// Skips that say nothing about the code under test because gpuharness itself does not fit the
// machine: it was built against one version of a library (NCCL's device-API headers) and runs
// with another that the build cannot bridge. Such a skip is "not applicable here": it meets any
// expectation (an unmet `pass` would blame the code under test), and it stays a skip whose
// signature names both versions, so reports show it as what it is.
#ifndef GPUHARNESS_CORE_SKIP_CAUSE_H_
#define GPUHARNESS_CORE_SKIP_CAUSE_H_

#include <string>
#include <string_view>

#include "harness/core/outcome.h"

namespace gh {

// "built against NCCL 2.28.9, runtime 2.29.2" (+ ": <detail>" when `detail` is not empty): the
// one spelling of a harness build / runtime mismatch skip.
std::string HarnessBuildMismatchSkip(std::string_view library, std::string_view compiled, std::string_view runtime,
                                     std::string_view detail);

// "expectations hold for 1 rank per GPU; this run shares one GPU between 2 ranks": the one
// spelling of a point outside its scenario's range of validity (core/validity_range.h). Such a
// skip, too, says nothing about the code under test.
std::string OutsideValiditySkip(std::string_view holds_for, std::string_view this_run);

// Whether `outcome`/`signature` is such a skip (either spelling): a skip whose signature has that spelling (a
// reduced signature's " [ranks ...]" suffix allowed).
bool IsNotApplicableSkip(Outcome outcome, std::string_view signature);

}  // namespace gh

#endif  // GPUHARNESS_CORE_SKIP_CAUSE_H_
