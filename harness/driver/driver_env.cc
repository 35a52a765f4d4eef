#include "harness/driver/driver_env.h"

namespace gh::driver {

void DriverEnv::Print(const std::string& line) const {
  if (progress == nullptr) return;
  std::fprintf(progress, "%s\n", line.c_str());
  std::fflush(progress);
}

absl::StatusOr<std::unique_ptr<ResultsDirClaim>> ResultsDirClaim::Claim(const std::string& dir,
                                                                       absl::Duration kill_grace,
                                                                       const DriverEnv& env) {
  absl::StatusOr<DirLock> lock = DirLock::Acquire(dir);
  if (!lock.ok()) return lock.status();
  std::unique_ptr<ResultsDirClaim> claim(new ResultsDirClaim(*std::move(lock), dir, *env.runner));
  absl::StatusOr<int> stopped = claim->ledger_.StopLeftovers(kill_grace, *env.clock, env.progress);
  if (!stopped.ok()) return stopped.status();
  return claim;
}

}  // namespace gh::driver
