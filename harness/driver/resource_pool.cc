#include "harness/driver/resource_pool.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "harness/core/child_process.h"

namespace gh::driver {

bool Resources::SlurmGpuMode() const {
  if (!slurm) return false;
  for (const SlurmNode& n : slurm->nodes) {
    if (n.gpus > 0) return true;
  }
  return false;
}

std::string Resources::ToString() const {
  if (slurm) return absl::StrCat(slurm->ToString(), ", cells as job steps across the nodes");
  if (gpu_mode) {
    return absl::StrCat(devices.size(), " GPU(s) [", absl::StrJoin(devices, ","), "] from ",
                        source);
  }
  return absl::StrCat(slots, " CPU slot(s) from ", source);
}

ResourcePool::ResourcePool(Resources resources) : resources_(std::move(resources)) {
  device_busy_.assign(resources_.devices.size(), false);
  if (resources_.slurm) {
    for (const SlurmNode& n : resources_.slurm->nodes) node_free_.push_back({n.cpus, n.gpus});
    node_dead_.assign(node_free_.size(), false);
  }
}

void ResourcePool::ExcludeNode(const std::string& name) {
  if (!resources_.slurm) return;
  for (size_t i = 0; i < node_free_.size(); ++i) {
    if (resources_.slurm->nodes[i].name != name) continue;
    node_dead_[i] = true;
    node_free_[i] = {};
  }
}

bool ResourcePool::FitsLiveNodes(int ranks, bool share_gpu) const {
  if (!resources_.slurm) return true;
  std::vector<NodeCapacity> live;
  for (size_t i = 0; i < node_free_.size(); ++i) {
    const SlurmNode& n = resources_.slurm->nodes[i];
    live.push_back(node_dead_[i] ? NodeCapacity{} : NodeCapacity{n.cpus, n.gpus});
  }
  return PlaceRanks(live, ranks, resources_.SlurmGpuMode(), share_gpu).has_value();
}

std::vector<std::string> ResourcePool::DeadNodes() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < node_dead_.size(); ++i) {
    if (node_dead_[i]) out.push_back(resources_.slurm->nodes[i].name);
  }
  return out;
}

std::optional<Allocation> ResourcePool::TryAcquireCell(int ranks, bool share_gpu) {
  if (!resources_.slurm) return TryAcquire(Need(ranks, share_gpu));
  std::optional<std::vector<NodeTasks>> placed =
      PlaceRanks(node_free_, ranks, resources_.SlurmGpuMode(), share_gpu);
  if (!placed) return std::nullopt;
  Allocation a;
  for (const NodeTasks& t : *placed) {
    node_free_[t.node].cpus -= t.tasks;
    node_free_[t.node].gpus -= t.gpus;
    a.nodes.push_back({resources_.slurm->nodes[t.node].name, t.tasks, t.gpus});
    a.units += t.tasks;
  }
  in_use_ += a.units;
  return a;
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
  for (const StepNode& step : allocation.nodes) {
    for (size_t i = 0; i < node_free_.size(); ++i) {
      if (resources_.slurm->nodes[i].name != step.name || node_dead_[i]) continue;
      node_free_[i].cpus += step.tasks;
      node_free_[i].gpus += step.gpus;
    }
  }
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
  CommandRequest request;
  request.child.argv = {"nvidia-smi", "-L"};
  request.timeout = absl::Seconds(30);  // a wedged driver makes it hang
  absl::StatusOr<CommandResult> ran = RunCommand(request);
  if (!ran.ok() || !ran->ok()) return 0;
  int n = 0;
  for (absl::string_view line : absl::StrSplit(ran->out, '\n')) {
    if (absl::StartsWith(line, "GPU ")) ++n;
  }
  return n;
}

}  // namespace

absl::Status CheckFitsAllocation(const Resources& resources, const std::string& cell_id, int ranks,
                                 bool share_gpu) {
  if (!resources.slurm) return absl::OkStatus();
  std::vector<NodeCapacity> whole;
  for (const SlurmNode& n : resources.slurm->nodes) whole.push_back({n.cpus, n.gpus});
  if (PlaceRanks(whole, ranks, resources.SlurmGpuMode(), share_gpu)) return absl::OkStatus();
  int most = 0;
  for (const NodeCapacity& n : whole) most += RanksThatFit(n, resources.SlurmGpuMode(), share_gpu);
  return absl::InvalidArgumentError(absl::StrCat(
      "cell ", cell_id, " needs ", ranks, " ranks; the ", resources.slurm->ToString(),
      " holds at most ", most, resources.SlurmGpuMode() ? " (one GPU and one CPU a rank)" : " (one CPU a rank)"));
}

absl::StatusOr<Resources> DetectResourcesWithAllocation(std::optional<int> gpus_flag,
                                                        std::optional<int> slots_flag) {
  Resources r = DetectResources(gpus_flag, slots_flag);
  if (gpus_flag || slots_flag) return r;
  absl::StatusOr<std::optional<SlurmAllocation>> slurm = DiscoverSlurmAllocation(
      [](const char* name) { return static_cast<const char*>(std::getenv(name)); }, RunScontrolShowJob);
  if (!slurm.ok()) return slurm.status();
  r.slurm = *std::move(slurm);
  return r;
}

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
