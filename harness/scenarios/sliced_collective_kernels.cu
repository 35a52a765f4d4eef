// Kernels of sliced_collective's cuda backend (see sliced_collective_kernels_cuda.h).
#include <cuda_runtime.h>

#include "harness/scenarios/sliced_collective_data.h"
#include "harness/scenarios/sliced_collective_kernels_cuda.h"

namespace gh {
namespace {

__global__ void FillProducerInputs(float* a, float* w, int rank, int64_t rows, int64_t inner,
                                   int64_t cols, uint64_t seed) {
  int64_t stride = int64_t(gridDim.x) * blockDim.x;
  int64_t first = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int64_t i = first; i < rows * inner; i += stride) {
    a[i] = ProducerA(rank, i / inner, i % inner, seed);
  }
  for (int64_t i = first; i < inner * cols; i += stride) w[i] = ProducerW(i / cols, i % cols, seed);
}

__global__ void WriteBeginRow(int64_t* cell, int64_t row) { *cell = row; }

__global__ void FlipElement(uint32_t* data, int64_t index) { data[index] ^= 0x00400000u; }

}  // namespace

cudaError_t LaunchFillProducerInputs(float* a, float* w, int rank, int64_t rows, int64_t inner,
                                     int64_t cols, uint64_t seed, cudaStream_t stream) {
  FillProducerInputs<<<256, 256, 0, stream>>>(a, w, rank, rows, inner, cols, seed);
  return cudaGetLastError();
}

cudaError_t LaunchWriteBeginRow(int64_t* cell, int64_t row, cudaStream_t stream) {
  WriteBeginRow<<<1, 1, 0, stream>>>(cell, row);
  return cudaGetLastError();
}

cudaError_t LaunchFlipElement(float* data, int64_t index, cudaStream_t stream) {
  FlipElement<<<1, 1, 0, stream>>>(reinterpret_cast<uint32_t*>(data), index);
  return cudaGetLastError();
}

}  // namespace gh
