#include "harness/scenarios/ring_shift_timing.h"

namespace gh {

std::vector<Metric> LoopMetrics(const std::string& prefix, double loop_us, int iterations,
                                double bytes) {
  if (iterations <= 0 || loop_us <= 0) return {};
  const double mean_us = loop_us / iterations;
  std::vector<Metric> metrics = {{prefix + "time_loop_mean_us", mean_us, "us"}};
  if (bytes > 0) metrics.push_back({prefix + "bandwidth_loop_GBps", bytes / (mean_us * 1e3), "GB/s"});
  return metrics;
}

}  // namespace gh
