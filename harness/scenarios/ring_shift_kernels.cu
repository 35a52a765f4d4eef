// Kernels of ring_shift's cuda backend (see ring_shift_kernels_cuda.h); the NCCL exchange and
// timing live in ring_shift_nccl_cuda.cc.
#include <cuda_runtime.h>

#include <algorithm>

#include "harness/scenarios/data_pattern.h"
#include "harness/scenarios/ring_shift_kernels_cuda.h"

namespace gh {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 8192;  // grid-stride beyond this: enough to fill any GPU

int BlocksFor(int64_t count) {
  return static_cast<int>(std::clamp<int64_t>((count + kThreads - 1) / kThreads, 1, kMaxBlocks));
}

template <typename Bits>
__global__ void FillPatternKernel(Bits* data, int64_t count, int rank, uint64_t seed) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    data[i] = static_cast<Bits>(PatternBits(rank, static_cast<uint64_t>(i), seed));
  }
}

// Per-thread count and lowest index, reduced per warp then per block, so that a buffer where
// everything is wrong costs two atomics per block, not one per element.
template <typename Bits>
__global__ void VerifyPatternKernel(const Bits* data, int64_t count, int src_rank, uint64_t seed,
                                    VerifyCounters* counters) {
  unsigned long long wrong = 0, first = ~0ull;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const Bits expected = static_cast<Bits>(PatternBits(src_rank, static_cast<uint64_t>(i), seed));
    if (data[i] != expected) {
      ++wrong;
      if (static_cast<unsigned long long>(i) < first) first = static_cast<unsigned long long>(i);
    }
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    wrong += __shfl_down_sync(0xffffffffu, wrong, offset);
    first = min(first, __shfl_down_sync(0xffffffffu, first, offset));
  }
  __shared__ unsigned long long warp_wrong[kThreads / 32], warp_first[kThreads / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) {
    warp_wrong[warp] = wrong;
    warp_first[warp] = first;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long block_wrong = 0, block_first = ~0ull;
    for (int w = 0; w < kThreads / 32; ++w) {
      block_wrong += warp_wrong[w];
      block_first = min(block_first, warp_first[w]);
    }
    if (block_wrong != 0) {
      atomicAdd(&counters->wrong_elements, block_wrong);
      atomicMin(&counters->first_index, block_first);
    }
  }
}

template <typename Bits>
__global__ void FlipLowestBitKernel(Bits* data, int64_t index) {
  data[index] ^= Bits(1);
}

template <typename Bits>
cudaError_t FillAs(void* data, int64_t count, int rank, uint64_t seed, cudaStream_t stream) {
  FillPatternKernel<Bits><<<BlocksFor(count), kThreads, 0, stream>>>(static_cast<Bits*>(data),
                                                                       count, rank, seed);
  return cudaGetLastError();
}

template <typename Bits>
cudaError_t VerifyAs(const void* data, int64_t count, int src_rank, uint64_t seed,
                     VerifyCounters* counters, cudaStream_t stream) {
  VerifyPatternKernel<Bits><<<BlocksFor(count), kThreads, 0, stream>>>(
      static_cast<const Bits*>(data), count, src_rank, seed, counters);
  return cudaGetLastError();
}

template <typename Bits>
cudaError_t FlipAs(void* data, int64_t index, cudaStream_t stream) {
  FlipLowestBitKernel<Bits><<<1, 1, 0, stream>>>(static_cast<Bits*>(data), index);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchFillPattern(void* data, int64_t count, int width, int rank, uint64_t seed,
                              cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  switch (width) {
    case 2: return FillAs<uint16_t>(data, count, rank, seed, stream);
    case 4: return FillAs<uint32_t>(data, count, rank, seed, stream);
    case 8: return FillAs<uint64_t>(data, count, rank, seed, stream);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchVerifyPattern(const void* data, int64_t count, int width, int src_rank,
                                uint64_t seed, VerifyCounters* counters, cudaStream_t stream) {
  // wrong_elements = 0, first_index = ~0: reset on the stream, ordered before the count.
  cudaError_t error = cudaMemsetAsync(&counters->wrong_elements, 0, sizeof(unsigned long long), stream);
  if (error != cudaSuccess) return error;
  error = cudaMemsetAsync(&counters->first_index, 0xFF, sizeof(unsigned long long), stream);
  if (error != cudaSuccess) return error;
  if (count <= 0) return cudaSuccess;
  switch (width) {
    case 2: return VerifyAs<uint16_t>(data, count, src_rank, seed, counters, stream);
    case 4: return VerifyAs<uint32_t>(data, count, src_rank, seed, counters, stream);
    case 8: return VerifyAs<uint64_t>(data, count, src_rank, seed, counters, stream);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchFlipLowestBit(void* data, int64_t index, int width, cudaStream_t stream) {
  switch (width) {
    case 2: return FlipAs<uint16_t>(data, index, stream);
    case 4: return FlipAs<uint32_t>(data, index, stream);
    case 8: return FlipAs<uint64_t>(data, index, stream);
    default: return cudaErrorInvalidValue;
  }
}

__global__ void IllegalStoreKernel(volatile int* target) { *target = 1; }

cudaError_t LaunchIllegalStore(cudaStream_t stream) {
  IllegalStoreKernel<<<1, 1, 0, stream>>>(nullptr);
  return cudaGetLastError();
}

uint64_t ExpectedPatternBits(int rank, uint64_t index, uint64_t seed, int width) {
  const uint64_t bits = PatternBits(rank, index, seed);
  return width >= 8 ? bits : bits & ((uint64_t{1} << (8 * width)) - 1);
}

}  // namespace gh
