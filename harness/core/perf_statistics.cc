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

// The regularized incomplete beta function I_x(a, b), by its continued fraction (modified
// Lentz), on the side of x where the fraction converges fast.
double IncompleteBeta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  if (x > (a + 1) / (a + b + 2)) return 1 - IncompleteBeta(b, a, 1 - x);
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) +
                                b * std::log1p(-x)) / a;
  constexpr double kTiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  d = 1 / (std::abs(d) < kTiny ? kTiny : d);
  double fraction = d;
  for (int m = 1; m <= 300; ++m) {
    for (int step = 0; step < 2; ++step) {
      const double numerator = step == 0 ? m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
                                         : -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
      d = 1 + numerator * d;
      d = 1 / (std::abs(d) < kTiny ? kTiny : d);
      c = 1 + numerator / c;
      if (std::abs(c) < kTiny) c = kTiny;
      fraction *= c * d;
    }
    if (std::abs(c * d - 1) < 1e-15) break;
  }
  return front * fraction;
}

}  // namespace

double StudentTTwoSidedP(double t, double df) {
  if (!std::isfinite(t)) return 0;
  return IncompleteBeta(df / 2, 0.5, df / (df + t * t));
}

double StudentTQuantile(double p, double df) {
  if (p == 0.5) return 0;
  if (p < 0.5) return -StudentTQuantile(1 - p, df);
  // P(T <= q) = 1 - p_two_sided(q) / 2 grows with q: bisect on q in [0, hi].
  const double target = 2 * (1 - p);
  double lo = 0, hi = 1;
  while (StudentTTwoSidedP(hi, df) > target && hi < 1e12) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (StudentTTwoSidedP(mid, df) > target ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

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

ProcessRatio ProcessMedianRatio(const std::vector<std::vector<double>>& now,
                                const std::vector<std::vector<double>>& before, double confidence) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  ProcessRatio result{nan, nan, nan, 1, 0, 0};
  // The logs of the process medians of one side; false when one is not positive.
  auto log_medians = [](const std::vector<std::vector<double>>& processes, std::vector<double>& logs) {
    for (const std::vector<double>& samples : processes) {
      if (samples.empty()) continue;
      const double median = MedianOf(samples);
      if (!(median > 0)) return false;
      logs.push_back(std::log(median));
    }
    return true;
  };
  std::vector<double> now_logs, before_logs;
  if (!log_medians(now, now_logs) || !log_medians(before, before_logs)) return result;
  result.now_processes = static_cast<int>(now_logs.size());
  result.before_processes = static_cast<int>(before_logs.size());
  const double n_now = static_cast<double>(now_logs.size()), n_before = static_cast<double>(before_logs.size());
  if (n_now < 1 || n_before < 1 || n_now + n_before < 3) return result;
  auto mean = [](const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size()); };
  const double mean_now = mean(now_logs), mean_before = mean(before_logs);
  double squares = 0;
  for (double v : now_logs) squares += (v - mean_now) * (v - mean_now);
  for (double v : before_logs) squares += (v - mean_before) * (v - mean_before);
  const double df = n_now + n_before - 2;
  const double standard_error = std::sqrt(squares / df * (1 / n_now + 1 / n_before));
  const double difference = mean_now - mean_before;
  result.ratio = std::exp(difference);
  if (!(standard_error > 0)) {  // every process of each side at one level: no noise to weigh
    result.low = result.high = result.ratio;
    result.p_value = difference == 0 ? 1 : 0;
    return result;
  }
  const double half_width = StudentTQuantile(1 - (1 - confidence) / 2, df) * standard_error;
  result.low = std::exp(difference - half_width);
  result.high = std::exp(difference + half_width);
  result.p_value = StudentTTwoSidedP(difference / standard_error, df);
  return result;
}

}  // namespace gh
