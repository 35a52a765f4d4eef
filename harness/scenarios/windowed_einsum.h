// windowed_einsum: out = all_gather(x) @ w with x sharded by rows over the tp ranks and w by
// columns, computed three ways (monolithic all-gather then one GEMM; windowed on one stream;
// windowed on a compute and a communication stream, double-buffered), optionally chained into a
// second layer ((x @ w1) @ w2, w2 sharded by rows, finished by a reduce-scatter). Shared by the
// host implementation (windowed_einsum.cc: MPI and a plain CPU GEMM) and the cuda one
// (windowed_einsum_cuda.cu: NCCL and cuBLASLt). Seed 002 motivates it.
#ifndef GPUHARNESS_SCENARIOS_WINDOWED_EINSUM_H_
#define GPUHARNESS_SCENARIOS_WINDOWED_EINSUM_H_

#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "harness/core/outcome.h"
#include "harness/core/enum_names.h"
#include "harness/core/param.h"
#include "harness/scenarios/data_pattern.h"

namespace gh {

class PointContext;

enum class EinsumVariant { kMonolithic, kWindowed, kWindowedMultistream };
GH_ENUM_NAMES(EinsumVariant, {EinsumVariant::kMonolithic, "monolithic"},
    {EinsumVariant::kWindowed, "windowed"},
    {EinsumVariant::kWindowedMultistream, "windowed_multistream"});

enum class EinsumDtype { kF32, kBF16 };
GH_ENUM_NAMES(EinsumDtype, {EinsumDtype::kF32, "f32"}, {EinsumDtype::kBF16, "bf16"});

// Deliberate faults, for testing the harness itself (the `fault` parameter).
enum class EinsumFault {
  kNone,
  kCorruptOutput,  // fault_rank changes one element of the variant's output after computing it
  kStaleWindow,    // fault_rank computes window 1 on the shard it already used at window 0,
                   // as a schedule bug would (windowed variants only; needs tp >= 2)
};
GH_ENUM_NAMES(EinsumFault, {EinsumFault::kNone, "none"},
    {EinsumFault::kCorruptOutput, "corrupt_output"}, {EinsumFault::kStaleWindow, "stale_window"});

struct WindowedEinsumParams {
  EinsumVariant variant = EinsumVariant::kWindowedMultistream;
  int64_t m_shard = 1024;  // rows of x per rank: M = m_shard * tp
  int64_t n_shard = 1024;  // columns of w1 (and of out) per rank: N = n_shard * tp
  int64_t k = 1024;        // inner dimension; also the width of y in the chained variant
  EinsumDtype dtype = EinsumDtype::kBF16;
  int layers = 1;          // 2: y = (x @ w1) @ w2 with w2[n_shard, k] per rank, reduce-scattered
  EinsumFault fault = EinsumFault::kNone;
  int fault_rank = 0;

  // Floating-point operations of one run on one rank (both layers).
  double Flops(int tp) const {
    double m = static_cast<double>(m_shard) * tp;
    double f = 2.0 * m * static_cast<double>(n_shard) * static_cast<double>(k);
    return layers == 2 ? 2.0 * f : f;
  }
};

std::string_view EinsumVariantName(EinsumVariant variant);
std::string_view EinsumDtypeName(EinsumDtype dtype);

// The tensors whose elements the generator below produces.
enum class EinsumTensor : uint64_t { kX = 1, kW1 = 2, kW2 = 3 };

// Element `index` (row-major) of tensor `tensor` owned by rank `owner` for `seed` (the trial):
// an integer in [-range, range]. Each backend scales it by a power of two so that every value
// is exact in bf16 and f32 (|integer| <= 127 has at most 8 significant bits). Deterministic on
// host and device, so any rank can regenerate any rank's shard for the reference.
GH_HOST_DEVICE inline int EinsumInt(EinsumTensor tensor, int owner, uint64_t index, uint64_t seed,
                                    int range) {
  uint64_t h = MixBits((static_cast<uint64_t>(tensor) << 56) ^
                       (static_cast<uint64_t>(owner) << 40) ^ seed);
  h = MixBits(h ^ index);
  return static_cast<int>(h % static_cast<uint64_t>(2 * range + 1)) - range;
}

// bf16 as its 16 bits, with round-to-nearest-even from float: the same on host and device.
GH_HOST_DEVICE inline float Bf16BitsToFloat(uint16_t bits) {
  uint32_t u = static_cast<uint32_t>(bits) << 16;
  float f;
  memcpy(&f, &u, sizeof(f));
  return f;
}
GH_HOST_DEVICE inline uint16_t FloatToBf16Bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof(u));
  if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) != 0) return 0x7FC0;  // NaN
  u += 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

// Verification bounds on the cuda backend, where the GEMMs round. `reference` is the exact
// (double) result computed from the same inputs; `abs_sum` the sum of |products| behind it.
//   f32 : |got - reference| <= 2^-16 * abs_sum             (f32 accumulation)
//   bf16: |got - reference| <= 2^-8 * |reference| + 2^-8 * abs_sum  (bf16 output rounding;
//         in the chained variant also the bf16 rounding of the hidden layer)
// Windowed against monolithic, where the two GEMMs may differ in blocking, with the output's
// root mean square `rms`:
//   f32 : |windowed - monolithic| <= 2^-14 * (|monolithic| + rms)
//   bf16: |windowed - monolithic| <= 2^-6 * (|monolithic| + rms)
// Bitwise equality is required instead where both ran the same computation (same cuBLASLt
// algorithm for the block and the whole, single layer).
struct EinsumBounds {
  double ref_rel;       // times |reference|
  double ref_abs_sum;   // times abs_sum
  double pair_rel;      // windowed vs monolithic, times (|monolithic| + rms)
};
inline EinsumBounds BoundsFor(EinsumDtype dtype) {
  if (dtype == EinsumDtype::kF32) return {0.0, 1.0 / 65536, 1.0 / 16384};
  return {1.0 / 256, 1.0 / 256, 1.0 / 64};
}

#if defined(GH_HAVE_CUDA)
// windowed_einsum_cuda.cu: NCCL and cuBLASLt on the job's device; timings with CUDA events.
RankOutcome RunWindowedEinsumCuda(PointContext& ctx, const WindowedEinsumParams& params);
#endif

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_WINDOWED_EINSUM_H_
