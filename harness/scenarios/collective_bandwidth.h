// Algorithm and bus bandwidth of a collective, with nccl-tests' formulas (the <op>GetBw
// functions of src/*.cu in NVIDIA/nccl-tests v2.19.6): algbw = the bytes a rank's operation
// stands for over the time, busbw = algbw times a factor that makes ops comparable with the
// link speed (all_reduce 2(n-1)/n; all_gather, reduce_scatter, alltoall(v), gather, scatter
// (n-1)/n; broadcast, reduce, sendrecv, hypercube 1). 1 GB = 1e9 bytes. Plain C++.
#ifndef GPUHARNESS_SCENARIOS_COLLECTIVE_BANDWIDTH_H_
#define GPUHARNESS_SCENARIOS_COLLECTIVE_BANDWIDTH_H_

#include <string>
#include <vector>

#include "harness/core/metric.h"
#include "harness/scenarios/collective.h"
#include "harness/scenarios/collective_plan.h"

namespace gh {

// The bytes algbw divides by the time, for a layout on `nranks` ranks.
double AlgorithmBytes(CollectiveOp op, const CollectiveLayout& layout, int nranks);
// busbw / algbw.
double BusFactor(CollectiveOp op, int nranks);

struct Bandwidth {
  double algbw_GBps = 0, busbw_GBps = 0;
};
// The bandwidths of one operation taking `seconds` (0 for no time).
Bandwidth BandwidthOf(CollectiveOp op, const CollectiveLayout& layout, int nranks, double seconds);

// A collective point's timing metrics, per operation (an iteration of `agg` operations counts
// `agg` times):
//   per-iteration samples (`sample_us`, one per timed iteration, already per operation):
//     time_median_us ... and bandwidth_GBps (algbw) from TimingMetrics, busbw_median_GBps (with
//     its samples);
//   `loop_us`, the mean of the back-to-back loop (nccl-tests' `time` column): time_loop_mean_us,
//     bandwidth_loop_GBps, and algbw_GBps / busbw_GBps: the numbers nccl-tests prints;
//   `graph_replay_us` (per replay, already per operation; may be empty): time_graph_mean_us,
//     bandwidth_graph_GBps, busbw_graph_GBps (with a sample per replay): nccl-tests -G's.
std::vector<Metric> CollectiveTimingMetrics(CollectiveOp op, const CollectiveLayout& layout,
                                            int nranks, const std::vector<double>& sample_us,
                                            double loop_us,
                                            const std::vector<double>& graph_replay_us);

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_COLLECTIVE_BANDWIDTH_H_
