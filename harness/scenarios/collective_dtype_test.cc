// The element types' exact conversions (collective_dtype.h): every finite bit pattern of the
// narrow types survives decode and encode, rounding is to nearest even (checked against the C++
// conversion to float and against hand-computed values), overflow and subnormals behave as NCCL's
// conversions do.
#include "harness/scenarios/collective_dtype.h"

#include <bit>
#include <cstdint>
#include <random>

#include "gtest/gtest.h"

namespace gh {
namespace {

uint64_t Encode(CollDtype dtype, double value) { return EncodeFloat(TraitsOf(dtype).format, value); }
double Decode(CollDtype dtype, uint64_t bits) { return DecodeFloat(TraitsOf(dtype).format, bits); }

TEST(CollectiveDtype, EveryFiniteNarrowValueRoundTrips) {
  for (CollDtype dtype : {CollDtype::kHalf, CollDtype::kBfloat16, CollDtype::kF8e4m3, CollDtype::kF8e5m2}) {
    const DtypeTraits t = TraitsOf(dtype);
    int finite = 0;
    for (uint64_t bits = 0; bits < (uint64_t{1} << (8 * t.width)); ++bits) {
      if (IsNonFinite(t.format, bits)) {
        EXPECT_FALSE(std::isfinite(Decode(dtype, bits))) << std::hex << bits;
        continue;
      }
      ++finite;
      ASSERT_EQ(Encode(dtype, Decode(dtype, bits)), bits) << EnumToName(dtype) << " 0x" << std::hex << bits;
    }
    // e4m3 has one NaN per sign; the IEEE-like formats spend a whole exponent field on inf/NaN.
    const int expected = dtype == CollDtype::kF8e4m3 ? 254 : (1 << (8 * t.width)) - (2 << t.format.mantissa_bits);
    EXPECT_EQ(finite, expected) << EnumToName(dtype);
  }
}

TEST(CollectiveDtype, FloatEncodingMatchesTheCompilersConversion) {
  std::mt19937_64 random(7);
  const FloatFormat f = TraitsOf(CollDtype::kFloat).format;
  for (int i = 0; i < 200000; ++i) {
    // Doubles spread over the float range, subnormals and overflow included.
    const double value = std::ldexp(std::uniform_real_distribution<double>(-2, 2)(random),
                                    std::uniform_int_distribution<int>(-152, 130)(random));
    const float converted = static_cast<float>(value);
    ASSERT_EQ(EncodeFloat(f, value), std::bit_cast<uint32_t>(converted)) << value;
    if (std::isfinite(converted)) {
      ASSERT_EQ(DecodeFloat(f, EncodeFloat(f, value)), double(converted));
    }
  }
}

TEST(CollectiveDtype, RoundsToNearestEvenAsNcclMakesItsAverageScalars) {
  // NCCL's avg scalar: 1/n as float, then the type (__float2half, __float2bfloat16,
  // __nv_cvt_float_to_fp8 with __NV_SATFINITE).
  const double third = static_cast<float>(1.0 / 3);
  EXPECT_EQ(Encode(CollDtype::kHalf, third), 0x3555u);      // 0.33325195
  EXPECT_EQ(Encode(CollDtype::kBfloat16, third), 0x3EABu);  // 0.333984375
  EXPECT_EQ(Encode(CollDtype::kF8e4m3, third), 0x2Bu);      // 0.34375
  EXPECT_EQ(Encode(CollDtype::kF8e5m2, third), 0x35u);      // 0.3125
  // Ties go to the even significand: 1 + 2^-11 is halfway between half's 1 and 1 + 2^-10.
  EXPECT_EQ(Encode(CollDtype::kHalf, 1 + std::ldexp(1.0, -11)), 0x3C00u);
  EXPECT_EQ(Encode(CollDtype::kHalf, 1 + 3 * std::ldexp(1.0, -11)), 0x3C02u);
  EXPECT_EQ(Encode(CollDtype::kHalf, 1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30)), 0x3C01u);
  // Subnormals: the smallest half, a tie below it (to 0, even) and one above (to 2).
  EXPECT_EQ(Encode(CollDtype::kHalf, std::ldexp(1.0, -24)), 0x0001u);
  EXPECT_EQ(Encode(CollDtype::kHalf, std::ldexp(1.0, -25)), 0x0000u);
  EXPECT_EQ(Encode(CollDtype::kHalf, 3 * std::ldexp(1.0, -25)), 0x0002u);
  EXPECT_EQ(Encode(CollDtype::kF8e4m3, std::ldexp(1.0, -9)), 0x01u);  // e4m3's smallest
  // Overflow: infinity where the format has one, the largest finite number where it does not.
  EXPECT_EQ(Encode(CollDtype::kHalf, 65520.0), 0x7C00u);
  EXPECT_EQ(Encode(CollDtype::kHalf, 65504.0), 0x7BFFu);
  EXPECT_EQ(Encode(CollDtype::kF8e4m3, 448.0), 0x7Eu);
  EXPECT_EQ(Encode(CollDtype::kF8e4m3, 500.0), 0x7Eu);
  EXPECT_EQ(Encode(CollDtype::kF8e4m3, -1e6), 0xFEu);
  EXPECT_EQ(Encode(CollDtype::kF8e5m2, 57344.0), 0x7Bu);
  EXPECT_EQ(Encode(CollDtype::kF8e5m2, 1e6), 0x7Cu);
  // Signs and zeros.
  EXPECT_EQ(Encode(CollDtype::kBfloat16, -0.0), 0x8000u);
  EXPECT_EQ(Encode(CollDtype::kBfloat16, -2.0), 0xC000u);
  EXPECT_TRUE(std::isnan(Decode(CollDtype::kF8e4m3, 0x7F)));
  EXPECT_TRUE(std::isinf(Decode(CollDtype::kF8e5m2, 0x7C)));
}

TEST(CollectiveDtype, FormatsShowValueAndBits) {
  EXPECT_EQ(FormatCollElement(CollDtype::kHalf, 0x3C00), "1 (0x3c00)");
  EXPECT_EQ(FormatCollElement(CollDtype::kInt8, 0xFF), "-1 (0xff)");
  EXPECT_EQ(FormatCollElement(CollDtype::kUint32, 7), "7 (0x00000007)");
  EXPECT_EQ(FormatCollElement(CollDtype::kF8e4m3, 0x2B), "0.34375 (0x2b)");
}

}  // namespace
}  // namespace gh
