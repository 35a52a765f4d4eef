#include "harness/scenarios/window_schedule.h"

namespace gh {
namespace {

// The ring part of every step of rank `rank` of `tp`; each schedule fills in what it moves.
template <typename Step>
std::vector<Step> RingSteps(int rank, int tp) {
  std::vector<Step> steps(tp);
  for (int s = 0; s < tp; ++s) {
    steps[s].step = s;
    steps[s].communicates = s + 1 < tp;
    if (steps[s].communicates) {
      steps[s].send_to = RingNext(rank, tp);
      steps[s].recv_from = RingPrev(rank, tp);
    }
  }
  return steps;
}

}  // namespace

std::vector<AllGatherStep> AllGatherSchedule(int rank, int tp) {
  std::vector<AllGatherStep> steps = RingSteps<AllGatherStep>(rank, tp);
  for (AllGatherStep& step : steps) {
    step.held_shard = HeldShard(rank, step.step, tp);
    if (step.communicates) step.recv_shard = HeldShard(rank, step.step + 1, tp);
  }
  return steps;
}

std::vector<ReduceScatterStep> ReduceScatterSchedule(int rank, int tp) {
  std::vector<ReduceScatterStep> steps = RingSteps<ReduceScatterStep>(rank, tp);
  for (ReduceScatterStep& step : steps) {
    step.block = ReduceBlock(rank, step.step, tp);
    step.adds_received = step.step > 0;
  }
  return steps;
}

}  // namespace gh
