#include "harness/driver/dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace gh::driver {

absl::StatusOr<DirLock> DirLock::Acquire(const std::string& dir) {
  const std::string path = dir + "/.gpuharness.lock";
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::InternalError(absl::StrCat("cannot open ", path, ": ", strerror(errno)));
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    close(fd);
    if (err == EWOULDBLOCK) {
      return absl::UnavailableError(
          absl::StrCat(dir, ": another gpuharness sweep, bisect or minimize is using it (", path, ")"));
    }
    return absl::InternalError(absl::StrCat("cannot lock ", path, ": ", strerror(err)));
  }
  return DirLock(fd);
}

DirLock& DirLock::operator=(DirLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

DirLock::~DirLock() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace gh::driver
