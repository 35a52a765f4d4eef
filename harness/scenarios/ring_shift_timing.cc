#include "harness/scenarios/ring_shift_timing.h"

#include <algorithm>

#include "harness/core/perf_statistics.h"

namespace gh {

std::vector<Metric> LoopMetrics(const std::string& prefix, double loop_us, int iterations,
                                double bytes) {
  if (iterations <= 0 || loop_us <= 0) return {};
  const double mean_us = loop_us / iterations;
  std::vector<Metric> metrics = {{prefix + "time_loop_mean_us", mean_us, "us", {}}};
  if (bytes > 0) metrics.push_back({prefix + "bandwidth_loop_GBps", bytes / (mean_us * 1e3), "GB/s", {}});
  return metrics;
}

std::vector<Metric> GraphMetrics(const std::vector<double>& replay_us, int iterations, double bytes) {
  if (replay_us.empty() || iterations <= 0) return {};
  if (std::any_of(replay_us.begin(), replay_us.end(), [](double us) { return !(us > 0); })) return {};
  Metric time{"time_graph_mean_us", 0, "us", {}};
  for (double us : replay_us) time.samples.push_back(us / iterations);
  time.value = MedianOf(time.samples);
  std::vector<Metric> metrics = {time};
  if (bytes > 0) {
    Metric bandwidth{"bandwidth_graph_GBps", bytes / (time.value * 1e3), "GB/s", {}};
    for (double us : time.samples) bandwidth.samples.push_back(bytes / (us * 1e3));
    metrics.push_back(std::move(bandwidth));
  }
  return metrics;
}

}  // namespace gh
