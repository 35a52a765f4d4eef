#include "harness/core/writable_dir.h"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "harness/core/file_util.h"

namespace gh {

absl::Status EnsureWritableDir(const std::string& dir, std::string_view flag) {
  auto not_writable = [&](const std::string& reason) {
    return absl::FailedPreconditionError(
        absl::StrCat(std::string(flag), flag.empty() ? "" : " ", dir, ": not writable: ",
                     reason));
  };
  if (absl::Status made = MakeDirectories(dir); !made.ok()) {
    // MakeDirectories names the component it could not create: keep its reason.
    return not_writable(std::string(made.message()));
  }
  std::string probe = dir + "/.gh_writable_XXXXXX";
  const int fd = mkstemp(probe.data());
  if (fd < 0) return not_writable(std::strerror(errno));
  close(fd);
  unlink(probe.c_str());
  return absl::OkStatus();
}

}  // namespace gh
