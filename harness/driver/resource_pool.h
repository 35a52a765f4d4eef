// Packing: cells run at the same time on disjoint devices (GPU mode: each cell gets its own
// CUDA_VISIBLE_DEVICES) or within a CPU slot budget (CPU mode: the running cells' ranks add up
// to at most the slots). A cell that needs more than the machine has runs alone, oversubscribed.
#ifndef GPUHARNESS_DRIVER_RESOURCE_POOL_H_
#define GPUHARNESS_DRIVER_RESOURCE_POOL_H_

#include <optional>
#include <string>
#include <vector>

namespace gh::driver {

struct Resources {
  bool gpu_mode = false;
  std::vector<std::string> devices;  // GPU mode: device ids as CUDA_VISIBLE_DEVICES names them
  int slots = 1;                     // CPU mode
  std::string source;                // how it was found: "--gpus", "/proc/driver/nvidia/gpus", ...
  std::string ToString() const;      // "2 GPUs (0,1) from nvidia-smi -L", "2 CPU slots (nproc)"
};

struct Allocation {
  std::vector<std::string> devices;  // GPU mode: the cell's devices, in order
  int units = 0;                     // devices or slots taken
  bool alone = false;                // needed more than the machine: runs with nothing else
};

class ResourcePool {
 public:
  explicit ResourcePool(Resources resources);
  int Capacity() const;
  // Devices (GPU mode: 1 when the ranks share a GPU, else one per rank) or slots (CPU mode).
  int Need(int ranks, bool share_gpu) const;
  // Reserves the lowest free devices or `need` slots; nullopt when they are not free now.
  // A need above capacity is granted only when nothing else runs, and takes everything.
  std::optional<Allocation> TryAcquire(int need);
  void Release(const Allocation& allocation);
  bool Idle() const { return in_use_ == 0 && !alone_running_; }
  const Resources& resources() const { return resources_; }

 private:
  Resources resources_;
  std::vector<bool> device_busy_;
  int in_use_ = 0;
  bool alone_running_ = false;
};

// --gpus N (N >= 0) or --slots N when given; else the GPUs the node has (CUDA_VISIBLE_DEVICES
// when set, else /proc/driver/nvidia/gpus/*, else `nvidia-smi -L`), else nproc CPU slots.
Resources DetectResources(std::optional<int> gpus_flag, std::optional<int> slots_flag);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_RESOURCE_POOL_H_
