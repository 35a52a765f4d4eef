#include "harness/scenarios/collective_bandwidth.h"

#include <string_view>
#include <utility>

#include "harness/core/timing_stats.h"
#include "harness/scenarios/ring_shift_timing.h"

namespace gh {

double AlgorithmBytes(CollectiveOp op, const CollectiveLayout& layout, int nranks) {
  const double element_bytes = static_cast<double>(layout.count) * layout.width;
  switch (op) {
    case CollectiveOp::kAllReduce:
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kReduce:
    case CollectiveOp::kSendrecv:
      return element_bytes;
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAlltoall:
    case CollectiveOp::kGather:
    case CollectiveOp::kScatter:
      return element_bytes * nranks;
    case CollectiveOp::kAlltoallv:  // the larger of a rank's send and receive totals
      return static_cast<double>(layout.slot_bytes);
    case CollectiveOp::kHypercube:
      return element_bytes * (nranks - 1);
  }
  return 0;
}

double BusFactor(CollectiveOp op, int nranks) {
  const double n = nranks;
  switch (op) {
    case CollectiveOp::kAllReduce:
      return 2 * (n - 1) / n;
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAlltoall:
    case CollectiveOp::kAlltoallv:
    case CollectiveOp::kGather:
    case CollectiveOp::kScatter:
      return (n - 1) / n;
    case CollectiveOp::kBroadcast:
    case CollectiveOp::kReduce:
    case CollectiveOp::kSendrecv:
    case CollectiveOp::kHypercube:
      return 1;
  }
  return 1;
}

Bandwidth BandwidthOf(CollectiveOp op, const CollectiveLayout& layout, int nranks, double seconds) {
  if (!(seconds > 0)) return {};
  const double algbw = AlgorithmBytes(op, layout, nranks) / 1e9 / seconds;
  return {algbw, algbw * BusFactor(op, nranks)};
}

namespace {

// Appends `busbw_name`: the metric `algbw_name` (where present) times the op's bus factor,
// sample by sample.
void AppendBusBandwidth(std::vector<Metric>& metrics, std::string_view algbw_name,
                        const char* busbw_name, double factor) {
  for (size_t i = 0; i < metrics.size(); ++i) {
    if (metrics[i].name != algbw_name) continue;
    Metric busbw{busbw_name, metrics[i].value * factor, "GB/s"};
    for (double sample : metrics[i].samples) busbw.samples.push_back(sample * factor);
    metrics.push_back(std::move(busbw));
    return;
  }
}

}  // namespace

std::vector<Metric> CollectiveTimingMetrics(CollectiveOp op, const CollectiveLayout& layout,
                                            int nranks, const std::vector<double>& sample_us,
                                            double loop_us,
                                            const std::vector<double>& graph_replay_us) {
  const double algorithm_bytes = AlgorithmBytes(op, layout, nranks);
  const double factor = BusFactor(op, nranks);
  std::vector<Metric> metrics = TimingMetrics(SummarizeTimings(sample_us), algorithm_bytes);
  // busbw of every timed iteration: bandwidth_GBps (algbw) times the op's factor.
  AppendBusBandwidth(metrics, "bandwidth_GBps", "busbw_median_GBps", factor);
  // The loop: one number, as nccl-tests prints it.
  for (Metric& m : LoopMetrics("", loop_us, 1, algorithm_bytes)) metrics.push_back(std::move(m));
  const Bandwidth loop = BandwidthOf(op, layout, nranks, loop_us * 1e-6);
  if (loop_us > 0) {
    metrics.push_back({"algbw_GBps", loop.algbw_GBps, "GB/s"});
    metrics.push_back({"busbw_GBps", loop.busbw_GBps, "GB/s"});
  }
  // The graph replays, one sample each.
  std::vector<Metric> graph = GraphMetrics(graph_replay_us, 1, algorithm_bytes);
  AppendBusBandwidth(graph, "bandwidth_graph_GBps", "busbw_graph_GBps", factor);
  for (Metric& m : graph) metrics.push_back(std::move(m));
  return metrics;
}

}  // namespace gh
