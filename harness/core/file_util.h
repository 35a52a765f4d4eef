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

// The directory part of `path` ("a/b" -> "a", "b" -> ".", "/b" -> "/"), as dirname(1) without
// its trailing-slash rules.
std::string DirectoryOf(const std::string& path);

// `path` made absolute and lexically normal ("" means "."), or as given when that fails: jobs
// run in their own directories, so every path the driver hands them is absolute.
std::string AbsolutePath(const std::string& path);
// The same with symlinks resolved as far as the path exists (weakly_canonical): the one name a
// place has however it was reached.
std::string CanonicalPath(const std::string& path);

}  // namespace gh

#endif  // GPUHARNESS_CORE_FILE_UTIL_H_
