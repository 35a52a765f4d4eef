// A cell's job step in a Slurm allocation: the nodes and tasks the packer gave it, and the
// srun options that start exactly there (`--exact` takes only those CPUs and GPUs, so steps
// of other cells run beside it on disjoint resources).
#ifndef GPUHARNESS_DRIVER_SLURM_STEP_H_
#define GPUHARNESS_DRIVER_SLURM_STEP_H_

#include <string>
#include <vector>

namespace gh::driver {

struct StepNode {
  std::string name;
  int tasks = 0;
  int gpus = 0;  // GPUs the step takes there (0: none asked)
};

// -N K -w <one host per rank, in rank order> --distribution=arbitrary (ranks blocked per node,
// any count per node), --exact, and in GPU mode --gpus-per-task=1 or, when the ranks share a
// GPU, --gpus-per-node=1. Inserted after `srun` in the launcher's argv.
std::vector<std::string> SrunStepArgs(const std::vector<StepNode>& nodes, bool gpu_mode,
                                      bool share_gpu);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_SLURM_STEP_H_
