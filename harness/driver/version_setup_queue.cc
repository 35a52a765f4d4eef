#include "harness/driver/version_setup_queue.h"

#include <algorithm>

namespace gh::driver {

VersionSetupQueue::VersionSetupQueue(int max_parallel, ProcessRunner& runner, Clock& clock, std::FILE* progress)
    : max_parallel_(std::max(1, max_parallel)), runner_(&runner), clock_(&clock), progress_(progress) {}

std::optional<VersionSetupResult> VersionSetupQueue::Need(const VersionSetupRequest& request) {
  if (auto it = done_.find(request.version); it != done_.end()) return it->second;
  if (running_.count(request.version) != 0) return std::nullopt;
  for (const VersionSetupRequest& q : queued_) {
    if (q.version == request.version) return std::nullopt;
  }
  queued_.push_back(request);
  Poll();
  if (auto it = done_.find(request.version); it != done_.end()) return it->second;
  return std::nullopt;
}

void VersionSetupQueue::Poll() {
  for (auto it = running_.begin(); it != running_.end();) {
    if (std::optional<VersionSetupResult> r = it->second.Poll()) {
      Report(it->first, *r);
      done_[it->first] = *r;
      it = running_.erase(it);
    } else {
      ++it;
    }
  }
  while (!queued_.empty() && static_cast<int>(running_.size()) < max_parallel_) {
    VersionSetupRequest request = std::move(queued_.front());
    queued_.pop_front();
    const std::string version = request.version;
    if (progress_) {
      std::fprintf(progress_, "version %s: set-up...\n", version.c_str());
      std::fflush(progress_);
    }
    VersionSetupJob job(std::move(request), *runner_, *clock_);
    if (std::optional<VersionSetupResult> r = job.Poll()) {  // cached, or could not start
      Report(version, *r);
      done_[version] = *r;
      continue;
    }
    running_.emplace(version, std::move(job));
  }
}

void VersionSetupQueue::Report(const std::string& version, const VersionSetupResult& r) {
  if (!progress_) return;
  std::fprintf(progress_, "version %s: set-up %s%s%s\n", version.c_str(),
               r.ok ? (r.cached ? "cached" : "done") : "FAILED", r.ok ? "" : ": ", r.detail.c_str());
  std::fflush(progress_);
}

}  // namespace gh::driver
