#include "harness/driver/slurm_packer.h"

#include <algorithm>
#include <numeric>

namespace gh::driver {

int RanksThatFit(const NodeCapacity& free, bool gpu_mode, bool share_gpu) {
  if (!gpu_mode) return free.cpus;
  if (share_gpu) return free.gpus >= 1 ? free.cpus : 0;
  return std::min(free.cpus, free.gpus);
}

std::optional<std::vector<NodeTasks>> PlaceRanks(const std::vector<NodeCapacity>& free, int ranks,
                                                 bool gpu_mode, bool share_gpu) {
  if (ranks < 1) return std::nullopt;
  std::vector<int> fit;
  for (const NodeCapacity& n : free) fit.push_back(RanksThatFit(n, gpu_mode, share_gpu));
  auto gpus_for = [&](int tasks) { return !gpu_mode ? 0 : share_gpu ? 1 : tasks; };
  // Best fit on one node: the one with the least room that still holds every rank.
  std::optional<size_t> best;
  for (size_t i = 0; i < fit.size(); ++i) {
    if (fit[i] >= ranks && (!best || fit[i] < fit[*best])) best = i;
  }
  if (best) return std::vector<NodeTasks>{{*best, ranks, gpus_for(ranks)}};
  // Spread: the freest nodes first, so the cell uses as few nodes as it can.
  std::vector<size_t> order(fit.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return fit[a] > fit[b]; });
  std::vector<NodeTasks> placed;
  int left = ranks;
  for (size_t i : order) {
    if (left == 0 || fit[i] == 0) break;
    const int tasks = std::min(left, fit[i]);
    placed.push_back({i, tasks, gpus_for(tasks)});
    left -= tasks;
  }
  if (left > 0) return std::nullopt;
  std::sort(placed.begin(), placed.end(), [](const NodeTasks& a, const NodeTasks& b) { return a.node < b.node; });
  return placed;
}

}  // namespace gh::driver
