// The statistics a performance comparison rests on: the Mann-Whitney U test (does one sample
// tend to be larger than the other?), a bootstrap confidence interval of the ratio of two
// samples' medians (by how much?), and a test on the process level (do several processes' own
// medians differ, given how much processes of one side differ from each other?). Plain numbers
// in and out; deterministic for a given seed.
#ifndef GPUHARNESS_CORE_PERF_STATISTICS_H_
#define GPUHARNESS_CORE_PERF_STATISTICS_H_

#include <cstdint>
#include <vector>

namespace gh {

// The median (the mean of the middle two for an even count); NaN for no values.
double MedianOf(std::vector<double> values);

struct MannWhitneyResult {
  double u = 0;        // U of the first sample: pairs (a, b) with a > b, ties counting 1/2
  double z = 0;        // the normal approximation's statistic, with continuity correction
  double p_value = 1;  // two-sided
};

// Mann-Whitney U with the normal approximation, tie correction and continuity correction: the
// values of scipy.stats.mannwhitneyu(a, b, method="asymptotic", use_continuity=True). p = 1
// when either sample is empty or every value is tied.
MannWhitneyResult MannWhitneyU(const std::vector<double>& a, const std::vector<double>& b);

struct RatioInterval {
  double ratio = 1;  // median(now) / median(before)
  double low = 1;    // the percentile bootstrap interval's ends
  double high = 1;
};

// The ratio of medians median(now) / median(before) and its `confidence` (0.95) percentile
// bootstrap interval from `resamples` resamplings of each side with replacement, drawn from
// std::mt19937_64 seeded with `seed` (the same inputs give the same interval everywhere).
// Both samples must be non-empty with positive medians; otherwise the ratio is NaN.
RatioInterval BootstrapMedianRatio(const std::vector<double>& now, const std::vector<double>& before,
                                   double confidence = 0.95, int resamples = 2000,
                                   uint64_t seed = 17);

// Student's t distribution with `df` > 0 degrees of freedom: the two-sided p of a statistic t
// (P(|T| >= |t|)), and the quantile q with P(T <= q) = `p` for 0 < p < 1.
double StudentTTwoSidedP(double t, double df);
double StudentTQuantile(double p, double df);

struct ProcessRatio {
  double ratio = 1;  // exp(mean log median(now process) - mean log median(baseline process))
  double low = 1;    // the t interval's ends
  double high = 1;
  double p_value = 1;  // two-sided, of "the two sides' processes have the same typical median"
  int now_processes = 0, before_processes = 0;
};

// Each side's samples grouped by the process that measured them (a process settles in its own
// level, so its samples are one observation of the between-process noise, not many): the
// ratio of the sides' geometric mean process medians, with a pooled two-sample t test on the
// logs of the process medians (n_now + n_before - 2 degrees of freedom) and its `confidence`
// interval. Needs a process with samples on each side and 3 in all; the ratio is NaN otherwise,
// or when a median is not positive. Processes without samples are left out.
ProcessRatio ProcessMedianRatio(const std::vector<std::vector<double>>& now,
                                const std::vector<std::vector<double>>& before, double confidence = 0.95);

}  // namespace gh

#endif  // GPUHARNESS_CORE_PERF_STATISTICS_H_
