#include "harness/core/timing_stats.h"

#include <algorithm>
#include <cmath>

namespace gh {
namespace {

// Linear interpolation between closest ranks.
double Quantile(const std::vector<double>& sorted, double q) {
  if (sorted.size() == 1) return sorted[0];
  double pos = q * static_cast<double>(sorted.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

}  // namespace

TimingStats SummarizeTimings(std::vector<double> samples_us) {
  TimingStats stats;
  if (samples_us.empty()) return stats;
  stats.samples_us = samples_us;
  std::sort(samples_us.begin(), samples_us.end());
  stats.samples = static_cast<int>(samples_us.size());
  stats.min_us = samples_us.front();
  stats.max_us = samples_us.back();
  stats.p10_us = Quantile(samples_us, 0.10);
  stats.median_us = Quantile(samples_us, 0.50);
  stats.p90_us = Quantile(samples_us, 0.90);
  return stats;
}

std::vector<Metric> TimingMetrics(const TimingStats& stats, double bytes_per_iteration) {
  std::vector<Metric> metrics = {
      {"time_median_us", stats.median_us, "us"}, {"time_min_us", stats.min_us, "us"},
      {"time_p10_us", stats.p10_us, "us"},       {"time_p90_us", stats.p90_us, "us"},
      {"time_max_us", stats.max_us, "us"},       {"iterations", double(stats.samples), "count"},
  };
  metrics[0].samples = stats.samples_us;
  if (bytes_per_iteration > 0 && stats.median_us > 0) {
    Metric bandwidth{"bandwidth_GBps", bytes_per_iteration / (stats.median_us * 1e3), "GB/s"};
    for (double us : stats.samples_us) {
      if (us > 0) bandwidth.samples.push_back(bytes_per_iteration / (us * 1e3));
    }
    metrics.push_back(std::move(bandwidth));
  }
  return metrics;
}

const std::vector<std::string>& SampledMetricNames() {
  static const std::vector<std::string> names = {"bandwidth_GBps", "bandwidth_graph_GBps", "time_graph_mean_us",
                                                 "time_median_us"};
  return names;
}

}  // namespace gh
