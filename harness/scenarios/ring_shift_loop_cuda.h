// The bare timed loop of ring_shift's cuda transports (ring_shift_timing.h): one event, the
// iterations back to back, one event; nothing else on the stream between the two events.
#ifndef GPUHARNESS_SCENARIOS_RING_SHIFT_LOOP_CUDA_H_
#define GPUHARNESS_SCENARIOS_RING_SHIFT_LOOP_CUDA_H_

#include <cuda_runtime_api.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "harness/runtime/cuda_errors_cuda.h"

namespace gh {

// Enqueues `iterations` calls of `body` (returning absl::Status) between two events on
// `stream`, waits with `synchronize` (returning absl::Status: the job's watchdog-aware wait),
// and returns the microseconds between the events.
template <typename Body, typename Synchronize>
absl::StatusOr<double> TimeBareLoopUs(cudaStream_t stream, int iterations, Body&& body,
                                      Synchronize&& synchronize) {
  auto check = [](cudaError_t error, const char* call) {
    return error == cudaSuccess ? absl::OkStatus() : CudaStatus(error, call, GH_CUDA_WHERE);
  };
  cudaEvent_t start = nullptr, stop = nullptr;
  absl::Status status = check(cudaEventCreate(&start), "cudaEventCreate");
  if (status.ok()) status = check(cudaEventCreate(&stop), "cudaEventCreate");
  if (status.ok()) status = check(cudaEventRecord(start, stream), "cudaEventRecord");
  for (int i = 0; status.ok() && i < iterations; ++i) status = body();
  if (status.ok()) status = check(cudaEventRecord(stop, stream), "cudaEventRecord");
  if (status.ok()) status = synchronize();
  float ms = 0;
  if (status.ok()) status = check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  if (start != nullptr) cudaEventDestroy(start);
  if (stop != nullptr) cudaEventDestroy(stop);
  if (!status.ok()) return status;
  return static_cast<double>(ms) * 1e3;
}

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_RING_SHIFT_LOOP_CUDA_H_
