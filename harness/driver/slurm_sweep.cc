#include "harness/driver/slurm_sweep.h"

#include <algorithm>

#include "harness/core/status_macros.h"

namespace gh::driver {

absl::Status UseSlurmAllocation(const SweepPlan& plan, Resources& resources, std::FILE* progress) {
  std::vector<const PlannedCell*> cells;
  for (const PlannedCell& cell : plan.cells) cells.push_back(&cell);
  return UseSlurmAllocation(cells, resources, progress);
}

absl::Status UseSlurmAllocation(const std::vector<const PlannedCell*>& cells, Resources& resources,
                                std::FILE* progress) {
  if (!resources.slurm) return absl::OkStatus();
  for (const PlannedCell* cell : cells) {
    if (cell->launcher.argv.empty() || cell->launcher.argv.front() != "srun") {
      if (progress != nullptr) {
        std::fprintf(progress,
                     "%s: cell %s's launcher '%s' is not srun: the cells run on this node only\n",
                     resources.slurm->ToString().c_str(), cell->plan.id.c_str(),
                     cell->launcher.name.c_str());
      }
      resources.slurm.reset();
      return absl::OkStatus();
    }
  }
  for (const PlannedCell* cell : cells) {
    GH_RETURN_IF_ERROR(
        CheckFitsAllocation(resources, cell->plan.id, cell->plan.ranks, cell->plan.share_gpu));
  }
  return absl::OkStatus();
}

std::deque<size_t> LargestCellsFirst(const SweepPlan& plan, std::deque<size_t> cells) {
  std::stable_sort(cells.begin(), cells.end(), [&](size_t a, size_t b) {
    return plan.cells[a].plan.ranks > plan.cells[b].plan.ranks;
  });
  return cells;
}

}  // namespace gh::driver
