// The host/device-shared pieces of windowed_einsum: the data generator and bf16 rounding, which
// host references and device kernels must agree on bit for bit.
#include "harness/scenarios/windowed_einsum.h"

#include <set>

#include "gtest/gtest.h"

namespace gh {
namespace {

TEST(EinsumIntTest, StaysInRangeAndCoversIt) {
  std::set<int> seen;
  for (uint64_t i = 0; i < 20000; ++i) {
    int v = EinsumInt(EinsumTensor::kX, 3, i, 7, 2);
    ASSERT_GE(v, -2);
    ASSERT_LE(v, 2);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 5u);
}

TEST(EinsumIntTest, DependsOnTensorOwnerIndexAndSeed) {
  auto differing = [](auto make_other) {
    int differ = 0;
    for (uint64_t i = 0; i < 1000; ++i) {
      differ += EinsumInt(EinsumTensor::kW1, 1, i, 5, 127) != make_other(i);
    }
    return differ;
  };
  // Two independent uniform draws over 255 values agree about 1 time in 255.
  EXPECT_GT(differing([](uint64_t i) { return EinsumInt(EinsumTensor::kW2, 1, i, 5, 127); }), 980);
  EXPECT_GT(differing([](uint64_t i) { return EinsumInt(EinsumTensor::kW1, 2, i, 5, 127); }), 980);
  EXPECT_GT(differing([](uint64_t i) { return EinsumInt(EinsumTensor::kW1, 1, i + 1, 5, 127); }), 980);
  EXPECT_GT(differing([](uint64_t i) { return EinsumInt(EinsumTensor::kW1, 1, i, 6, 127); }), 980);
  EXPECT_EQ(differing([](uint64_t i) { return EinsumInt(EinsumTensor::kW1, 1, i, 5, 127); }), 0);
}

TEST(Bf16Test, ScaledDeviceValuesAreExact) {
  for (int i = -127; i <= 127; ++i) {
    float v = static_cast<float>(i) / 128;
    EXPECT_EQ(Bf16BitsToFloat(FloatToBf16Bits(v)), v) << i;
  }
}

TEST(Bf16Test, RoundsToNearestEven) {
  // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: ties go to the even mantissa (1).
  EXPECT_EQ(Bf16BitsToFloat(FloatToBf16Bits(1.0f + 1.0f / 256)), 1.0f);
  // 1 + 3 * 2^-8 lies halfway between 1 + 2^-7 and 1 + 2^-6: ties go to 1 + 2^-6.
  EXPECT_EQ(Bf16BitsToFloat(FloatToBf16Bits(1.0f + 3.0f / 256)), 1.0f + 1.0f / 64);
  EXPECT_EQ(Bf16BitsToFloat(FloatToBf16Bits(1.0f + 1.0f / 256 + 1.0f / 4096)), 1.0f + 1.0f / 128);
  EXPECT_EQ(FloatToBf16Bits(257.0f), 0x4380);  // 256: 257 is a tie, 256 is even
  EXPECT_EQ(FloatToBf16Bits(-2.0f), 0xC000);
}

TEST(EinsumParamsTest, FlopsCountBothLayers) {
  WindowedEinsumParams p;
  p.m_shard = 2;
  p.n_shard = 3;
  p.k = 5;
  p.layers = 1;
  EXPECT_EQ(p.Flops(4), 2.0 * 8 * 3 * 5);
  p.layers = 2;
  EXPECT_EQ(p.Flops(4), 2.0 * 2.0 * 8 * 3 * 5);
}

}  // namespace
}  // namespace gh
