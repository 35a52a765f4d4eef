// The element types of the collective kind, in NCCL's order (the value is the ncclDataType_t),
// and exact conversions between each type's bits and a double, usable on the host and in CUDA
// kernels. The host backend reduces half, bfloat16 and the two float8 types through these
// conversions (MPI has none of them); both backends build expected results with them.
#ifndef GPUHARNESS_SCENARIOS_COLLECTIVE_DTYPE_H_
#define GPUHARNESS_SCENARIOS_COLLECTIVE_DTYPE_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "harness/core/enum_names.h"

#if defined(__CUDACC__)
#define GH_COLL_HD __host__ __device__
#else
#define GH_COLL_HD
#endif

namespace gh {

enum class CollDtype {
  kInt8, kUint8, kInt32, kUint32, kInt64, kUint64, kHalf, kFloat, kDouble, kBfloat16,
  kF8e4m3, kF8e5m2,
};
// nccl-tests' names (its -d option), so a point reads like the nccl-tests line it matches.
GH_ENUM_NAMES(CollDtype, {CollDtype::kInt8, "int8"}, {CollDtype::kUint8, "uint8"},
    {CollDtype::kInt32, "int32"}, {CollDtype::kUint32, "uint32"}, {CollDtype::kInt64, "int64"},
    {CollDtype::kUint64, "uint64"}, {CollDtype::kHalf, "half"}, {CollDtype::kFloat, "float"},
    {CollDtype::kDouble, "double"}, {CollDtype::kBfloat16, "bfloat16"},
    {CollDtype::kF8e4m3, "f8e4m3"}, {CollDtype::kF8e5m2, "f8e5m2"});

// A binary floating-point format: `mantissa_bits` stored fraction bits, `exponent_bits`,
// `bias`; `finite_only` formats (float8 e4m3, "fn") have no infinity and one NaN per sign, the
// all-ones pattern, so their largest exponent field still holds numbers.
struct FloatFormat {
  int mantissa_bits = 0, exponent_bits = 0, bias = 0;
  bool finite_only = false;
  GH_COLL_HD int digits() const { return mantissa_bits + 1; }  // p: integers up to 2^p are exact
  GH_COLL_HD int min_exponent() const { return 1 - bias; }    // of the smallest normal number
  GH_COLL_HD int max_field() const {  // the largest exponent field of a finite number
    return (1 << exponent_bits) - (finite_only ? 1 : 2);
  }
  GH_COLL_HD int max_exponent() const { return max_field() - bias; }
};

struct DtypeTraits {
  int width = 1;          // bytes
  bool is_float = false;
  bool is_signed = false;  // integers only
  FloatFormat format;      // floats only
};

GH_COLL_HD inline DtypeTraits TraitsOf(CollDtype dtype) {
  switch (dtype) {
    case CollDtype::kInt8: return {1, false, true, {}};
    case CollDtype::kUint8: return {1, false, false, {}};
    case CollDtype::kInt32: return {4, false, true, {}};
    case CollDtype::kUint32: return {4, false, false, {}};
    case CollDtype::kInt64: return {8, false, true, {}};
    case CollDtype::kUint64: return {8, false, false, {}};
    case CollDtype::kHalf: return {2, true, true, {10, 5, 15, false}};
    case CollDtype::kFloat: return {4, true, true, {23, 8, 127, false}};
    case CollDtype::kDouble: return {8, true, true, {52, 11, 1023, false}};
    case CollDtype::kBfloat16: return {2, true, true, {7, 8, 127, false}};
    case CollDtype::kF8e4m3: return {1, true, true, {3, 4, 7, true}};
    case CollDtype::kF8e5m2: return {1, true, true, {2, 5, 15, false}};
  }
  return {};
}

GH_COLL_HD inline uint64_t WidthMask(int width) {
  return width >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * width)) - 1;
}

// The element's bits from `width` little-endian bytes, and back.
GH_COLL_HD inline uint64_t LoadBits(const void* data, int64_t index, int width) {
  uint64_t bits = 0;
  memcpy(&bits, static_cast<const char*>(data) + index * width, width);
  return bits;
}
GH_COLL_HD inline void StoreBits(void* data, int64_t index, int width, uint64_t bits) {
  memcpy(static_cast<char*>(data) + index * width, &bits, width);
}

GH_COLL_HD inline double DoubleFromBits(uint64_t bits) {
  double value;
  memcpy(&value, &bits, sizeof(value));
  return value;
}
GH_COLL_HD inline uint64_t BitsFromDouble(double value) {
  uint64_t bits;
  memcpy(&bits, &value, sizeof(bits));
  return bits;
}

// NaN or infinity.
GH_COLL_HD inline bool IsNonFinite(const FloatFormat& f, uint64_t bits) {
  const uint64_t mantissa = bits & ((uint64_t{1} << f.mantissa_bits) - 1);
  const uint64_t field = (bits >> f.mantissa_bits) & ((uint64_t{1} << f.exponent_bits) - 1);
  const uint64_t all_ones = (uint64_t{1} << f.exponent_bits) - 1;
  if (f.finite_only) return field == all_ones && mantissa == (uint64_t{1} << f.mantissa_bits) - 1;
  return field == all_ones;
}

// The exact value of a float's bits (doubles hold every value of every format here).
GH_COLL_HD inline double DecodeFloat(const FloatFormat& f, uint64_t bits) {
  if (f.mantissa_bits == 52) return DoubleFromBits(bits);
  const int total = 1 + f.exponent_bits + f.mantissa_bits;
  const bool negative = (bits >> (total - 1)) & 1;
  const uint64_t mantissa = bits & ((uint64_t{1} << f.mantissa_bits) - 1);
  const int field = static_cast<int>((bits >> f.mantissa_bits) & ((uint64_t{1} << f.exponent_bits) - 1));
  double magnitude;
  if (IsNonFinite(f, bits)) {
    magnitude = (!f.finite_only && mantissa == 0) ? INFINITY : NAN;
  } else if (field == 0) {
    magnitude = ldexp(static_cast<double>(mantissa), f.min_exponent() - f.mantissa_bits);
  } else {
    magnitude = ldexp(static_cast<double>(mantissa + (uint64_t{1} << f.mantissa_bits)),
                      field - f.bias - f.mantissa_bits);
  }
  return negative ? -magnitude : magnitude;
}

// `value` rounded to the nearest representable number, ties to even (IEEE round-to-nearest).
// Beyond the largest finite number: infinity, or for finite-only formats that number
// (saturation, as NCCL converts its float8 scalars with __NV_SATFINITE). NaN stays NaN.
GH_COLL_HD inline uint64_t EncodeFloat(const FloatFormat& f, double value) {
  if (f.mantissa_bits == 52) return BitsFromDouble(value);
  const int total = 1 + f.exponent_bits + f.mantissa_bits;
  const uint64_t sign = std::signbit(value) ? uint64_t{1} << (total - 1) : 0;
  const uint64_t implicit = uint64_t{1} << f.mantissa_bits;
  const uint64_t max_finite =
      (static_cast<uint64_t>(f.max_field()) << f.mantissa_bits) | (implicit - 1 - (f.finite_only ? 1 : 0));
  if (std::isnan(value)) return sign | ((uint64_t{1} << (total - 1)) - 1);  // all ones: a NaN in every format
  const double magnitude = fabs(value);
  if (magnitude == 0) return sign;
  int exponent = 0;
  frexp(magnitude, &exponent);
  exponent -= 1;  // magnitude = 1.x * 2^exponent
  uint64_t bits;
  if (exponent < f.min_exponent()) {
    // Subnormal: a multiple of the smallest subnormal; rounding up to 2^mantissa_bits carries
    // into the smallest normal number's exponent field by itself.
    bits = static_cast<uint64_t>(rint(ldexp(magnitude, f.mantissa_bits - f.min_exponent())));
  } else {
    uint64_t scaled = static_cast<uint64_t>(rint(ldexp(magnitude, f.mantissa_bits - exponent)));
    if (scaled == 2 * implicit) {
      scaled = implicit;
      exponent += 1;
    }
    if (exponent > f.max_exponent()) {
      bits = max_finite + 1;  // overflow
    } else {
      bits = (static_cast<uint64_t>(exponent + f.bias) << f.mantissa_bits) | (scaled - implicit);
    }
  }
  if (bits > max_finite) bits = f.finite_only ? max_finite : (static_cast<uint64_t>(f.max_field() + 1) << f.mantissa_bits);
  return sign | bits;
}

// An integer type's bits as a signed or unsigned 64-bit value.
GH_COLL_HD inline int64_t SignedFromBits(uint64_t bits, int width) {
  if (width >= 8) return static_cast<int64_t>(bits);
  const uint64_t sign = uint64_t{1} << (8 * width - 1);
  return static_cast<int64_t>((bits ^ sign) - sign);
}

// The value of an element as a double (integers above 2^53 lose their low bits: for display).
inline double ElementValue(CollDtype dtype, uint64_t bits) {
  const DtypeTraits t = TraitsOf(dtype);
  if (t.is_float) return DecodeFloat(t.format, bits);
  if (t.is_signed) return static_cast<double>(SignedFromBits(bits, t.width));
  return static_cast<double>(bits);
}

// "<value> (0x<bits>)", the value as the dtype reads it: mismatch reports.
std::string FormatCollElement(CollDtype dtype, uint64_t bits);

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_COLLECTIVE_DTYPE_H_
