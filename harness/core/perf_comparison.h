// A point's metrics compared with the baseline's, sample distribution against sample
// distribution (core/perf_statistics.h). Samples stay grouped by the process that measured them:
// a process settles in its own level (on the H200 below 16 MiB two processes of one build differ
// by up to 76 %), which no test on one process's iterations can see. So:
// - with 3 processes or more in all (each side at least one), the test is on the process level
//   (pooled t test on the logs of process medians, at `process_significance`);
// - with one process per side, on the iterations (Mann-Whitney U below `significance`, and the
//   bootstrap interval of the ratio of medians excluding 1), and the change must also reach the
//   between-process floor `single_process_floor`, which the verdict text says.
// A change counts when it is significant and its interval reaches the threshold (the data show a
// change and cannot rule out one of the threshold's size). docs/reference/reports.md states the rule and
// docs/performance.md the measurements behind its defaults.
#ifndef GPUHARNESS_CORE_PERF_COMPARISON_H_
#define GPUHARNESS_CORE_PERF_COMPARISON_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/metric.h"

namespace gh {

struct PerfOptions {
  double threshold = 0.05;     // a change whose interval stays below this fraction is "no change"
  double significance = 0.05;  // one process per side: test level; interval at 1 - significance (95 %)
  // Several processes: test level of the process-level test (99 % interval). Stricter, because
  // with 3 processes per side a t test on bimodal process levels errs more often than its level.
  double process_significance = 0.01;
  // One process per side: the change must also be this large. Above every difference between
  // two processes' medians measured on the H200 at >= 16 MiB (5.6 %); below 16 MiB they differ
  // by up to 76 % and one process per side is no measurement (docs/performance.md).
  double single_process_floor = 0.08;
  // Processes per side the defaults need (docs/performance.md); the verdict text says when a
  // side has fewer.
  int recommended_processes = 3;
  // Whether a larger value is better, when the caller knows it otherwise than by the unit (the
  // perf bisect's --direction); unset: HigherIsBetter(metric).
  std::optional<bool> higher_is_better;
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
  // Processes whose samples were compared; with one per side the test was on the iterations.
  int baseline_processes = 1, now_processes = 1;
  bool process_level() const { return baseline_processes + now_processes >= 3; }
  double single_process_floor = 0;  // the floor applied (one process per side), for Text()
  int recommended_processes = 0;    // PerfOptions', for Text()
  // How much worse now is, as a fraction (0.072: 7.2 % slower; negative: faster), and the
  // confidence interval of that fraction.
  double worse = 0, worse_low = 0, worse_high = 0;
  double p_value = 1;
  double confidence = 0.95;
  PerfVerdict verdict = PerfVerdict::kNoChange;
  // "slower by 7.2 % (95 % CI 5.1–9.0 %)", "faster by 3.0 % (95 % CI 2.1–3.9 %)",
  // "no change (+0.4 %, 95 % CI -0.3–1.1 %)", followed by how many processes, when fewer than
  // recommended: ", 1 process per side: counts only beyond 8 % (3 per side recommended)",
  // ", 2 vs 2 processes (3 per side recommended)".
  std::string Text() const;
};

// "5%" or "5 %" -> 0.05. InvalidArgument "expected a percentage above 0 and below 100 such as
// 5%, got 'x'" unless 0 < value < 100; a bare number ("0.05": 5 % or 0.05 %?) is refused:
// "expected a percentage with its % sign such as 5%, got '0.05'".
absl::StatusOr<double> ParsePercent(std::string_view text);

// Appends each metric's samples of `from` to the metric of the same name in `into` (added,
// value and unit from `from`, when missing): several trials' measurements as one.
void PoolMetricSamples(const std::vector<Metric>& from, std::vector<Metric>& into);

// One metric's samples of a key, kept apart by the process that measured them.
struct ProcessSamples {
  std::string name;
  std::string unit;
  std::vector<std::vector<double>> processes;
  int last_trial = -1;  // the trial index of the last samples added
  // Record::process -> index into `processes`, for records that say their process.
  std::map<int, size_t> by_process;
};

// Adds the samples of trial `trial` (Record::trial) of a key, measured by process `process`
// (Record::process). A record that names its process joins that process's samples. One that
// does not (a cell run once, older records) starts a new process when its trial index does not
// follow the previous one of its metric: one job numbers its trials of a point 0, 1, ..., so
// records.jsonl files of separate runs, one after the other, are separate processes. (Trials
// that one run isolated in processes of their own count as one process.)
void AddTrialSamples(const std::vector<Metric>& metrics, int trial, std::optional<int> process,
                     std::vector<ProcessSamples>& into);

// The change from `before` to `now` of one metric from their samples; both must have samples.
MetricChange CompareProcessSamples(const ProcessSamples& before, const ProcessSamples& now,
                                   const PerfOptions& options);
// The same with each side's samples from one process.
MetricChange CompareMetricSamples(const Metric& before, const Metric& now, const PerfOptions& options);

// Every metric with samples on both sides, in `now`'s order.
std::vector<MetricChange> CompareMetrics(const std::vector<ProcessSamples>& before,
                                         const std::vector<ProcessSamples>& now, const PerfOptions& options);
// The same with each side's samples from one process.
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
