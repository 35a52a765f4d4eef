// Summary statistics of timed iterations: median and spread, never a mean of outliers.
#ifndef GPUHARNESS_CORE_TIMING_STATS_H_
#define GPUHARNESS_CORE_TIMING_STATS_H_

#include <string>
#include <vector>

#include "harness/core/metric.h"

namespace gh {

struct TimingStats {
  int samples = 0;
  double min_us = 0, p10_us = 0, median_us = 0, p90_us = 0, max_us = 0;
  std::vector<double> samples_us;  // every sample, in the order taken
};

// Sorts a copy; empty input gives all zeros.
TimingStats SummarizeTimings(std::vector<double> samples_us);

// time_median_us, time_min_us, time_p10_us, time_p90_us, time_max_us, iterations, and when
// bytes_per_iteration > 0, bandwidth_GBps = bytes / median (1 GB = 1e9 bytes). time_median_us
// carries every sample and bandwidth_GBps every sample's bandwidth (Metric::samples).
std::vector<Metric> TimingMetrics(const TimingStats& stats, double bytes_per_iteration);

// The metrics that carry samples, which a perf comparison and a perf bisect (--hunt-metric) test:
// TimingMetrics' time_median_us and bandwidth_GBps, and ring_shift's CUDA-graph replays
// (time_graph_mean_us, bandwidth_graph_GBps). A kind that records another must add it here.
const std::vector<std::string>& SampledMetricNames();

}  // namespace gh

#endif  // GPUHARNESS_CORE_TIMING_STATS_H_
