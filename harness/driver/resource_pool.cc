#include "harness/driver/resource_pool.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace gh::driver {

std::string Resources::ToString() const {
  if (gpu_mode) {
    return absl::StrCat(devices.size(), " GPU(s) [", absl::StrJoin(devices, ","), "] from ",
                        source);
  }
  return absl::StrCat(slots, " CPU slot(s) from ", source);
}

ResourcePool::ResourcePool(Resources resources) : resources_(std::move(resources)) {
  device_busy_.assign(resources_.devices.size(), false);
}

int ResourcePool::Capacity() const {
  return resources_.gpu_mode ? static_cast<int>(resources_.devices.size()) : resources_.slots;
}

int ResourcePool::Need(int ranks, bool share_gpu) const {
  if (resources_.gpu_mode && share_gpu) return 1;
  return ranks;
}

std::optional<Allocation> ResourcePool::TryAcquire(int need) {
  if (alone_running_) return std::nullopt;
  Allocation a;
  if (need > Capacity()) {
    if (in_use_ != 0) return std::nullopt;
    a.alone = true;
    a.units = Capacity();
    a.devices = resources_.devices;
    alone_running_ = true;
    in_use_ = Capacity();
    for (size_t i = 0; i < device_busy_.size(); ++i) device_busy_[i] = true;
    return a;
  }
  if (Capacity() - in_use_ < need) return std::nullopt;
  a.units = need;
  if (resources_.gpu_mode) {
    for (size_t i = 0; i < device_busy_.size() && static_cast<int>(a.devices.size()) < need; ++i) {
      if (!device_busy_[i]) {
        device_busy_[i] = true;
        a.devices.push_back(resources_.devices[i]);
      }
    }
  }
  in_use_ += need;
  return a;
}

void ResourcePool::Release(const Allocation& allocation) {
  in_use_ -= allocation.units;
  if (allocation.alone) alone_running_ = false;
  for (const std::string& d : allocation.devices) {
    for (size_t i = 0; i < resources_.devices.size(); ++i) {
      if (resources_.devices[i] == d) device_busy_[i] = false;
    }
  }
}

namespace {

std::vector<std::string> Numbered(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(absl::StrCat(i));
  return out;
}

int CountProcGpus() {
  DIR* dir = opendir("/proc/driver/nvidia/gpus");
  if (dir == nullptr) return 0;
  int n = 0;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n;
}

int CountNvidiaSmiGpus() {
  FILE* pipe = popen("nvidia-smi -L 2>/dev/null", "r");
  if (pipe == nullptr) return 0;
  int n = 0;
  char line[512];
  while (fgets(line, sizeof line, pipe) != nullptr) {
    if (absl::StartsWith(line, "GPU ")) ++n;
  }
  pclose(pipe);
  return n;
}

}  // namespace

Resources DetectResources(std::optional<int> gpus_flag, std::optional<int> slots_flag) {
  Resources r;
  long nproc = sysconf(_SC_NPROCESSORS_ONLN);
  r.slots = slots_flag.value_or(nproc > 0 ? static_cast<int>(nproc) : 1);
  if (gpus_flag) {
    r.gpu_mode = *gpus_flag > 0;
    r.devices = Numbered(*gpus_flag);
    r.source = "--gpus";
    if (!r.gpu_mode) r.source = slots_flag ? "--slots" : "nproc (--gpus 0)";
    return r;
  }
  if (slots_flag) {
    r.source = "--slots";
    return r;
  }
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  int procs = CountProcGpus();
  int smi = procs > 0 ? 0 : CountNvidiaSmiGpus();
  if (procs > 0 || smi > 0) {
    r.gpu_mode = true;
    if (visible != nullptr && *visible != '\0') {
      for (absl::string_view d : absl::StrSplit(visible, ',', absl::SkipWhitespace())) {
        r.devices.emplace_back(d);
      }
      r.source = "CUDA_VISIBLE_DEVICES";
    } else {
      r.devices = Numbered(procs > 0 ? procs : smi);
      r.source = procs > 0 ? "/proc/driver/nvidia/gpus" : "nvidia-smi -L";
    }
    if (!r.devices.empty()) return r;
    r.gpu_mode = false;
  }
  r.source = "nproc (no GPU found)";
  return r;
}

}  // namespace gh::driver
