#include "harness/scenarios/collective_data.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace gh {
namespace {

// Keeps an exponent range small and centred near 1, so values stay readable and far from the
// edges of wide types; never empty.
void ClampExponents(int lo, int hi, ReductionData& d) {
  d.exp_lo = std::max(lo, -12);
  d.exp_hi = std::max(d.exp_lo, std::min(hi, d.exp_lo + 24));
}

int Log2IfPowerOfTwo(int n) {
  int shift = 0;
  while ((1 << shift) < n) ++shift;
  return (1 << shift) == n ? shift : -1;
}

// The grid's bounds for sums of at most n terms, each scaled by at most `weight`, below 2^bits
// (floats: 2^p, signed integers: the type's maximum).
void GridBounds(double limit, int n, int weight, ReductionData& d) {
  d.contributors = n;
  const double per_rank = std::floor(limit / (static_cast<double>(n) * weight));
  if (per_rank >= 1) {
    d.magnitude = static_cast<int64_t>(std::min(per_rank, 4.0e18));
  } else {
    d.magnitude = 1;
    d.contributors = static_cast<int>(std::max(1.0, std::floor(limit / weight)));
  }
}

}  // namespace

ReductionData MakeReductionData(CollDtype dtype, CollRedop redop, int nranks, uint64_t seed) {
  ReductionData d;
  d.dtype = dtype;
  d.redop = redop;
  d.nranks = std::max(nranks, 1);
  d.seed = seed;
  d.traits = TraitsOf(dtype);
  const int n = d.nranks;
  const int weight = redop == CollRedop::kPreMulSum ? 2 : 1;
  if (!d.traits.is_float) {
    const int bits = 8 * d.traits.width;
    const double max_signed = std::ldexp(1.0, bits - 1) - 1;
    if (redop == CollRedop::kProd) {
      d.carrier_bits = d.traits.width == 1 ? 3 : 7;
      d.prod_exp = bits - 1 - d.carrier_bits;  // |product| < 2^carrier_bits * 2^prod_exp
    } else {
      GridBounds(max_signed, n, weight, d);
    }
    return d;
  }
  const FloatFormat& f = d.traits.format;
  const int p = f.digits();
  const double exact_limit = std::ldexp(1.0, p);  // integers up to 2^p are exact
  switch (redop) {
    case CollRedop::kProd:
      // |sum of exponents| stays inside the normal range: (n-1) * prod_exp <= budget.
      d.prod_exp = std::min(3, std::min(-f.min_exponent(), f.max_exponent() - 1) / std::max(1, n - 1));
      break;
    case CollRedop::kMin:
    case CollRedop::kMax:
      d.contributors = n;
      d.magnitude = static_cast<int64_t>(std::min(exact_limit - 1, 4.0e15));
      ClampExponents(f.min_exponent(), f.max_exponent() - p, d);
      break;
    case CollRedop::kAvg: {
      // The scalar NCCL multiplies by: 1/n rounded to float, then to the type (doubles: 1/n).
      const double reciprocal = 1.0 / n;
      const double scalar_source = f.mantissa_bits == 52 ? reciprocal : static_cast<double>(static_cast<float>(reciprocal));
      d.avg_scale = DecodeFloat(f, EncodeFloat(f, scalar_source));
      const int shift = Log2IfPowerOfTwo(n);
      if (shift >= 0 && d.avg_scale == reciprocal && f.min_exponent() + shift <= f.max_exponent() - p) {
        d.avg_grid = true;
        d.avg_shift = shift;
        GridBounds(exact_limit, n, 1, d);
        ClampExponents(f.min_exponent() + shift, f.max_exponent() - p, d);
      } else if (d.avg_scale == 0) {
        d.exp_lo = d.exp_hi = 0;  // every product is 0
      } else {
        // One contributor sends +-2^a; 2^a * scale must stay a normal number.
        int scale_exponent = 0;
        std::frexp(d.avg_scale, &scale_exponent);
        scale_exponent -= 1;
        const int lo = std::max(f.min_exponent() - scale_exponent, f.min_exponent());
        ClampExponents(lo, std::min(f.max_exponent(), lo + 8), d);
      }
      break;
    }
    default:  // sum, premulsum
      GridBounds(exact_limit, n, weight, d);
      ClampExponents(f.min_exponent(), f.max_exponent() - p, d);
      break;
  }
  return d;
}

CollectiveCheck MakeCollectiveCheck(const CollectiveParams& params, const CollectiveLayout& layout,
                                    int rank, int nranks) {
  CollectiveCheck check;
  check.op = params.op;
  check.dtype = params.dtype;
  check.rank = rank;
  check.nranks = nranks;
  check.root = params.root;
  check.in_place = params.in_place;
  check.count = layout.count;
  if (IsReduction(params.op)) check.reduction = MakeReductionData(params.dtype, params.redop, nranks, 0);
  return check;
}

std::string FormatCollElement(CollDtype dtype, uint64_t bits) {
  const DtypeTraits t = TraitsOf(dtype);
  const int digits = 2 * t.width;
  if (t.is_float) {
    return absl::StrFormat("%.17g (0x%0*x)", DecodeFloat(t.format, bits), digits, bits);
  }
  if (t.is_signed) return absl::StrFormat("%d (0x%0*x)", SignedFromBits(bits, t.width), digits, bits);
  return absl::StrFormat("%u (0x%0*x)", bits, digits, bits);
}

}  // namespace gh
