// The collective kind's data (collective_data.h) is exact: for every type, reduction and rank
// count, combining every rank's input in the type's own arithmetic (rounded after each step, as
// a GPU does) in any order - rank order, reverse, a pairwise tree - gives exactly the expected
// bits. Copy data is finite and never the poison. Each op's expected output follows its
// definition.
#include "harness/scenarios/collective_data.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "gtest/gtest.h"

namespace gh {
namespace {

constexpr CollDtype kAllDtypes[] = {
    CollDtype::kInt8,   CollDtype::kUint8, CollDtype::kInt32,    CollDtype::kUint32,
    CollDtype::kInt64,  CollDtype::kUint64, CollDtype::kHalf,    CollDtype::kFloat,
    CollDtype::kDouble, CollDtype::kBfloat16, CollDtype::kF8e4m3, CollDtype::kF8e5m2};
constexpr CollRedop kAllRedops[] = {CollRedop::kSum, CollRedop::kProd, CollRedop::kMax,
                                    CollRedop::kMin, CollRedop::kAvg, CollRedop::kPreMulSum};

// One step of the reduction in the type's arithmetic: a and b are bits of the type.
uint64_t Combine(const ReductionData& d, uint64_t a, uint64_t b) {
  const DtypeTraits& t = d.traits;
  const uint64_t mask = WidthMask(t.width);
  if (t.is_float) {
    const double x = DecodeFloat(t.format, a), y = DecodeFloat(t.format, b);
    double r = 0;
    switch (d.redop) {
      case CollRedop::kProd: r = x * y; break;
      case CollRedop::kMin: r = std::min(x, y); break;
      case CollRedop::kMax: r = std::max(x, y); break;
      default: r = x + y; break;  // sum, premulsum and avg add pre-multiplied values
    }
    return EncodeFloat(t.format, r);
  }
  switch (d.redop) {
    case CollRedop::kProd: return (a * b) & mask;
    case CollRedop::kMin:
    case CollRedop::kMax: {
      const bool less = t.is_signed ? SignedFromBits(a, t.width) < SignedFromBits(b, t.width) : a < b;
      return (d.redop == CollRedop::kMin) == less ? a : b;
    }
    default: return (a + b) & mask;
  }
}

// Rank `rank`'s input as the reduction sees it: pre-multiplied where NCCL pre-multiplies.
uint64_t Premultiplied(const ReductionData& d, int rank, int64_t index) {
  const uint64_t bits = ReductionInputBits(d, rank, index);
  const DtypeTraits& t = d.traits;
  if (d.redop == CollRedop::kPreMulSum) {
    if (t.is_float) return EncodeFloat(t.format, DecodeFloat(t.format, bits) * PreMulFactor(rank));
    return (bits * PreMulFactor(rank)) & WidthMask(t.width);
  }
  if (d.redop == CollRedop::kAvg && t.is_float) {
    return EncodeFloat(t.format, DecodeFloat(t.format, bits) * d.avg_scale);
  }
  return bits;
}

uint64_t Finish(const ReductionData& d, uint64_t bits) {
  if (d.redop != CollRedop::kAvg || d.traits.is_float) return bits;
  const int w = d.traits.width;
  return (d.traits.is_signed ? static_cast<uint64_t>(SignedFromBits(bits, w) / d.nranks)
                             : bits / static_cast<uint64_t>(d.nranks)) & WidthMask(w);
}

uint64_t Tree(const ReductionData& d, const std::vector<uint64_t>& v, size_t lo, size_t hi) {
  if (hi - lo == 1) return v[lo];
  const size_t mid = (lo + hi) / 2;
  return Combine(d, Tree(d, v, lo, mid), Tree(d, v, mid, hi));
}

TEST(CollectiveData, EveryReductionIsExactInAnyOrder) {
  for (CollDtype dtype : kAllDtypes) {
    for (CollRedop redop : kAllRedops) {
      for (int n : {1, 2, 3, 4, 5, 7, 8, 16, 24, 64}) {
        const ReductionData d = MakeReductionData(dtype, redop, n, 0x5EEDull * n + 11);
        SCOPED_TRACE(::testing::Message() << EnumToName(dtype) << " " << EnumToName(redop) << " n=" << n);
        int distinct = 0;
        uint64_t previous = ~uint64_t{0};
        for (int64_t index = 0; index < 300; ++index) {
          std::vector<uint64_t> inputs;
          for (int rank = 0; rank < n; ++rank) {
            const uint64_t bits = ReductionInputBits(d, rank, index);
            if (d.traits.is_float) {
              ASSERT_FALSE(IsNonFinite(d.traits.format, bits));
            }
            inputs.push_back(Premultiplied(d, rank, index));
          }
          const uint64_t expected = ReductionResultBits(d, index);
          uint64_t forward = inputs[0], backward = inputs[n - 1];
          for (int i = 1; i < n; ++i) forward = Combine(d, forward, inputs[i]);
          for (int i = n - 2; i >= 0; --i) backward = Combine(d, backward, inputs[i]);
          ASSERT_EQ(Finish(d, forward), expected) << "index " << index;
          ASSERT_EQ(Finish(d, backward), expected) << "index " << index;
          ASSERT_EQ(Finish(d, Tree(d, inputs, 0, inputs.size())), expected) << "index " << index;
          if (d.traits.is_float) {
            ASSERT_FALSE(IsNonFinite(d.traits.format, expected));
          }
          distinct += expected != previous;
          previous = expected;
        }
        // Not a constant: the results vary from element to element (but a signed average of many
        // ranks' bounded values is small by necessity).
        const bool small_average = redop == CollRedop::kAvg && !d.traits.is_float && d.magnitude < 4;
        if (!small_average) {
          EXPECT_GT(distinct, 30);
        }
      }
    }
  }
}

TEST(CollectiveData, ReductionsUseEveryRanksContribution) {
  // With few ranks every rank contributes to a sum: changing one rank's seed changes results.
  for (CollDtype dtype : {CollDtype::kFloat, CollDtype::kHalf, CollDtype::kInt32, CollDtype::kUint8}) {
    const ReductionData d = MakeReductionData(dtype, CollRedop::kSum, 4, 99);
    EXPECT_EQ(d.contributors, 4) << EnumToName(dtype);
    int nonzero = 0;
    for (int64_t index = 0; index < 100; ++index) nonzero += ReductionInputBits(d, 3, index) != 0;
    EXPECT_GT(nonzero, 50) << EnumToName(dtype);
  }
  // float8 e5m2 holds integers up to 8 exactly: at 16 ranks only a window of them adds.
  const ReductionData narrow = MakeReductionData(CollDtype::kF8e5m2, CollRedop::kSum, 16, 5);
  EXPECT_EQ(narrow.magnitude, 1);
  EXPECT_EQ(narrow.contributors, 8);
}

TEST(CollectiveData, CopyDataIsFiniteAndNeverThePoison) {
  for (CollDtype dtype : kAllDtypes) {
    const DtypeTraits t = TraitsOf(dtype);
    for (int rank = 0; rank < 3; ++rank) {
      for (int64_t index = 0; index < 20000; ++index) {
        const uint64_t bits = CopyBits(dtype, rank, index, 1234);
        ASSERT_NE(bits, PoisonBits(t.width));
        ASSERT_EQ(bits & ~WidthMask(t.width), 0u);
        if (t.is_float) {
          ASSERT_FALSE(IsNonFinite(t.format, bits)) << EnumToName(dtype);
        }
      }
    }
    // Different seeds, ranks and indices give different data.
    EXPECT_NE(CopyBits(dtype, 0, 5, 1), CopyBits(dtype, 0, 5, 2));
  }
}

// A rank's check for `op` with `count` elements per share.
CollectiveCheck CheckFor(CollectiveOp op, int rank, int nranks, int root, bool in_place, int64_t count) {
  CollectiveCheck c;
  c.op = op;
  c.dtype = CollDtype::kInt32;
  c.rank = rank;
  c.nranks = nranks;
  c.root = root;
  c.in_place = in_place;
  c.count = count;
  c.seed = 77;
  c.reduction = MakeReductionData(c.dtype, CollRedop::kSum, nranks, 77);
  return c;
}

uint64_t Sent(CollectiveOp op, int rank, int nranks, int64_t index) {
  return SendInputBits(CheckFor(op, rank, nranks, 0, false, 1), index);
}

TEST(CollectiveData, ExpectedOutputsFollowEachOpsDefinition) {
  const int n = 3;
  const int64_t count = 4;
  for (int r = 0; r < n; ++r) {
    for (int64_t j = 0; j < count * n; ++j) {
      const int block = static_cast<int>(j / count);
      const int64_t k = j % count;
      EXPECT_EQ(ExpectedOutputBits(CheckFor(CollectiveOp::kAllGather, r, n, 0, false, count), j),
                Sent(CollectiveOp::kAllGather, block, n, k));
      EXPECT_EQ(ExpectedOutputBits(CheckFor(CollectiveOp::kAlltoall, r, n, 0, false, count), j),
                Sent(CollectiveOp::kAlltoall, block, n, r * count + k));
      // gather: the root holds every block; others keep the poison, or in place their own block.
      EXPECT_EQ(ExpectedOutputBits(CheckFor(CollectiveOp::kGather, r, n, 1, false, count), j),
                r == 1 ? Sent(CollectiveOp::kGather, block, n, k) : PoisonBits(4));
      EXPECT_EQ(ExpectedOutputBits(CheckFor(CollectiveOp::kGather, r, n, 1, true, count), j),
                r == 1 || block == r ? Sent(CollectiveOp::kGather, block, n, k) : PoisonBits(4));
    }
    for (int64_t j = 0; j < count; ++j) {
      EXPECT_EQ(ExpectedOutputBits(CheckFor(CollectiveOp::kBroadcast, r, n, 2, false, count), j),
                Sent(CollectiveOp::kBroadcast, 2, n, j));
      EXPECT_EQ(ExpectedOutputBits(CheckFor(CollectiveOp::kScatter, r, n, 2, false, count), j),
                Sent(CollectiveOp::kScatter, 2, n, r * count + j));
      EXPECT_EQ(ExpectedOutputBits(CheckFor(CollectiveOp::kSendrecv, r, n, 0, false, count), j),
                Sent(CollectiveOp::kSendrecv, (r + n - 1) % n, n, j));
      // reduce_scatter: rank r's share of the sum over every rank's full buffer.
      uint64_t sum = 0;
      for (int s = 0; s < n; ++s) sum += Sent(CollectiveOp::kReduceScatter, s, n, r * count + j);
      EXPECT_EQ(ExpectedOutputBits(CheckFor(CollectiveOp::kReduceScatter, r, n, 0, false, count), j),
                sum & 0xFFFFFFFFu);
      // reduce: non-roots keep the poison, or in place their own input.
      const uint64_t own = Sent(CollectiveOp::kReduce, r, n, j);
      EXPECT_EQ(ExpectedOutputBits(CheckFor(CollectiveOp::kReduce, r, n, 0, true, count), j),
                r == 0 ? ExpectedOutputBits(CheckFor(CollectiveOp::kAllReduce, r, n, 0, false, count), j) : own);
      if (r != 0) {
        EXPECT_EQ(ExpectedOutputBits(CheckFor(CollectiveOp::kReduce, r, n, 0, false, count), j), PoisonBits(4));
      }
    }
  }
}

TEST(CollectiveData, AlltoallvSegmentsMapEachElementToItsSource) {
  CollectiveCheck c = CheckFor(CollectiveOp::kAlltoallv, 1, 3, 0, false, 8);
  const AlltoallvSegment segments[] = {{0, 5, 2, 0}, {5, 7, 10, 2}};
  c.segments = segments;
  c.num_segments = 2;
  EXPECT_EQ(ExpectedOutputBits(c, 0), Sent(CollectiveOp::kAlltoallv, 0, 3, 2));
  EXPECT_EQ(ExpectedOutputBits(c, 4), Sent(CollectiveOp::kAlltoallv, 0, 3, 6));
  EXPECT_EQ(ExpectedOutputBits(c, 5), Sent(CollectiveOp::kAlltoallv, 2, 3, 10));
  EXPECT_EQ(ExpectedOutputBits(c, 11), Sent(CollectiveOp::kAlltoallv, 2, 3, 16));
  EXPECT_EQ(ExpectedOutputBits(c, 12), PoisonBits(4));  // past the last segment
}

}  // namespace
}  // namespace gh
