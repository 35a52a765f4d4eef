// The window schedule of a windowed einsum: which shard of x each rank holds at each step of
// the ring all-gather, who it sends to and receives from, and, for the chained two-layer
// variant, which output block each rank's partial sum is for at each step of the ring
// reduce-scatter. Pure logic (no MPI, no CUDA) shared by the host and cuda backends.
//
// Convention: ranks form a ring; data always flows from rank r to rank (r + 1) % tp.
//  All-gather: at step s (0 <= s < tp) rank r holds shard (r - s) mod tp. It computes on that
//   shard and, except at the last step, sends it to r + 1 while receiving shard (r - s - 1)
//   mod tp from r - 1: the shard it holds at step s + 1.
//  Reduce-scatter: at step s rank r computes the partial product for output block
//   (r - s - 1) mod tp, adds the running sum received from r - 1 at the previous step (none at
//   step 0) and, except at the last step, sends the sum to r + 1. At the last step the block
//   is r's own, and the sum holds every rank's partial.
#ifndef GPUHARNESS_SCENARIOS_WINDOW_SCHEDULE_H_
#define GPUHARNESS_SCENARIOS_WINDOW_SCHEDULE_H_

#include <vector>

namespace gh {

// What every step of both schedules has: whether it passes data round the ring, and where.
struct RingStep {
  int step = 0;
  bool communicates = false;  // false at the last step (and always at tp = 1)
  int send_to = -1;           // the next rank; -1 when !communicates
  int recv_from = -1;         // the previous rank; -1 when !communicates
};

// all-gather: the held shard goes to send_to, the next shard comes from recv_from.
struct AllGatherStep : RingStep {
  int held_shard = 0;   // shard of x this rank computes on at this step
  int recv_shard = -1;  // shard received at this step (held at step + 1); -1 when none
};

// reduce-scatter: the running sum goes on to send_to.
struct ReduceScatterStep : RingStep {
  int block = 0;               // output block (row block of y) this rank's partial is for
  bool adds_received = false;  // adds the running sum received at the previous step
};

// Every step of rank `rank` of `tp` (1 <= tp, 0 <= rank < tp), in order.
std::vector<AllGatherStep> AllGatherSchedule(int rank, int tp);
std::vector<ReduceScatterStep> ReduceScatterSchedule(int rank, int tp);

// The shard rank `rank` holds at all-gather step `step`, and the block it computes at
// reduce-scatter step `step` (the formulas above, for kernels and loops that need no vector).
inline int HeldShard(int rank, int step, int tp) { return ((rank - step) % tp + tp) % tp; }
inline int ReduceBlock(int rank, int step, int tp) {
  return ((rank - step - 1) % tp + tp) % tp;
}
inline int RingNext(int rank, int tp) { return (rank + 1) % tp; }
inline int RingPrev(int rank, int tp) { return (rank + tp - 1) % tp; }

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_WINDOW_SCHEDULE_H_
