#include "harness/driver/slurm_step.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gh::driver {

std::vector<std::string> SrunStepArgs(const std::vector<StepNode>& nodes, bool gpu_mode,
                                      bool share_gpu) {
  std::vector<std::string> hosts;
  for (const StepNode& n : nodes) hosts.insert(hosts.end(), n.tasks, n.name);
  std::vector<std::string> args = {"--exact", "-N", absl::StrCat(nodes.size()), "-w",
                                   absl::StrJoin(hosts, ","), "--distribution=arbitrary"};
  if (gpu_mode) args.push_back(share_gpu ? "--gpus-per-node=1" : "--gpus-per-task=1");
  return args;
}

}  // namespace gh::driver
