// A node of a Slurm job step that died under it, in srun's own words. When slurmctld marks a
// node DOWN (it missed SlurmdTimeout) it tells srun, which prints
//   srun: error: Node failure on ghnode2
// (the nodes as a Slurm host list) and ends the step, exiting 0 (Slurm 22.05). That is no
// verdict on the code under test: the cell's unrecorded runs are infrastructure, and a sweep
// inside an allocation retries the cell on the nodes still alive.
#ifndef GPUHARNESS_DRIVER_SLURM_NODE_FAILURE_H_
#define GPUHARNESS_DRIVER_SLURM_NODE_FAILURE_H_

#include <optional>
#include <string>
#include <vector>

namespace gh::driver {

struct SlurmNodeFailure {
  std::vector<std::string> nodes;  // expanded, in srun's order
  std::string line;                // srun's line, trimmed
};

// The first "srun: error: Node failure on HOSTLIST" line of a job's log; nullopt when none
// (or the host list is malformed).
std::optional<SlurmNodeFailure> FindSlurmNodeFailure(const std::string& log_path);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_SLURM_NODE_FAILURE_H_
