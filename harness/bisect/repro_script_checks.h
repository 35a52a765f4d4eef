// What a repro script checks before and after it runs an arm, rendered as shell: that the arm's
// version is fully set up (every path its activation uses exists, else the set-up runs again), and
// that a failing run failed as recorded (of the recorded failure's family, core/failure_family.h),
// not merely failed: a pruned venv that makes `python3` miss the framework is "failed
// differently", never "reproduced".
#ifndef GPUHARNESS_BISECT_REPRO_SCRIPT_CHECKS_H_
#define GPUHARNESS_BISECT_REPRO_SCRIPT_CHECKS_H_

#include <string>
#include <vector>

#include "harness/bisect/repro_script.h"
#include "harness/core/failure_family.h"

namespace gh {

// The paths under the arm's version directory that its activation uses: each element of its
// variables' values (split at ':', as PATH, LD_LIBRARY_PATH, LD_PRELOAD, VIRTUAL_ENV, ...)
// and of its ranks' commands and variables that lies in the directory. Sorted, no duplicates.
std::vector<std::string> ActivationPaths(const ReproArm& arm);

// An extended regular expression (grep -E) for the line that prints `family`'s failure: its type,
// ": " and its normalised message with what was folded (<id>, <n>, <ver>, <addr>, <path>) open.
// "" when the family has no message to match.
std::string FamilyLineRegex(const FailureFamily& family);

// The shell functions every script defines: `activation_incomplete DIR PATH...` prints what is
// missing (the directory, its set-up's record, or a path) and succeeds when something is.
std::string ActivationCheckFunctions();

// `<arm>_as_recorded`: after a failing run of the arm, sets `<arm>_line` to the failure line the
// run printed and succeeds when it is of the arm's recorded family (always, when none is
// recorded). A ranks arm reads `<arm>_logs` and `<arm>_statuses` (its failing ranks' logs and
// exit statuses); a job arm its records.jsonl.
std::string FamilyCheckFunction(const ReproArm& arm);

}  // namespace gh

#endif  // GPUHARNESS_BISECT_REPRO_SCRIPT_CHECKS_H_
