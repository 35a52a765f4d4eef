// Where a collective's data lives: each op's element counts, in-place offsets and rotation slots,
// computed as nccl-tests computes them (its <op>GetCollByteCount functions, src/*.cu of
// NVIDIA/nccl-tests v2.19.6), so that `bytes` means what nccl-tests' size column means and a
// point moves the same data as the nccl-tests line beside it. Plain C++: both backends and the
// tests use it.
#ifndef GPUHARNESS_SCENARIOS_COLLECTIVE_PLAN_H_
#define GPUHARNESS_SCENARIOS_COLLECTIVE_PLAN_H_

#include <cstdint>
#include <vector>

#include "harness/scenarios/collective.h"

namespace gh {

// One source's segment of an alltoallv receive buffer: elements [recv_begin, recv_begin +
// count) come from rank `source`'s send buffer, starting at element `source_offset`.
struct AlltoallvSegment {
  int64_t recv_begin = 0;
  int64_t count = 0;
  int64_t source_offset = 0;
  int source = 0;
};

struct CollectiveLayout {
  // The count passed to the collective (nccl-tests' paramcount): per rank for all_gather,
  // gather and hypercube, per destination for alltoall, reduce_scatter and scatter.
  int64_t count = 0;
  int64_t send_count = 0;  // elements a rank's send buffer holds
  int64_t recv_count = 0;  // elements a rank's receive buffer holds (its output)
  // In place, the send data starts `send_inplace_offset * rank` elements into the receive
  // buffer and the output `recv_inplace_offset * rank` elements in (nccl-tests' offsets).
  int64_t send_inplace_offset = 0, recv_inplace_offset = 0;
  // The larger of the send and receive bytes: nccl-tests' printed size, and one rotation slot.
  int64_t slot_bytes = 0;
  // Slots the buffers hold: rotate_bytes / slot_bytes (at least 1). Operation k uses slot
  // k % slots, as nccl-tests shifts each iteration within buffers sized for its -e.
  int64_t slots = 1;
  int width = 1;
};

// The layout for `params` on `rank` of `nranks` (alltoallv's counts differ by rank only when
// alltoallv_spread makes them: they are symmetric, so every rank's totals match).
CollectiveLayout PlanCollective(const CollectiveParams& params, int nranks);

// alltoallv's distance-weighted pattern (nccl-tests' generated pattern; NCCL_TESTS_ALLTOALLV_SPREAD
// is `spread`): the elements rank `from` sends to rank `to` when each rank moves `count` elements
// per peer on average.
int64_t AlltoallvPeerCount(int from, int to, int nranks, int64_t count, int width, double spread);

// Rank `rank`'s receive segments, in receive-buffer order (one per source with data).
std::vector<AlltoallvSegment> AlltoallvReceiveSegments(int rank, int nranks, int64_t count,
                                                       int width, double spread);

// Per peer send and receive counts and displacements of rank `rank` (MPI_Alltoallv's arrays).
struct AlltoallvCounts {
  std::vector<int64_t> send_counts, send_displs, recv_counts, recv_displs;
};
AlltoallvCounts AlltoallvCountsOf(int rank, int nranks, int64_t count, int width, double spread);

// Bytes each buffer is allocated with: the slots, then `unalign` elements of padding.
int64_t BufferBytes(const CollectiveLayout& layout, int unalign);

// The byte offset of operation `k`'s slot.
inline int64_t SlotOffset(const CollectiveLayout& layout, int64_t k) {
  return (k % layout.slots) * layout.slot_bytes;
}

// Where operation `k` of rank `rank` reads and writes, in bytes from the start of its buffers:
// `send` in the send buffer (in place: in the receive buffer), `recv` and `output` in the
// receive buffer (nccl-tests' rotation slot, -u misalignment and in-place offsets).
struct OperationOffsets {
  int64_t send = 0, recv = 0, output = 0;
};
OperationOffsets OffsetsOf(const CollectiveLayout& layout, const CollectiveParams& params, int rank,
                           int64_t k);

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_COLLECTIVE_PLAN_H_
