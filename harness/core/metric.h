// A named measurement with a unit (nvbench-style tagged metrics).
#ifndef GPUHARNESS_CORE_METRIC_H_
#define GPUHARNESS_CORE_METRIC_H_

#include <string>
#include <vector>

namespace gh {

struct Metric {
  std::string name;  // "time_median_us", "time_min_us", "time_max_us", "bandwidth_GBps", ...
  double value = 0;
  std::string unit;  // "us", "GB/s", "count", "TFLOP/s"
  // The per-iteration values the metric summarizes, in `unit`, in the order they were taken
  // (time_median_us: every timed iteration's time; bandwidth_GBps: bytes over each of those
  // times). Empty for metrics that are no summary of iterations. Baseline comparisons and the
  // perf bisect test these distributions (core/perf_comparison.h), not two medians.
  std::vector<double> samples = {};  // "= {}": {name, value, unit} stays a complete initializer
};

}  // namespace gh

#endif  // GPUHARNESS_CORE_METRIC_H_
