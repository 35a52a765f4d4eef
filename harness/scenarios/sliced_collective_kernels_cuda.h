// sliced_collective's device kernels behind plain launchers (host logic builds with the host
// compiler). Each returns the launch's error.
#ifndef GPUHARNESS_SCENARIOS_SLICED_COLLECTIVE_KERNELS_CUDA_H_
#define GPUHARNESS_SCENARIOS_SLICED_COLLECTIVE_KERNELS_CUDA_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace gh {

// a[rows, inner] = ProducerA(rank, ...), w[inner, cols] = ProducerW(...): the GEMM's inputs.
cudaError_t LaunchFillProducerInputs(float* a, float* w, int rank, int64_t rows, int64_t inner,
                                     int64_t cols, uint64_t seed, cudaStream_t stream);

// *cell = row: the producer leaves a dynamic slice's first row in device memory.
cudaError_t LaunchWriteBeginRow(int64_t* cell, int64_t row, cudaStream_t stream);

// Flips a mantissa bit of element `index`: the corrupt_element fault.
cudaError_t LaunchFlipElement(float* data, int64_t index, cudaStream_t stream);

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_SLICED_COLLECTIVE_KERNELS_CUDA_H_
