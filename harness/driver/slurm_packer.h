// Where a cell's ranks go in a Slurm allocation: the pure packer behind ResourcePool's node
// mode. Every rank takes a CPU; in GPU mode also a GPU (or, when the ranks share a GPU, one
// GPU per node the cell uses). A cell that fits one node goes to the fullest node it fits
// (best fit, keeping whole nodes free for the large cells); one that does not is spread over
// the fewest nodes, the freest first.
#ifndef GPUHARNESS_DRIVER_SLURM_PACKER_H_
#define GPUHARNESS_DRIVER_SLURM_PACKER_H_

#include <optional>
#include <vector>

namespace gh::driver {

struct NodeCapacity {
  int cpus = 0;
  int gpus = 0;
};

struct NodeTasks {
  size_t node = 0;  // index into the capacities
  int tasks = 0;
  int gpus = 0;     // GPUs taken on it (0 in CPU mode)
};

// The ranks a node can take for such a cell.
int RanksThatFit(const NodeCapacity& free, bool gpu_mode, bool share_gpu);

// The nodes and tasks per node, in node order; nullopt when the free capacity is short.
std::optional<std::vector<NodeTasks>> PlaceRanks(const std::vector<NodeCapacity>& free, int ranks,
                                                 bool gpu_mode, bool share_gpu);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_SLURM_PACKER_H_
