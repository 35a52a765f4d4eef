// Small file helpers with Status errors. Whole files are written to a temporary beside the
// target and renamed, so a reader never sees half a file.
#ifndef GPUHARNESS_CORE_FILE_UTIL_H_
#define GPUHARNESS_CORE_FILE_UTIL_H_

#include <string>

#include "absl/status/statusor.h"

namespace gh {

absl::StatusOr<std::string> ReadFileToString(const std::string& path);
absl::Status WriteFileAtomically(const std::string& path, const std::string& contents);

// write(2) until all of `data` is written, resuming after EINTR and short writes; false on any
// other error (errno says which).
bool WriteAll(int fd, const char* data, size_t size);
absl::Status MakeDirectories(const std::string& path);  // mkdir -p

}  // namespace gh

#endif  // GPUHARNESS_CORE_FILE_UTIL_H_
