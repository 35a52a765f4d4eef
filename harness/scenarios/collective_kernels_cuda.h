// Device kernels of the collective kind's cuda backend: fill a rank's send data and count the
// wrong elements of its output, both from collective_data.h, so the device writes and checks
// exactly what the host backend does. Launches are asynchronous on `stream` and return the
// launch's error.
#ifndef GPUHARNESS_SCENARIOS_COLLECTIVE_KERNELS_CUDA_H_
#define GPUHARNESS_SCENARIOS_COLLECTIVE_KERNELS_CUDA_H_

#include <cuda_runtime_api.h>

#include <cstdint>

#include "harness/scenarios/collective_data.h"
#include "harness/scenarios/ring_shift_kernels_cuda.h"  // VerifyCounters

namespace gh {

// data[i] = SendInputBits(check, i) for i in [0, count).
cudaError_t LaunchCollectiveFill(void* data, int64_t count, const CollectiveCheck& check,
                                 cudaStream_t stream);

// Counts the elements j in [0, count) of `data` whose bits differ from
// ExpectedOutputBits(check, j) into *counters (device memory; reset first, on the stream), with
// the lowest such j. check.segments, where set, must be device memory.
cudaError_t LaunchCollectiveVerify(const void* data, int64_t count, const CollectiveCheck& check,
                                   VerifyCounters* counters, cudaStream_t stream);

// Flips the lowest bit of element `index` of `data` (elements of `width` bytes): the fault.
cudaError_t LaunchFlipElementBit(void* data, int64_t index, int width, cudaStream_t stream);

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_COLLECTIVE_KERNELS_CUDA_H_
