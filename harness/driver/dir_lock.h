// One `sweep`, `bisect` or `minimize` at a time per output DIR: each holds an exclusive flock on
// DIR/.gpuharness.lock for as long as it runs. The kernel drops the lock with the process,
// however it ends, so a killed driver never leaves DIR locked.
#ifndef GPUHARNESS_DRIVER_DIR_LOCK_H_
#define GPUHARNESS_DRIVER_DIR_LOCK_H_

#include <string>

#include "absl/status/statusor.h"

namespace gh::driver {

class DirLock {
 public:
  // `dir` must exist. Unavailable ("DIR: another gpuharness sweep, bisect or minimize is using
  // it") when it is held; Internal when the lock file cannot be opened (with the reason). Both
  // are infrastructure (exit 3).
  static absl::StatusOr<DirLock> Acquire(const std::string& dir);

  DirLock(DirLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  DirLock& operator=(DirLock&& other) noexcept;
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;
  ~DirLock();

 private:
  explicit DirLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_DIR_LOCK_H_
