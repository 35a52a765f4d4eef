// A Slurm allocation as the sweep sees it from inside salloc/sbatch: its nodes with the CPUs
// and GPUs (gres) each holds, from SLURM_JOB_NODELIST, SLURM_JOB_CPUS_PER_NODE and
// `scontrol show job -d` (the GPU indices per node). The parsers are pure; Discover reads the
// environment and runs scontrol through the given seams.
#ifndef GPUHARNESS_DRIVER_SLURM_ALLOCATION_H_
#define GPUHARNESS_DRIVER_SLURM_ALLOCATION_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace gh::driver {

struct SlurmNode {
  std::string name;
  int cpus = 0;
  int gpus = 0;
};

struct SlurmAllocation {
  std::string job_id;
  std::string nodelist;  // as Slurm wrote it, e.g. "ghnode[1-3]"
  std::vector<SlurmNode> nodes;
  std::string ToString() const;  // "Slurm job 7: 3 node(s) ghnode[1-3], 24 CPUs, 12 GPUs"
};

// "ghnode[1-3],login[01,05-06],gpu7" -> ghnode1 ghnode2 ghnode3 login01 login05 login06 gpu7
// (zero padding kept). InvalidArgument on an unbalanced bracket or a bad range.
absl::StatusOr<std::vector<std::string>> ExpandHostlist(const std::string& hostlist);

// "8(x3)" or "16,8(x2)" -> one count per node; InvalidArgument when it is malformed or does
// not give exactly `nodes` counts.
absl::StatusOr<std::vector<int>> ParseCpusPerNode(const std::string& text, size_t nodes);

// GPUs per node from `scontrol show job -d JOB`: its lines
// "Nodes=ghnode[1-2] CPU_IDs=0-7 Mem=0 GRES=gpu:4(IDX:0-3)" (any gpu type) name the GPU
// indices each node gives the job. Nodes without such a line are absent (0 GPUs).
absl::StatusOr<std::map<std::string, int>> ParseJobGpus(const std::string& scontrol_text);

using GetEnvFn = std::function<const char*(const char*)>;
// The output of `scontrol show job -d JOB_ID`, or an error when it cannot be run.
using ScontrolFn = std::function<absl::StatusOr<std::string>(const std::string& job_id)>;

// nullopt outside an allocation (no SLURM_JOB_ID or SLURM_JOB_NODELIST) and inside a job
// step (SLURM_STEP_ID: a rank, not the batch script or salloc shell). Errors: Slurm's
// variables malformed (InvalidArgument), scontrol failing is taken as no GPUs.
absl::StatusOr<std::optional<SlurmAllocation>> DiscoverSlurmAllocation(const GetEnvFn& getenv,
                                                                     const ScontrolFn& scontrol);

// `scontrol ARGS` (through core/child_process.h, at most kScontrolTimeout): its stdout, or
// Unavailable saying what failed and scontrol's reason.
inline constexpr absl::Duration kScontrolTimeout = absl::Seconds(60);
absl::StatusOr<std::string> RunScontrol(const std::vector<std::string>& args);

// The real seam: `scontrol show job -d JOB_ID`.
absl::StatusOr<std::string> RunScontrolShowJob(const std::string& job_id);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_SLURM_ALLOCATION_H_
