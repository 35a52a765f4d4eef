// Device kernels of ring_shift's cuda backend: pattern fill, bitwise verification, and the
// corrupt-element fault. Elements are handled as raw bits of `width` bytes (2, 4 or 8), so one
// kernel serves every dtype of that width. Launches are asynchronous on `stream`; the returned
// error is the launch's (cudaGetLastError right after it).
#ifndef GPUHARNESS_SCENARIOS_RING_SHIFT_KERNELS_CUDA_H_
#define GPUHARNESS_SCENARIOS_RING_SHIFT_KERNELS_CUDA_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace gh {

// data[i] = PatternBits(rank, i, seed) truncated to `width` bytes, for i in [0, count).
cudaError_t LaunchFillPattern(void* data, int64_t count, int width, int rank, uint64_t seed,
                              cudaStream_t stream);

// Lives in device memory; LaunchVerifyPattern resets it before counting.
struct VerifyCounters {
  unsigned long long wrong_elements;
  unsigned long long first_index;  // ~0ull when nothing is wrong
};

// Counts elements of `data` whose bits differ from PatternBits(src_rank, i, seed) truncated to
// `width`, and records the lowest such index, into *counters (device memory).
cudaError_t LaunchVerifyPattern(const void* data, int64_t count, int width, int src_rank,
                                uint64_t seed, VerifyCounters* counters, cudaStream_t stream);

// Flips the lowest bit of element `index`: the smallest corruption there is.
cudaError_t LaunchFlipLowestBit(void* data, int64_t index, int width, cudaStream_t stream);

// Stores through a null pointer: a sticky cudaErrorIllegalAddress (the device_fault fault).
cudaError_t LaunchIllegalStore(cudaStream_t stream);

// PatternBits truncated to `width` bytes, as the kernels write it (for formatting on the host).
uint64_t ExpectedPatternBits(int rank, uint64_t index, uint64_t seed, int width);

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_RING_SHIFT_KERNELS_CUDA_H_
