#include "harness/scenarios/collective_plan.h"

#include <algorithm>

namespace gh {
namespace {

// A per-rank share of `count` elements, rounded down to whole 16-byte chunks, as every split op
// of nccl-tests rounds it: (count / nranks) & ~(16 / width - 1).
int64_t SharePerRank(int64_t count, int nranks, int width) {
  return (count / nranks) & ~int64_t{16 / width - 1};
}

}  // namespace

int64_t AlltoallvPeerCount(int from, int to, int nranks, int64_t count, int width, double spread) {
  // nccl-tests src/alltoallv.cu, AlltoAllvGetPeerBytesDistanceWeighted: a blend of the uniform
  // share and a share proportional to the ring distance, each peer's bytes rounded down to 16.
  const auto total_bytes = static_cast<uint64_t>(count) * static_cast<uint64_t>(nranks) *
                           static_cast<uint64_t>(width);
  uint64_t bytes;
  if (nranks == 1) {
    bytes = total_bytes & ~uint64_t{15};
  } else {
    const int distance = (to - from + nranks) % nranks;
    const double sum_distances = static_cast<double>(nranks) * (nranks - 1) / 2;
    const double uniform = static_cast<double>(total_bytes) / nranks;
    const double weighted = static_cast<double>(distance) * static_cast<double>(total_bytes) / sum_distances;
    // Two separately rounded products, never fused, so every rank computes the same counts.
    volatile double a = (1.0 - spread) * uniform;
    volatile double b = spread * weighted;
    bytes = static_cast<uint64_t>(a + b) & ~uint64_t{15};
  }
  return static_cast<int64_t>(bytes / static_cast<uint64_t>(width));
}

AlltoallvCounts AlltoallvCountsOf(int rank, int nranks, int64_t count, int width, double spread) {
  AlltoallvCounts counts;
  int64_t sent = 0, received = 0;
  for (int peer = 0; peer < nranks; ++peer) {
    const int64_t out = AlltoallvPeerCount(rank, peer, nranks, count, width, spread);
    const int64_t in = AlltoallvPeerCount(peer, rank, nranks, count, width, spread);
    counts.send_counts.push_back(out);
    counts.send_displs.push_back(sent);
    counts.recv_counts.push_back(in);
    counts.recv_displs.push_back(received);
    sent += out;
    received += in;
  }
  return counts;
}

std::vector<AlltoallvSegment> AlltoallvReceiveSegments(int rank, int nranks, int64_t count,
                                                       int width, double spread) {
  std::vector<AlltoallvSegment> segments;
  int64_t begin = 0;
  for (int source = 0; source < nranks; ++source) {
    const int64_t n = AlltoallvPeerCount(source, rank, nranks, count, width, spread);
    if (n == 0) continue;
    int64_t offset = 0;  // what `source` sends to the ranks before this one
    for (int k = 0; k < rank; ++k) offset += AlltoallvPeerCount(source, k, nranks, count, width, spread);
    segments.push_back({begin, n, offset, source});
    begin += n;
  }
  return segments;
}

CollectiveLayout PlanCollective(const CollectiveParams& params, int nranks) {
  CollectiveLayout l;
  l.width = TraitsOf(params.dtype).width;
  const int64_t count = params.bytes / l.width;
  const int64_t share = SharePerRank(count, nranks, l.width);
  switch (params.op) {
    case CollectiveOp::kAllReduce:
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kReduce:
    case CollectiveOp::kSendrecv:
      l.count = l.send_count = l.recv_count = count;
      break;
    case CollectiveOp::kAllGather:
    case CollectiveOp::kGather:
    case CollectiveOp::kHypercube:
      l.count = l.send_count = share;
      l.recv_count = share * nranks;
      l.send_inplace_offset = share;
      break;
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kScatter:
      l.count = l.recv_count = share;
      l.send_count = share * nranks;
      l.recv_inplace_offset = share;
      break;
    case CollectiveOp::kAlltoall:
      l.count = share;
      l.send_count = l.recv_count = share * nranks;
      break;
    case CollectiveOp::kAlltoallv: {
      l.count = share;
      // Symmetric pattern: every rank sends and receives what rank 0 sends.
      int64_t total = 0;
      for (int peer = 0; peer < nranks; ++peer) {
        total += AlltoallvPeerCount(0, peer, nranks, share, l.width, params.alltoallv_spread);
      }
      l.send_count = l.recv_count = total;
      break;
    }
  }
  l.slot_bytes = std::max(l.send_count, l.recv_count) * l.width;
  l.slots = l.slot_bytes > 0 ? std::max<int64_t>(1, params.rotate_bytes / l.slot_bytes) : 1;
  return l;
}

OperationOffsets OffsetsOf(const CollectiveLayout& layout, const CollectiveParams& params, int rank,
                           int64_t k) {
  const int64_t base = SlotOffset(layout, k) + int64_t{params.unalign} * layout.width;
  OperationOffsets offsets;
  offsets.send = base + (params.in_place ? layout.send_inplace_offset * rank * layout.width : 0);
  offsets.recv = base;
  offsets.output = base + (params.in_place ? layout.recv_inplace_offset * rank * layout.width : 0);
  return offsets;
}

int64_t BufferBytes(const CollectiveLayout& layout, int unalign) {
  return std::max<int64_t>(layout.slot_bytes * layout.slots + int64_t{unalign} * layout.width, 16);
}

}  // namespace gh
