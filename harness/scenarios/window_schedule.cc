#include "harness/scenarios/window_schedule.h"

namespace gh {

std::vector<AllGatherStep> AllGatherSchedule(int rank, int tp) {
  std::vector<AllGatherStep> steps;
  steps.reserve(tp);
  for (int s = 0; s < tp; ++s) {
    AllGatherStep step;
    step.step = s;
    step.held_shard = HeldShard(rank, s, tp);
    step.communicates = s + 1 < tp;
    if (step.communicates) {
      step.send_to = RingNext(rank, tp);
      step.recv_from = RingPrev(rank, tp);
      step.recv_shard = HeldShard(rank, s + 1, tp);
    }
    steps.push_back(step);
  }
  return steps;
}

std::vector<ReduceScatterStep> ReduceScatterSchedule(int rank, int tp) {
  std::vector<ReduceScatterStep> steps;
  steps.reserve(tp);
  for (int s = 0; s < tp; ++s) {
    ReduceScatterStep step;
    step.step = s;
    step.block = ReduceBlock(rank, s, tp);
    step.adds_received = s > 0;
    step.communicates = s + 1 < tp;
    if (step.communicates) {
      step.send_to = RingNext(rank, tp);
      step.recv_from = RingPrev(rank, tp);
    }
    steps.push_back(step);
  }
  return steps;
}

}  // namespace gh
