// A named measurement with a unit (nvbench-style tagged metrics).
#ifndef GPUHARNESS_CORE_METRIC_H_
#define GPUHARNESS_CORE_METRIC_H_

#include <string>

namespace gh {

struct Metric {
  std::string name;  // "time_median_us", "time_min_us", "time_max_us", "bandwidth_GBps", ...
  double value = 0;
  std::string unit;  // "us", "GB/s", "count", "TFLOP/s"
};

}  // namespace gh

#endif  // GPUHARNESS_CORE_METRIC_H_
