// The set-ups a driver needs, run lazily and in parallel: a version's set-up starts only when a
// cell (or probe) of it asks (Need), at most `max_parallel` at once, in the order asked; the
// driver polls between its other work and starts a version's cells once its set-up is over.
#ifndef GPUHARNESS_DRIVER_VERSION_SETUP_QUEUE_H_
#define GPUHARNESS_DRIVER_VERSION_SETUP_QUEUE_H_

#include <cstdio>
#include <deque>
#include <map>
#include <optional>
#include <string>

#include "harness/driver/version_setup.h"

namespace gh::driver {

class VersionSetupQueue {
 public:
  // `progress` (may be null) gets "version V: set-up..." and "version V: set-up done|cached|FAILED: ...".
  VersionSetupQueue(int max_parallel, ProcessRunner& runner, Clock& clock, std::FILE* progress);

  // The result for `request.version` once its set-up is over; nullopt while it waits or runs.
  // The first call for a version queues it; later calls with the same version only look.
  std::optional<VersionSetupResult> Need(const VersionSetupRequest& request);
  // Advances the running set-ups and starts queued ones into free slots.
  void Poll();
  bool Busy() const { return !running_.empty() || !queued_.empty(); }

 private:
  void Report(const std::string& version, const VersionSetupResult& r);

  int max_parallel_;
  ProcessRunner* runner_;
  Clock* clock_;
  std::FILE* progress_;
  std::deque<VersionSetupRequest> queued_;
  std::map<std::string, VersionSetupJob> running_;
  std::map<std::string, VersionSetupResult> done_;
};

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_VERSION_SETUP_QUEUE_H_
