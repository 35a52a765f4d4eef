// The bare timed loop of ring_shift's cuda transports (ring_shift_timing.h): one event, the
// iterations back to back, one event; nothing else on the stream between the two events. And
// the graph replay: the same iterations captured once in a CUDA graph, replayed between events.
#ifndef GPUHARNESS_SCENARIOS_RING_SHIFT_LOOP_CUDA_H_
#define GPUHARNESS_SCENARIOS_RING_SHIFT_LOOP_CUDA_H_

#include <cuda_runtime_api.h>

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "harness/runtime/cuda_errors_cuda.h"

namespace gh {

// `error` of `call` as a status (both timed loops chain their calls, so that what they created is
// destroyed however they end).
inline absl::Status CheckTimedLoopCall(cudaError_t error, const char* call) {
  return error == cudaSuccess ? absl::OkStatus() : CudaStatus(error, call, GH_CUDA_WHERE);
}

// Enqueues `iterations` calls of `body` (returning absl::Status) between two events on
// `stream`, waits with `synchronize` (returning absl::Status: the job's watchdog-aware wait),
// and returns the microseconds between the events.
template <typename Body, typename Synchronize>
absl::StatusOr<double> TimeBareLoopUs(cudaStream_t stream, int iterations, Body&& body,
                                      Synchronize&& synchronize) {
  cudaEvent_t start = nullptr, stop = nullptr;
  absl::Status status = CheckTimedLoopCall(cudaEventCreate(&start), "cudaEventCreate");
  if (status.ok()) status = CheckTimedLoopCall(cudaEventCreate(&stop), "cudaEventCreate");
  if (status.ok()) status = CheckTimedLoopCall(cudaEventRecord(start, stream), "cudaEventRecord");
  for (int i = 0; status.ok() && i < iterations; ++i) status = body();
  if (status.ok()) status = CheckTimedLoopCall(cudaEventRecord(stop, stream), "cudaEventRecord");
  if (status.ok()) status = synchronize();
  float ms = 0;
  if (status.ok()) status = CheckTimedLoopCall(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  if (start != nullptr) cudaEventDestroy(start);
  if (stop != nullptr) cudaEventDestroy(stop);
  if (!status.ok()) return status;
  return static_cast<double>(ms) * 1e3;
}

// Captures `iterations` calls of `body` on `stream` into one CUDA graph (thread-local capture:
// the watchdog's thread is not this one), replays it once untimed, then `replays` times, each
// between its own pair of events; returns each replay's microseconds. A capture that fails ends
// the capture first, so the stream is usable again, and says which call refused.
template <typename Body, typename Synchronize>
absl::StatusOr<std::vector<double>> TimeGraphReplaysUs(cudaStream_t stream, int iterations, int replays,
                                                       Body&& body, Synchronize&& synchronize) {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  std::vector<cudaEvent_t> events(2 * static_cast<size_t>(replays), nullptr);
  absl::Status status = CheckTimedLoopCall(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal),
                              "cudaStreamBeginCapture");
  if (status.ok()) {
    for (int i = 0; status.ok() && i < iterations; ++i) status = body();
    const absl::Status ended = CheckTimedLoopCall(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
    if (status.ok()) status = ended;
  }
  if (status.ok()) status = CheckTimedLoopCall(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  for (size_t i = 0; status.ok() && i < events.size(); ++i) {
    status = CheckTimedLoopCall(cudaEventCreate(&events[i]), "cudaEventCreate");
  }
  if (status.ok()) status = CheckTimedLoopCall(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");  // untimed
  for (int r = 0; status.ok() && r < replays; ++r) {
    status = CheckTimedLoopCall(cudaEventRecord(events[2 * r], stream), "cudaEventRecord");
    if (status.ok()) status = CheckTimedLoopCall(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
    if (status.ok()) status = CheckTimedLoopCall(cudaEventRecord(events[2 * r + 1], stream), "cudaEventRecord");
  }
  if (status.ok()) status = synchronize();
  std::vector<double> replay_us;
  for (int r = 0; status.ok() && r < replays; ++r) {
    float ms = 0;
    status = CheckTimedLoopCall(cudaEventElapsedTime(&ms, events[2 * r], events[2 * r + 1]), "cudaEventElapsedTime");
    replay_us.push_back(static_cast<double>(ms) * 1e3);
  }
  for (cudaEvent_t event : events) {
    if (event != nullptr) cudaEventDestroy(event);
  }
  if (exec != nullptr) cudaGraphExecDestroy(exec);
  if (graph != nullptr) cudaGraphDestroy(graph);
  if (!status.ok()) return status;
  return replay_us;
}

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_RING_SHIFT_LOOP_CUDA_H_
