// ring_shift's second timing statistic on the cuda backend. Beside the per-iteration samples
// (each iteration between its own events: time_median_us, bandwidth_GBps), every cuda transport
// runs its iterations once more back to back between a single pair of events, with nothing
// between them, and reports their mean: the statistic nccl-tests prints (its `time` column times
// the same kind of loop with a host clock). The two differ: an event recorded between two NCCL
// kernels costs them about 3 us (measured on the H200, docs/performance.md), so only the bare
// loop compares with nccl-tests. A third, on request (`graph_replays`): the timed iterations
// captured once in a CUDA graph and replayed, each replay between its own events, so neither the
// host's enqueue nor an event sits between two exchanges; one replay is one sample. Plain C++:
// tested without a GPU.
#ifndef GPUHARNESS_SCENARIOS_RING_SHIFT_TIMING_H_
#define GPUHARNESS_SCENARIOS_RING_SHIFT_TIMING_H_

#include <string>
#include <vector>

#include "harness/core/metric.h"

namespace gh {

// `loop_us` for `iterations` back-to-back iterations of `bytes` each: <prefix>time_loop_mean_us
// and, when bytes > 0, <prefix>bandwidth_loop_GBps (1 GB = 1e9 bytes). No iterations or no
// time: nothing (a mean of nothing is not zero).
std::vector<Metric> LoopMetrics(const std::string& prefix, double loop_us, int iterations,
                                double bytes);

// `replay_us[r]`: the time of replay r of a graph of `iterations` exchanges of `bytes` each:
// time_graph_mean_us (the median over replays of the per-exchange mean; one sample per replay)
// and, when bytes > 0, bandwidth_graph_GBps (bytes over each replay's per-exchange mean). No
// replays, no iterations, or a replay without time: nothing.
std::vector<Metric> GraphMetrics(const std::vector<double>& replay_us, int iterations, double bytes);

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_RING_SHIFT_TIMING_H_
