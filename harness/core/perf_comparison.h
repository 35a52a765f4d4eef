// A point's metrics compared with the baseline's, sample distribution against sample
// distribution (core/perf_statistics.h): a change is reported only when it is both significant
// (Mann-Whitney U two-sided p below the significance, and the bootstrap interval of the ratio of
// medians excludes 1) and practical (the ratio's point estimate moves by at least the
// threshold). docs/reports.md states the rule and its defaults.
#ifndef GPUHARNESS_CORE_PERF_COMPARISON_H_
#define GPUHARNESS_CORE_PERF_COMPARISON_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/metric.h"

namespace gh {

struct PerfOptions {
  double threshold = 0.05;     // a change smaller than this fraction is "no change"
  double significance = 0.05;  // test level; the interval is at 1 - significance (95 %)
  bool warn_only = false;      // perf regressions are reported but leave the exit status alone
};

enum class PerfVerdict { kNoChange, kSlower, kFaster };
std::string_view PerfVerdictName(PerfVerdict verdict);  // "no change", "slower", "faster"

// Whether a larger value of the metric is better: by unit, times ("us", "ms", "s") are lower-is-
// better, everything else (GB/s, TFLOP/s, ratio) higher-is-better.
bool HigherIsBetter(const Metric& metric);

struct MetricChange {
  std::string metric;
  std::string unit;
  bool higher_is_better = false;
  double baseline_median = 0, now_median = 0;
  int baseline_samples = 0, now_samples = 0;
  // How much worse now is, as a fraction (0.072: 7.2 % slower; negative: faster), and the
  // confidence interval of that fraction.
  double worse = 0, worse_low = 0, worse_high = 0;
  double p_value = 1;
  double confidence = 0.95;
  PerfVerdict verdict = PerfVerdict::kNoChange;
  // "slower by 7.2 % (95 % CI 5.1–9.0 %)", "faster by 3.0 % (95 % CI 2.1–3.9 %)",
  // "no change (+0.4 %, 95 % CI -0.3–1.1 %)".
  std::string Text() const;
};

// "5%", "5 %" or "5" (percent) -> 0.05. InvalidArgument "expected a percentage such as 5%,
// got 'x'" unless 0 < value < 100.
absl::StatusOr<double> ParsePercent(std::string_view text);

// Appends each metric's samples of `from` to the metric of the same name in `into` (added,
// value and unit from `from`, when missing): several trials' measurements as one.
void PoolMetricSamples(const std::vector<Metric>& from, std::vector<Metric>& into);

// The change from `before` to `now` of one metric from their samples; both must have samples.
MetricChange CompareMetricSamples(const Metric& before, const Metric& now, const PerfOptions& options);

// Every metric with samples on both sides, in `now`'s order.
std::vector<MetricChange> CompareMetrics(const std::vector<Metric>& before,
                                         const std::vector<Metric>& now, const PerfOptions& options);

// What the numbers of a run were measured on, for IncomparableReason.
struct MeasuredOn {
  std::string backend;
  std::string hardware;  // GPU model, or "cpu: <model>"
  bool gpu_shared = false;
};

// Why two runs' metrics do not compare ("GPU NVIDIA H100 80GB HBM3 (baseline) vs NVIDIA H200",
// "ranks shared a GPU now, not in the baseline"), "" when they do. A side that did not record
// its hardware (older records) compares.
std::string IncomparableReason(const MeasuredOn& before, const MeasuredOn& now);

}  // namespace gh

#endif  // GPUHARNESS_CORE_PERF_COMPARISON_H_
