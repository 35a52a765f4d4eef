#include "harness/core/perf_statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

namespace gh {
namespace {

// The median of `values`, reordering them (nth_element); values must not be empty.
double MedianInPlace(std::vector<double>& values) {
  const size_t n = values.size();
  const size_t mid = n / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (n % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

// Percentile of sorted values, linear between closest ranks (numpy's default).
double Percentile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

double MedianOf(std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  return MedianInPlace(values);
}

MannWhitneyResult MannWhitneyU(const std::vector<double>& a, const std::vector<double>& b) {
  MannWhitneyResult result;
  const double n1 = static_cast<double>(a.size());
  const double n2 = static_cast<double>(b.size());
  if (a.empty() || b.empty()) return result;
  // Midranks over the pooled values; tie groups feed the variance correction.
  std::vector<std::pair<double, int>> pooled;  // value, 0 = a, 1 = b
  pooled.reserve(a.size() + b.size());
  for (double v : a) pooled.push_back({v, 0});
  for (double v : b) pooled.push_back({v, 1});
  std::sort(pooled.begin(), pooled.end());
  double rank_sum_a = 0, tie_term = 0;
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double midrank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    const double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    for (size_t k = i; k < j; ++k) {
      if (pooled[k].second == 0) rank_sum_a += midrank;
    }
    i = j;
  }
  const double n = n1 + n2;
  result.u = rank_sum_a - n1 * (n1 + 1) / 2;
  const double mean = n1 * n2 / 2;
  const double variance = n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  if (variance <= 0) return result;
  // scipy's form: the larger of U1 and U2, less the continuity correction, gives z >= -0.5/sd.
  const double u_big = std::max(result.u, n1 * n2 - result.u);
  result.z = (u_big - mean - 0.5) / std::sqrt(variance);
  result.p_value = std::min(1.0, std::erfc(result.z / std::sqrt(2.0)));
  return result;
}

RatioInterval BootstrapMedianRatio(const std::vector<double>& now, const std::vector<double>& before,
                                   double confidence, int resamples, uint64_t seed) {
  RatioInterval interval;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double before_median = MedianOf(before);
  if (now.empty() || before.empty() || !(before_median > 0)) return {nan, nan, nan};
  interval.ratio = MedianOf(now) / before_median;
  std::mt19937_64 gen(seed);
  // Modulo keeps the draw defined by mt19937_64 alone (std distributions differ by library).
  auto resample_median = [&](const std::vector<double>& values, std::vector<double>& scratch) {
    for (double& slot : scratch) slot = values[gen() % values.size()];
    return MedianInPlace(scratch);
  };
  std::vector<double> now_scratch(now.size()), before_scratch(before.size()), ratios;
  ratios.reserve(static_cast<size_t>(std::max(resamples, 1)));
  for (int i = 0; i < resamples; ++i) {
    const double top = resample_median(now, now_scratch);
    const double bottom = resample_median(before, before_scratch);
    if (bottom > 0) ratios.push_back(top / bottom);
  }
  if (ratios.empty()) return {interval.ratio, nan, nan};
  std::sort(ratios.begin(), ratios.end());
  const double tail = (1 - confidence) / 2;
  interval.low = Percentile(ratios, tail);
  interval.high = Percentile(ratios, 1 - tail);
  return interval;
}

}  // namespace gh
