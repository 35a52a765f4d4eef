// Packing: cells run at the same time on disjoint devices (GPU mode: each cell gets its own
// CUDA_VISIBLE_DEVICES) or within a CPU slot budget (CPU mode: the running cells' ranks add up
// to at most the slots). A cell that needs more than the machine has runs alone, oversubscribed.
// Node mode (inside a Slurm allocation whose cells start through srun): cells are packed onto
// the allocation's nodes (slurm_packer.h) and each runs as a job step on its own CPUs and GPUs;
// a cell bigger than the allocation is refused before the sweep starts (CheckFitsAllocation).
#ifndef GPUHARNESS_DRIVER_RESOURCE_POOL_H_
#define GPUHARNESS_DRIVER_RESOURCE_POOL_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "harness/driver/slurm_allocation.h"
#include "harness/driver/slurm_packer.h"
#include "harness/driver/slurm_step.h"

namespace gh::driver {

struct Resources {
  bool gpu_mode = false;
  std::vector<std::string> devices;  // GPU mode: device ids as CUDA_VISIBLE_DEVICES names them
  int slots = 1;                     // CPU mode
  std::string source;                // how it was found: "--gpus", "/proc/driver/nvidia/gpus", ...
  std::optional<SlurmAllocation> slurm;  // set: node mode (the fields above are this node's)
  bool SlurmGpuMode() const;         // node mode with GPUs (gres) on the nodes
  std::string ToString() const;      // "2 GPUs (0,1) from nvidia-smi -L", "2 CPU slots (nproc)"
};

struct Allocation {
  std::vector<std::string> devices;  // GPU mode: the cell's devices, in order
  int units = 0;                     // devices or slots taken
  bool alone = false;                // needed more than the machine: runs with nothing else
  std::vector<StepNode> nodes;       // node mode: where the cell's job step runs
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
  // A cell's resources in either mode: node mode packs its ranks onto the allocation's nodes.
  std::optional<Allocation> TryAcquireCell(int ranks, bool share_gpu);
  void Release(const Allocation& allocation);
  // Node mode: a node that died (srun's "Node failure on X") takes no cell again; what it held
  // is not given back. Unknown names are ignored.
  void ExcludeNode(const std::string& name);
  // Node mode: whether the nodes still alive could ever hold such a cell (always in other modes).
  bool FitsLiveNodes(int ranks, bool share_gpu) const;
  // Node mode: the nodes excluded so far, in allocation order.
  std::vector<std::string> DeadNodes() const;
  bool Idle() const { return in_use_ == 0 && !alone_running_; }
  const Resources& resources() const { return resources_; }

 private:
  Resources resources_;
  std::vector<bool> device_busy_;
  int in_use_ = 0;
  bool alone_running_ = false;
  std::vector<NodeCapacity> node_free_;  // node mode
  std::vector<bool> node_dead_;          // node mode: ExcludeNode'd
};

// Node mode: InvalidArgument naming the cell when its ranks exceed what the whole allocation
// holds (CPUs, or GPUs in GPU mode); OK in the other modes.
absl::Status CheckFitsAllocation(const Resources& resources, const std::string& cell_id, int ranks,
                                 bool share_gpu);

// --gpus N (N >= 0) or --slots N when given; else the GPUs the node has (CUDA_VISIBLE_DEVICES
// when set, else /proc/driver/nvidia/gpus/*, else `nvidia-smi -L`), else nproc CPU slots.
Resources DetectResources(std::optional<int> gpus_flag, std::optional<int> slots_flag);
// The same and, without the flags, inside a Slurm allocation (DiscoverSlurmAllocation) also
// `slurm` (the sweep's node mode). Errors: Slurm's variables malformed.
absl::StatusOr<Resources> DetectResourcesWithAllocation(std::optional<int> gpus_flag,
                                                        std::optional<int> slots_flag);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_RESOURCE_POOL_H_
