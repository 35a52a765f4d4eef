// Kernels of the collective kind's cuda backend (see collective_kernels_cuda.h).
#include <cuda_runtime.h>

#include <algorithm>
#include <cub/block/block_reduce.cuh>

#include "harness/scenarios/collective_kernels_cuda.h"

namespace gh {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 4096;  // grid-stride beyond this

int BlocksFor(int64_t count) {
  return static_cast<int>(std::clamp<int64_t>((count + kThreads - 1) / kThreads, 1, kMaxBlocks));
}

template <typename Bits>
__global__ void FillKernel(Bits* data, int64_t count, CollectiveCheck check) {
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    data[i] = static_cast<Bits>(SendInputBits(check, i));
  }
}

struct MinOp {
  __device__ unsigned long long operator()(unsigned long long a, unsigned long long b) const {
    return a < b ? a : b;
  }
};

template <typename Bits>
__global__ void VerifyKernel(const Bits* data, int64_t count, CollectiveCheck check,
                             VerifyCounters* counters) {
  unsigned long long wrong = 0, first = ~0ull;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  for (int64_t j = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < count; j += stride) {
    if (data[j] != static_cast<Bits>(ExpectedOutputBits(check, j))) {
      ++wrong;
      first = min(first, static_cast<unsigned long long>(j));
    }
  }
  using Reduce = cub::BlockReduce<unsigned long long, kThreads>;
  __shared__ typename Reduce::TempStorage wrong_storage, first_storage;
  const unsigned long long block_wrong = Reduce(wrong_storage).Sum(wrong);
  const unsigned long long block_first = Reduce(first_storage).Reduce(first, MinOp());
  if (threadIdx.x == 0 && block_wrong != 0) {
    atomicAdd(&counters->wrong_elements, block_wrong);
    atomicMin(&counters->first_index, block_first);
  }
}

__global__ void FlipKernel(unsigned char* data, int64_t index, int width) {
  data[index * width] ^= 1;  // little-endian: the element's lowest bit
}

template <typename Bits>
cudaError_t Fill(void* data, int64_t count, const CollectiveCheck& check, cudaStream_t stream) {
  FillKernel<Bits><<<BlocksFor(count), kThreads, 0, stream>>>(static_cast<Bits*>(data), count, check);
  return cudaGetLastError();
}

template <typename Bits>
cudaError_t Verify(const void* data, int64_t count, const CollectiveCheck& check,
                   VerifyCounters* counters, cudaStream_t stream) {
  VerifyKernel<Bits><<<BlocksFor(count), kThreads, 0, stream>>>(static_cast<const Bits*>(data), count,
                                                                check, counters);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchCollectiveFill(void* data, int64_t count, const CollectiveCheck& check,
                                 cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  switch (TraitsOf(check.dtype).width) {
    case 1: return Fill<uint8_t>(data, count, check, stream);
    case 2: return Fill<uint16_t>(data, count, check, stream);
    case 4: return Fill<uint32_t>(data, count, check, stream);
    case 8: return Fill<uint64_t>(data, count, check, stream);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchCollectiveVerify(const void* data, int64_t count, const CollectiveCheck& check,
                                   VerifyCounters* counters, cudaStream_t stream) {
  cudaError_t error = cudaMemsetAsync(&counters->wrong_elements, 0, sizeof(unsigned long long), stream);
  if (error == cudaSuccess) {
    error = cudaMemsetAsync(&counters->first_index, 0xFF, sizeof(unsigned long long), stream);
  }
  if (error != cudaSuccess || count <= 0) return error;
  switch (TraitsOf(check.dtype).width) {
    case 1: return Verify<uint8_t>(data, count, check, counters, stream);
    case 2: return Verify<uint16_t>(data, count, check, counters, stream);
    case 4: return Verify<uint32_t>(data, count, check, counters, stream);
    case 8: return Verify<uint64_t>(data, count, check, counters, stream);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchFlipElementBit(void* data, int64_t index, int width, cudaStream_t stream) {
  FlipKernel<<<1, 1, 0, stream>>>(static_cast<unsigned char*>(data), index, width);
  return cudaGetLastError();
}

}  // namespace gh
