// Whether a sweep inside a Slurm allocation packs its cells across the allocation's nodes:
// only when every cell starts through srun (its launcher's first word), since only an srun
// job step can be placed on given nodes; otherwise the allocation is set aside and the
// one-node packing applies (said on the progress stream). In node mode every cell must fit
// the whole allocation: InvalidArgument (exit 2) before anything runs.
#ifndef GPUHARNESS_DRIVER_SLURM_SWEEP_H_
#define GPUHARNESS_DRIVER_SLURM_SWEEP_H_

#include <cstdio>
#include <deque>
#include <vector>

#include "absl/status/status.h"
#include "harness/driver/resource_pool.h"
#include "harness/driver/sweep_plan.h"

namespace gh::driver {

absl::Status UseSlurmAllocation(const SweepPlan& plan, Resources& resources, std::FILE* progress);
// The same for any cells (bisect's and minimize's probe configurations); `progress` may be null.
absl::Status UseSlurmAllocation(const std::vector<const PlannedCell*>& cells, Resources& resources,
                                std::FILE* progress);

// The order node mode starts cells in: the most ranks first, matrix order among equals (the
// longest-processing-time rule with ranks standing in for time; the sweep still lets a later
// cell start whenever an earlier one does not fit yet).
std::deque<size_t> LargestCellsFirst(const SweepPlan& plan, std::deque<size_t> cells);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_SLURM_SWEEP_H_
