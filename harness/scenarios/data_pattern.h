// Verification data: every element's bits are a hash of (source rank, element index, seed), so
// a misplaced, stale (earlier seed), or partly written element cannot match by accident.
// Comparison is bitwise. Usable from host code and CUDA kernels.
#ifndef GPUHARNESS_SCENARIOS_DATA_PATTERN_H_
#define GPUHARNESS_SCENARIOS_DATA_PATTERN_H_

#include <cstdint>

#if defined(__CUDACC__)
#define GH_HOST_DEVICE __host__ __device__
#else
#define GH_HOST_DEVICE
#endif

namespace gh {

// splitmix64 finaliser: cheap and well mixed.
GH_HOST_DEVICE inline uint64_t MixBits(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The bits of element `index` of rank `rank`'s block for `seed` (seed = trial and iteration).
GH_HOST_DEVICE inline uint64_t PatternBits(int rank, uint64_t index, uint64_t seed) {
  return MixBits((static_cast<uint64_t>(rank) << 48) ^ (seed << 40) ^ index ^
                 (seed * 0xD6E8FEB86659FD93ull));
}

// Poison written into receive buffers before a verified run: a value no pattern produces for
// the element with overwhelming probability, and easy to spot in a hex dump.
inline constexpr uint8_t kPoisonByte = 0xA5;

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_DATA_PATTERN_H_
