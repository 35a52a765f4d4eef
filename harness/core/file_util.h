// Small file helpers with Status errors. Whole files are written to a temporary beside the
// target and renamed, so a reader never sees half a file.
#ifndef GPUHARNESS_CORE_FILE_UTIL_H_
#define GPUHARNESS_CORE_FILE_UTIL_H_

#include <string>

#include "absl/status/statusor.h"

namespace gh {

absl::StatusOr<std::string> ReadFileToString(const std::string& path);
absl::Status WriteFileAtomically(const std::string& path, const std::string& contents);
absl::Status MakeDirectories(const std::string& path);  // mkdir -p

}  // namespace gh

#endif  // GPUHARNESS_CORE_FILE_UTIL_H_
