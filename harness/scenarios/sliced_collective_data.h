// sliced_collective's data: the producer is out = A @ W with A [rows, inner] per rank and W
// [inner, cols] shared by every rank (seed 000's `y1 @ w`). Entries are small integers drawn
// from a hash of (rank, row, k, seed), so every product and partial sum is an integer below
// 2^24 and exact in f32 whatever order a GEMM or a reduction adds them: results are compared
// bitwise, and a misplaced row, another rank's row or a stale (earlier seed) row cannot match
// by accident. Usable from host code and CUDA kernels.
#ifndef GPUHARNESS_SCENARIOS_SLICED_COLLECTIVE_DATA_H_
#define GPUHARNESS_SCENARIOS_SLICED_COLLECTIVE_DATA_H_

#include <cstdint>

#include "harness/scenarios/data_pattern.h"

namespace gh {

// Entries lie in [-kProducerEntryMax, kProducerEntryMax].
inline constexpr int kProducerEntryMax = 4;
// Largest inner dimension for which sums of nranks <= kMaxExactRanks outputs stay exact.
inline constexpr int64_t kMaxProducerInner = 4096;
inline constexpr int kMaxExactRanks = 64;

GH_HOST_DEVICE inline float ProducerA(int rank, int64_t row, int64_t k, uint64_t seed) {
  uint64_t bits = MixBits((uint64_t(rank) << 48) ^ (uint64_t(row) << 24) ^ uint64_t(k) ^
                          (seed * 0x9E6C63D0676A9A99ull));
  return float(int(bits % (2 * kProducerEntryMax + 1)) - kProducerEntryMax);
}

GH_HOST_DEVICE inline float ProducerW(int64_t k, int64_t col, uint64_t seed) {
  uint64_t bits = MixBits((uint64_t(k) << 24) ^ uint64_t(col) ^ (seed * 0xC2B2AE3D27D4EB4Full) ^
                          0x5851F42D4C957F2Dull);
  return float(int(bits % (2 * kProducerEntryMax + 1)) - kProducerEntryMax);
}

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_SLICED_COLLECTIVE_DATA_H_
