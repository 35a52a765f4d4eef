// The collective kind's data: what every rank sends and what every rank must hold afterwards,
// element by element, the same on the host and in CUDA kernels (the cuda backend fills and
// checks on the device; the host backend with the same functions).
//
// Exact by construction, for every type, op and rank count, in any order of combination:
//  - Copies (all_gather, broadcast, alltoall(v), gather, scatter, sendrecv, hypercube): each
//    element's bits are a hash of (source rank, index, seed), never NaN or infinity, never the
//    poison pattern.
//  - sum, premulsum, and avg over a power-of-two rank count (whose 1/n is exact): every rank
//    sends k * 2^E, with k a small integer and E fixed per element, bounded so that every partial
//    sum is an integer below 2^p (p = the type's significand digits) times 2^E: exact in any
//    order. Where n ranks would not fit, only a window of ranks contributes.
//  - prod: one rank per element sends a full-precision significand, the others +-2^a with a
//    small; the product only shifts the exponent.
//  - min, max: any finite value; the result is one of them.
//  - avg over other rank counts (floats): NCCL multiplies each value by 1/n rounded to the type
//    (ncclDevPreMulSum, the scalar made as NCCL makes it: double -> float -> type), then sums;
//    one rank per element sends +-2^a, the others 0, so the one product is exact.
//  - Integers: unsigned types use their whole range (sums and products are exact modulo 2^bits:
//    products of odd values, so every factor shows); signed types stay in bounds (no overflow);
//    avg is the sum divided by n, truncated towards zero, as NCCL's SumPostDiv.
#ifndef GPUHARNESS_SCENARIOS_COLLECTIVE_DATA_H_
#define GPUHARNESS_SCENARIOS_COLLECTIVE_DATA_H_

#include <cstdint>

#include "harness/scenarios/collective.h"
#include "harness/scenarios/collective_dtype.h"
#include "harness/scenarios/collective_plan.h"
#include "harness/scenarios/data_pattern.h"

namespace gh {

// What a reduction's inputs and result are made of (MakeReductionData fills it on the host).
struct ReductionData {
  CollDtype dtype = CollDtype::kFloat;
  CollRedop redop = CollRedop::kSum;
  int nranks = 1;
  uint64_t seed = 0;
  DtypeTraits traits;
  int64_t magnitude = 1;      // |k| bound of grid values (and of signed integers)
  int contributors = 1;       // ranks of the window that contribute to a sum
  int exp_lo = 0, exp_hi = 0;  // E (grid) or a (avg single contributor) range
  int prod_exp = 0;            // floats: |a| bound of prod's non-carriers; signed ints: ranks that may double
  int carrier_bits = 0;        // signed integer prod: the carrier's magnitude is below 2^carrier_bits
  bool avg_grid = false;       // floats, avg with an exact 1/n: grid values, scaled by 2^-avg_shift
  int avg_shift = 0;
  double avg_scale = 0;        // floats, avg: 1/n as NCCL rounds it to the type
};

ReductionData MakeReductionData(CollDtype dtype, CollRedop redop, int nranks, uint64_t seed);

// nccl-tests' pre-multiplier of `rank` for premulsum (its ncclVerifiablePremulScalar).
GH_COLL_HD inline int PreMulFactor(int rank) { return rank % 2 == 0 ? 1 : 2; }

GH_COLL_HD inline uint64_t PoisonBits(int width) { return 0xA5A5A5A5A5A5A5A5ull & WidthMask(width); }

GH_COLL_HD inline uint64_t ElementHash(uint64_t seed, int64_t index) {
  return MixBits((seed * 0x9E6C63D0676A9A99ull) ^ static_cast<uint64_t>(index));
}
GH_COLL_HD inline uint64_t RankHash(uint64_t element_hash, int rank) {
  return MixBits(element_hash ^ (static_cast<uint64_t>(rank + 1) * 0xC2B2AE3D27D4EB4Full));
}

// Element `index` of rank `rank`'s data for the copy ops: hashed bits, finite, never poison.
GH_COLL_HD inline uint64_t CopyBits(CollDtype dtype, int rank, int64_t index, uint64_t seed) {
  const DtypeTraits t = TraitsOf(dtype);
  uint64_t bits = PatternBits(rank, static_cast<uint64_t>(index), seed) & WidthMask(t.width);
  if (t.is_float && IsNonFinite(t.format, bits)) {
    bits &= ~(uint64_t{1} << (t.format.mantissa_bits + t.format.exponent_bits - 1));
  }
  if (bits == PoisonBits(t.width)) bits ^= 1;
  return bits;
}

namespace collective_data_internal {

GH_COLL_HD inline int64_t Pick(uint64_t hash, int64_t lo, int64_t hi) {  // in [lo, hi]
  return lo + static_cast<int64_t>(hash % static_cast<uint64_t>(hi - lo + 1));
}

// A float rank's contribution to element `h`'s reduction, as an exact double.
GH_COLL_HD inline double FloatInput(const ReductionData& d, uint64_t h, int rank) {
  const uint64_t hs = RankHash(h, rank);
  const int n = d.nranks;
  switch (d.redop) {
    case CollRedop::kProd: {
      const int carrier = static_cast<int>(h % static_cast<uint64_t>(n));
      const double sign = (hs >> 40) & 1 ? -1.0 : 1.0;
      if (rank == carrier) {
        const int p = d.traits.format.digits();
        const int64_t top = int64_t{1} << (p - 1);
        return sign * ldexp(static_cast<double>(top + static_cast<int64_t>(hs % static_cast<uint64_t>(top))), 1 - p);
      }
      return sign * ldexp(1.0, static_cast<int>(Pick(hs, -d.prod_exp, d.prod_exp)));
    }
    case CollRedop::kAvg:
      if (!d.avg_grid) {
        if (rank != static_cast<int>(h % static_cast<uint64_t>(n))) return 0.0;
        const double sign = (hs >> 40) & 1 ? -1.0 : 1.0;
        return sign * ldexp(1.0, static_cast<int>(Pick(hs, d.exp_lo, d.exp_hi)));
      }
      [[fallthrough]];
    default: {  // grid values: sum, premulsum, min, max, avg over an exact 1/n
      const int exponent = static_cast<int>(Pick(h >> 8, d.exp_lo, d.exp_hi));
      const int start = static_cast<int>((h >> 32) % static_cast<uint64_t>(n));
      if ((rank - start + n) % n >= d.contributors) return 0.0;
      return ldexp(static_cast<double>(Pick(hs, -d.magnitude, d.magnitude)), exponent);
    }
  }
}

// An integer rank's contribution, as two's-complement bits (not yet cut to the width).
GH_COLL_HD inline uint64_t IntInput(const ReductionData& d, uint64_t h, int rank) {
  const uint64_t hs = RankHash(h, rank);
  const int n = d.nranks;
  const bool is_signed = d.traits.is_signed;
  switch (d.redop) {
    case CollRedop::kMin:
    case CollRedop::kMax:
      return hs;
    case CollRedop::kProd: {
      if (!is_signed) return hs | 1;  // odd: invertible modulo 2^bits, so every factor shows
      const int carrier = static_cast<int>(h % static_cast<uint64_t>(n));
      const int64_t sign = (hs >> 40) & 1 ? -1 : 1;
      if (rank == carrier) return static_cast<uint64_t>(sign * Pick(hs, 1, (int64_t{1} << d.carrier_bits) - 1));
      const int distance = (rank - carrier + n) % n;
      const bool doubles = distance <= d.prod_exp && ((hs >> 33) & 1);
      return static_cast<uint64_t>(sign * (doubles ? 2 : 1));
    }
    default: {  // sum, premulsum, avg
      if (!is_signed) return hs;
      const int start = static_cast<int>((h >> 32) % static_cast<uint64_t>(n));
      if ((rank - start + n) % n >= d.contributors) return 0;
      return static_cast<uint64_t>(Pick(hs, -d.magnitude, d.magnitude));
    }
  }
}

}  // namespace collective_data_internal

// Element `index` of rank `rank`'s input to the reduction `d`.
GH_COLL_HD inline uint64_t ReductionInputBits(const ReductionData& d, int rank, int64_t index) {
  const uint64_t h = ElementHash(d.seed, index);
  if (d.traits.is_float) {
    return EncodeFloat(d.traits.format, collective_data_internal::FloatInput(d, h, rank));
  }
  return collective_data_internal::IntInput(d, h, rank) & WidthMask(d.traits.width);
}

// Element `index` of the reduction's result over every rank's input.
GH_COLL_HD inline uint64_t ReductionResultBits(const ReductionData& d, int64_t index) {
  using namespace collective_data_internal;
  const uint64_t h = ElementHash(d.seed, index);
  const uint64_t mask = WidthMask(d.traits.width);
  if (d.traits.is_float) {
    double result = d.redop == CollRedop::kProd ? 1.0 : 0.0;
    for (int rank = 0; rank < d.nranks; ++rank) {
      const double x = FloatInput(d, h, rank);
      switch (d.redop) {
        case CollRedop::kSum: result += x; break;
        case CollRedop::kPreMulSum: result += x * PreMulFactor(rank); break;
        case CollRedop::kProd: result *= x; break;
        case CollRedop::kMin: result = rank == 0 || x < result ? x : result; break;
        case CollRedop::kMax: result = rank == 0 || x > result ? x : result; break;
        case CollRedop::kAvg: result += x * d.avg_scale; break;
      }
    }
    return EncodeFloat(d.traits.format, result);
  }
  const int width = d.traits.width;
  uint64_t result = d.redop == CollRedop::kProd ? 1 : 0;
  for (int rank = 0; rank < d.nranks; ++rank) {
    const uint64_t x = IntInput(d, h, rank) & mask;
    switch (d.redop) {
      case CollRedop::kSum:
      case CollRedop::kAvg: result += x; break;
      case CollRedop::kPreMulSum: result += x * static_cast<uint64_t>(PreMulFactor(rank)); break;
      case CollRedop::kProd: result *= x; break;
      case CollRedop::kMin:
      case CollRedop::kMax: {
        const bool less = d.traits.is_signed ? SignedFromBits(x, width) < SignedFromBits(result, width)
                                             : x < result;
        const bool take = rank == 0 || (d.redop == CollRedop::kMin ? less : (!less && x != result));
        if (take) result = x;
        break;
      }
    }
    result &= mask;
  }
  if (d.redop == CollRedop::kAvg) {
    result = d.traits.is_signed
                 ? static_cast<uint64_t>(SignedFromBits(result, width) / d.nranks)
                 : result / static_cast<uint64_t>(d.nranks);
  }
  return result & mask;
}

// One rank's view of a point's data, for filling its send buffer and checking its output.
struct CollectiveCheck {
  CollectiveOp op = CollectiveOp::kAllReduce;
  CollDtype dtype = CollDtype::kFloat;
  int rank = 0, nranks = 1, root = 0;
  bool in_place = false;
  int64_t count = 0;       // CollectiveLayout::count
  uint64_t seed = 0;
  ReductionData reduction;  // reductions only
  // alltoallv: this rank's receive segments (host or device memory, as the caller reads it).
  const AlltoallvSegment* segments = nullptr;
  int num_segments = 0;
};

// Rank `rank`'s check for `params` on `nranks` ranks (seed 0 until the caller sets one; no
// alltoallv segments).
CollectiveCheck MakeCollectiveCheck(const CollectiveParams& params, const CollectiveLayout& layout,
                                    int rank, int nranks);

// Element `index` of rank c.rank's send buffer.
GH_COLL_HD inline uint64_t SendInputBits(const CollectiveCheck& c, int64_t index) {
  if (IsReduction(c.op)) return ReductionInputBits(c.reduction, c.rank, index);
  return CopyBits(c.dtype, c.rank, index, c.seed);
}

// Element `j` of rank c.rank's output region (the receive buffer, or in place its output
// offset): what the collective must leave there. Ranks the op does not write to (a reduce's or
// gather's non-roots) keep what they had: poison, or in place their own input.
GH_COLL_HD inline uint64_t ExpectedOutputBits(const CollectiveCheck& c, int64_t j) {
  const int width = TraitsOf(c.dtype).width;
  const int r = c.rank, n = c.nranks;
  auto copy = [&](int source, int64_t index) { return CopyBits(c.dtype, source, index, c.seed); };
  switch (c.op) {
    case CollectiveOp::kAllReduce:
      return ReductionResultBits(c.reduction, j);
    case CollectiveOp::kReduceScatter:
      return ReductionResultBits(c.reduction, r * c.count + j);
    case CollectiveOp::kReduce:
      if (r == c.root) return ReductionResultBits(c.reduction, j);
      return c.in_place ? ReductionInputBits(c.reduction, r, j) : PoisonBits(width);
    case CollectiveOp::kAllGather:
    case CollectiveOp::kHypercube:
      return copy(static_cast<int>(j / c.count), j % c.count);
    case CollectiveOp::kBroadcast:
      return copy(c.root, j);
    case CollectiveOp::kAlltoall:
      return copy(static_cast<int>(j / c.count), r * c.count + j % c.count);
    case CollectiveOp::kAlltoallv: {
      int lo = 0, hi = c.num_segments - 1;  // the last segment starting at or before j
      while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (c.segments[mid].recv_begin <= j) lo = mid; else hi = mid - 1;
      }
      if (c.num_segments == 0) return PoisonBits(width);
      const AlltoallvSegment& s = c.segments[lo];
      if (j < s.recv_begin || j >= s.recv_begin + s.count) return PoisonBits(width);
      return copy(s.source, s.source_offset + (j - s.recv_begin));
    }
    case CollectiveOp::kGather:
      if (r == c.root) return copy(static_cast<int>(j / c.count), j % c.count);
      return c.in_place && j / c.count == r ? copy(r, j % c.count) : PoisonBits(width);
    case CollectiveOp::kScatter:
      return copy(c.root, r * c.count + j);
    case CollectiveOp::kSendrecv:
      return copy((r - 1 + n) % n, j);
  }
  return PoisonBits(width);
}

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_COLLECTIVE_DATA_H_
