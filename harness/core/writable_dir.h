// The directory a command writes its results to (--out DIR, or report's DIR). It is made
// (mkdir -p) and proven writable up front by creating and removing a probe file, so a read-only
// mount, a directory without write permission or a path under /proc is said once, plainly, as
// the infrastructure failure it is (exit 3, README "Exit status"), before anything is written
// and before a lock in it could be mistaken for another process's.
#ifndef GPUHARNESS_CORE_WRITABLE_DIR_H_
#define GPUHARNESS_CORE_WRITABLE_DIR_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace gh {

// OK when `dir` exists (made here if need be) and a file can be created in it. Otherwise
// FailedPrecondition "<flag> <dir>: not writable: <reason>" (never InvalidArgument: the command
// line was fine, the machine refused), e.g. "--out /mnt/ro/x: not writable: Read-only file system".
absl::Status EnsureWritableDir(const std::string& dir, std::string_view flag = "--out");

}  // namespace gh

#endif  // GPUHARNESS_CORE_WRITABLE_DIR_H_
