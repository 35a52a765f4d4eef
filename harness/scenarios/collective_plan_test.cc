// The collective kind's layout (collective_plan.h) and bandwidths (collective_bandwidth.h),
// pinned to nccl-tests v2.19.6's own formulas, which are transcribed here next to the file and
// function they come from (NVIDIA/nccl-tests, src/<op>.cu), so that a change on either side
// shows.
#include "harness/scenarios/collective_bandwidth.h"
#include "harness/scenarios/collective_plan.h"

#include <cstddef>
#include <numeric>

#include "gtest/gtest.h"

namespace gh {
namespace {

constexpr CollectiveOp kAllOps[] = {
    CollectiveOp::kAllReduce, CollectiveOp::kAllGather, CollectiveOp::kReduceScatter,
    CollectiveOp::kBroadcast, CollectiveOp::kReduce,    CollectiveOp::kAlltoall,
    CollectiveOp::kAlltoallv, CollectiveOp::kGather,    CollectiveOp::kScatter,
    CollectiveOp::kSendrecv,  CollectiveOp::kHypercube};

CollectiveParams Params(CollectiveOp op, CollDtype dtype, int64_t bytes) {
  CollectiveParams p;
  p.op = op;
  p.dtype = dtype;
  p.bytes = bytes;
  return p;
}

// nccl-tests' <Op>GetCollByteCount (src/<op>.cu): {paramcount, sendcount, recvcount,
// sendInplaceOffset, recvInplaceOffset} for `count` elements of `elt` bytes on `n` ranks.
struct NcclTestsCounts {
  size_t param, send, recv, send_inplace, recv_inplace;
};
NcclTestsCounts NcclTestsByteCount(CollectiveOp op, size_t count, size_t elt, int n) {
  const size_t base = (count / n) & ~(16 / elt - 1);
  switch (op) {
    case CollectiveOp::kAllReduce:  // all_reduce.cu AllReduceGetCollByteCount
    case CollectiveOp::kBroadcast:  // broadcast.cu
    case CollectiveOp::kReduce:     // reduce.cu
    case CollectiveOp::kSendrecv:   // sendrecv.cu
      return {count, count, count, 0, 0};
    case CollectiveOp::kAllGather:  // all_gather.cu: send base, recv base*n, sendInplaceOffset base
    case CollectiveOp::kHypercube:  // hypercube.cu: the same
    case CollectiveOp::kGather:     // gather.cu: the same
      return {base, base, base * n, base, 0};
    case CollectiveOp::kReduceScatter:  // reduce_scatter.cu: send base*n, recv base, recvInplaceOffset base
    case CollectiveOp::kScatter:        // scatter.cu: the same
      return {base, base * n, base, 0, base};
    case CollectiveOp::kAlltoall:  // alltoall.cu: paramcount base, send = recv = n*base
      return {base, base * n, base * n, 0, 0};
    case CollectiveOp::kAlltoallv:  // alltoallv.cu, generated pattern: see AlltoallvPeerCount
      return {base, 0, 0, 0, 0};
  }
  return {};
}

// nccl-tests' <Op>GetBw (src/<op>.cu): {algBw, busBw} for paramcount `count`.
std::pair<double, double> NcclTestsBw(CollectiveOp op, size_t count, size_t typesize, double sec,
                                      int nranks, size_t alltoallv_max_bytes) {
  const double n = nranks;
  double base = 0, factor = 1;
  switch (op) {
    case CollectiveOp::kAllReduce:  // AllReduceGetBw: count*typesize; 2(n-1)/n
      base = double(count * typesize) / 1.0E9 / sec;
      factor = (2 * (n - 1)) / n;
      break;
    case CollectiveOp::kAllGather:      // AllGatherGetBw: count*typesize*nranks; (n-1)/n
    case CollectiveOp::kReduceScatter:  // ReduceScatterGetBw: the same
      base = double(count * typesize * nranks) / 1.0E9 / sec;
      factor = (n - 1) / n;
      break;
    case CollectiveOp::kAlltoall:  // AlltoAllGetBw: count*nranks*typesize; (n-1)/n
    case CollectiveOp::kGather:    // GatherGetBw: the same
    case CollectiveOp::kScatter:   // ScatterGetBw: the same
      base = double(count * nranks * typesize) / 1.0E9 / sec;
      factor = (n - 1) / n;
      break;
    case CollectiveOp::kAlltoallv:  // AlltoAllvGetBw: max(send, recv) total bytes; (n-1)/n
      base = double(alltoallv_max_bytes) / 1.0E9 / sec;
      factor = (n - 1) / n;
      break;
    case CollectiveOp::kBroadcast:  // BroadcastGetBw: count*typesize; 1
    case CollectiveOp::kReduce:     // ReduceGetBw: the same
    case CollectiveOp::kSendrecv:   // SendRecvGetBw: the same
      base = double(count * typesize) / 1.0E9 / sec;
      break;
    case CollectiveOp::kHypercube:  // HyperCubeGetBw: count*typesize*(nranks-1); 1
      base = double(count * typesize * (nranks - 1)) / 1.0E9 / sec;
      break;
  }
  return {base, base * factor};
}

TEST(CollectivePlan, CountsAndInPlaceOffsetsAreNcclTests) {
  for (CollectiveOp op : kAllOps) {
    for (CollDtype dtype : {CollDtype::kInt8, CollDtype::kHalf, CollDtype::kFloat, CollDtype::kDouble}) {
      for (int n : {1, 2, 3, 4, 8}) {
        for (int64_t bytes : {int64_t{1000}, int64_t{4096}, int64_t{1} << 20, (int64_t{1} << 20) + 24}) {
          SCOPED_TRACE(::testing::Message() << EnumToName(op) << " " << EnumToName(dtype) << " n=" << n
                                            << " bytes=" << bytes);
          const CollectiveLayout l = PlanCollective(Params(op, dtype, bytes), n);
          const size_t elt = TraitsOf(dtype).width;
          const NcclTestsCounts want = NcclTestsByteCount(op, bytes / elt, elt, n);
          EXPECT_EQ(l.count, int64_t(want.param));
          if (op != CollectiveOp::kAlltoallv) {
            EXPECT_EQ(l.send_count, int64_t(want.send));
            EXPECT_EQ(l.recv_count, int64_t(want.recv));
          }
          EXPECT_EQ(l.send_inplace_offset, int64_t(want.send_inplace));
          EXPECT_EQ(l.recv_inplace_offset, int64_t(want.recv_inplace));
          EXPECT_EQ(l.slot_bytes, std::max(l.send_count, l.recv_count) * int64_t(elt));
          EXPECT_EQ(l.slots, 1);
        }
      }
    }
  }
}

TEST(CollectivePlan, RotationSlotsAreNcclTestsShiftsInsideItsLargestBuffers) {
  // nccl-tests' startColl: shift = totalnbytes * (iter % (maxbytes / totalnbytes)).
  CollectiveParams p = Params(CollectiveOp::kAllGather, CollDtype::kFloat, 1 << 20);
  p.rotate_bytes = int64_t{1} << 30;
  const CollectiveLayout l = PlanCollective(p, 4);
  EXPECT_EQ(l.slot_bytes, 1 << 20);
  EXPECT_EQ(l.slots, 1024);
  EXPECT_EQ(SlotOffset(l, 0), 0);
  EXPECT_EQ(SlotOffset(l, 5), 5 << 20);
  EXPECT_EQ(SlotOffset(l, 1029), 5 << 20);
  EXPECT_EQ(BufferBytes(l, 0), int64_t{1} << 30);
  EXPECT_EQ(BufferBytes(l, 3), (int64_t{1} << 30) + 12);  // unalign pads by elements
  p.rotate_bytes = 1000;  // smaller than a slot: one slot
  EXPECT_EQ(PlanCollective(p, 4).slots, 1);
}

TEST(CollectivePlan, OperationOffsetsAreNcclTestsShiftMisalignmentAndInPlaceOffsets) {
  // nccl-tests' startColl: buffers + shift (+ unalign elements), and in place send at
  // recv + sendInplaceOffset * rank, output at recv + recvInplaceOffset * rank.
  CollectiveParams p = Params(CollectiveOp::kAllGather, CollDtype::kFloat, 4096);
  p.rotate_bytes = 4 * 4096;
  p.unalign = 3;
  const CollectiveLayout gather = PlanCollective(p, 4);  // share 256 floats, slot 4 KiB
  OperationOffsets o = OffsetsOf(gather, p, 2, 5);     // slot 5 % 4 = 1
  EXPECT_EQ(o.recv, 4096 + 12);
  EXPECT_EQ(o.send, o.recv);  // out of place: its own buffer, same shift
  EXPECT_EQ(o.output, o.recv);
  p.in_place = true;
  o = OffsetsOf(gather, p, 2, 5);
  EXPECT_EQ(o.send, 4096 + 12 + 2 * 256 * 4);
  EXPECT_EQ(o.output, 4096 + 12);
  p.op = CollectiveOp::kReduceScatter;
  const CollectiveLayout scatter = PlanCollective(p, 4);
  o = OffsetsOf(scatter, p, 3, 0);
  EXPECT_EQ(o.send, 12);
  EXPECT_EQ(o.output, 12 + 3 * 256 * 4);
}

TEST(CollectivePlan, AlltoallvIsNcclTestsDistanceWeightedPattern) {
  // nccl-tests' AlltoAllvGetPeerBytesDistanceWeighted, spread 1: peer bytes = distance *
  // total / (n(n-1)/2), rounded down to 16 bytes; nothing to itself.
  const int n = 4;
  const int64_t count = 1024;  // per peer, floats: 16 KiB in all
  EXPECT_EQ(AlltoallvPeerCount(0, 0, n, count, 4, 1.0), 0);
  EXPECT_EQ(AlltoallvPeerCount(0, 1, n, count, 4, 1.0), ((1 * 16384 / 6) & ~15) / 4);
  EXPECT_EQ(AlltoallvPeerCount(0, 3, n, count, 4, 1.0), ((3 * 16384 / 6) & ~15) / 4);
  EXPECT_EQ(AlltoallvPeerCount(2, 1, n, count, 4, 1.0), AlltoallvPeerCount(0, 3, n, count, 4, 1.0));
  // spread 0: uniform.
  EXPECT_EQ(AlltoallvPeerCount(1, 1, n, count, 4, 0.0), count);
  EXPECT_EQ(AlltoallvPeerCount(0, 0, 1, count, 4, 1.0), count);  // one rank: everything to itself
  // Every rank sends and receives the layout's total; receive segments are contiguous and start
  // where each source's send displacement for this rank starts.
  CollectiveParams p = Params(CollectiveOp::kAlltoallv, CollDtype::kFloat, int64_t{n} * count * 4);
  const CollectiveLayout l = PlanCollective(p, n);
  for (int r = 0; r < n; ++r) {
    const AlltoallvCounts c = AlltoallvCountsOf(r, n, l.count, 4, 1.0);
    EXPECT_EQ(std::accumulate(c.send_counts.begin(), c.send_counts.end(), int64_t{0}), l.send_count);
    EXPECT_EQ(std::accumulate(c.recv_counts.begin(), c.recv_counts.end(), int64_t{0}), l.recv_count);
    int64_t begin = 0;
    for (const AlltoallvSegment& s : AlltoallvReceiveSegments(r, n, l.count, 4, 1.0)) {
      EXPECT_EQ(s.recv_begin, begin);
      EXPECT_EQ(s.count, c.recv_counts[s.source]);
      EXPECT_EQ(s.source_offset, AlltoallvCountsOf(s.source, n, l.count, 4, 1.0).send_displs[r]);
      begin += s.count;
    }
    EXPECT_EQ(begin, l.recv_count);
  }
}

TEST(CollectiveBandwidth, AlgbwAndBusbwAreNcclTestsFormulas) {
  for (CollectiveOp op : kAllOps) {
    for (int n : {1, 2, 3, 4, 8, 16}) {
      for (CollDtype dtype : {CollDtype::kInt8, CollDtype::kFloat, CollDtype::kDouble}) {
        SCOPED_TRACE(::testing::Message() << EnumToName(op) << " n=" << n << " " << EnumToName(dtype));
        const CollectiveLayout l = PlanCollective(Params(op, dtype, int64_t{1} << 26), n);
        const double seconds = 123.4e-6;
        const auto [algbw, busbw] =
            NcclTestsBw(op, size_t(l.count), size_t(l.width), seconds, n, size_t(l.slot_bytes));
        const Bandwidth ours = BandwidthOf(op, l, n, seconds);
        EXPECT_DOUBLE_EQ(ours.algbw_GBps, algbw);
        EXPECT_DOUBLE_EQ(ours.busbw_GBps, busbw);
      }
    }
  }
  // The factors, spelled out: all_reduce 2(n-1)/n; the split ops (n-1)/n; the rest 1.
  EXPECT_DOUBLE_EQ(BusFactor(CollectiveOp::kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(BusFactor(CollectiveOp::kAllGather, 8), 0.875);
  EXPECT_DOUBLE_EQ(BusFactor(CollectiveOp::kReduceScatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(BusFactor(CollectiveOp::kAlltoall, 2), 0.5);
  EXPECT_DOUBLE_EQ(BusFactor(CollectiveOp::kBroadcast, 8), 1);
  EXPECT_DOUBLE_EQ(BusFactor(CollectiveOp::kHypercube, 8), 1);
  EXPECT_DOUBLE_EQ(BusFactor(CollectiveOp::kAllReduce, 1), 0);  // one rank moves nothing over a bus
  EXPECT_EQ(BandwidthOf(CollectiveOp::kAllReduce, PlanCollective(Params(CollectiveOp::kAllReduce, CollDtype::kFloat, 4096), 2), 2, 0).algbw_GBps, 0);
}

TEST(CollectiveBandwidth, TimingMetricsNameEveryStatistic) {
  const CollectiveLayout l = PlanCollective(Params(CollectiveOp::kAllGather, CollDtype::kFloat, 1 << 20), 4);
  const std::vector<Metric> metrics = CollectiveTimingMetrics(CollectiveOp::kAllGather, l, 4, {10, 20, 30}, 25, {40, 50});
  auto value = [&](const std::string& name) {
    for (const Metric& m : metrics) {
      if (m.name == name) return m.value;
    }
    ADD_FAILURE() << "no metric " << name;
    return -1.0;
  };
  const double bytes = 1 << 20;  // 4 ranks x 256 KiB
  EXPECT_DOUBLE_EQ(value("time_median_us"), 20);
  EXPECT_DOUBLE_EQ(value("bandwidth_GBps"), bytes / 20e3);
  EXPECT_DOUBLE_EQ(value("busbw_median_GBps"), bytes / 20e3 * 0.75);
  EXPECT_DOUBLE_EQ(value("time_loop_mean_us"), 25);
  EXPECT_DOUBLE_EQ(value("algbw_GBps"), bytes / 25e3);
  EXPECT_DOUBLE_EQ(value("busbw_GBps"), bytes / 25e3 * 0.75);
  EXPECT_DOUBLE_EQ(value("time_graph_mean_us"), 45);
  EXPECT_DOUBLE_EQ(value("busbw_graph_GBps"), bytes / 45e3 * 0.75);
  for (const Metric& m : metrics) {
    if (m.name == "busbw_graph_GBps") {
      EXPECT_EQ(m.samples.size(), 2u);
    } else if (m.name == "busbw_median_GBps") {
      EXPECT_EQ(m.samples.size(), 3u);
    } else if (m.name == "busbw_GBps") {
      EXPECT_TRUE(m.samples.empty());
    }
  }
}

TEST(CollectiveSplit, ColoursAreNcclTestsSplitRules) {
  // nccl-tests' NCCL_TESTS_SPLIT: MOD<n> = rank % n, DIV<n> = rank / n, AND<n> = rank & n,
  // OR<n> = rank | n.
  EXPECT_EQ(SplitColor(CollSplit::kMod, 2, 5), 1);
  EXPECT_EQ(SplitColor(CollSplit::kDiv, 2, 5), 2);
  EXPECT_EQ(SplitColor(CollSplit::kAnd, 6, 5), 4);
  EXPECT_EQ(SplitColor(CollSplit::kOr, 2, 5), 7);
  EXPECT_EQ(SplitColor(CollSplit::kNone, 2, 5), 0);
  EXPECT_EQ(SplitColor(CollSplit::kMod, 0, 5), 0);  // no division by zero
}

}  // namespace
}  // namespace gh
