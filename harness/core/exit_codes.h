// The process exit statuses of every gpuharness command, in one place (README: "Exit status").
#ifndef GPUHARNESS_CORE_EXIT_CODES_H_
#define GPUHARNESS_CORE_EXIT_CODES_H_

namespace gh {

inline constexpr int kExitOk = 0;              // every outcome met its expectation
inline constexpr int kExitUnmet = 1;           // some did not, or a regression against the baseline
inline constexpr int kExitBadInput = 2;        // bad YAML, flags, paths or state files
inline constexpr int kExitInfrastructure = 3;  // the harness or its machinery failed, not the code under test

}  // namespace gh

#endif  // GPUHARNESS_CORE_EXIT_CODES_H_
