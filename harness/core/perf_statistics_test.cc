#include "harness/core/perf_statistics.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace gh {
namespace {

// Expected values from scipy 1.17.1:
//   scipy.stats.mannwhitneyu(a, b, method="asymptotic", use_continuity=True)
TEST(MannWhitneyUTest, MatchesScipyWithoutTies) {
  MannWhitneyResult r = MannWhitneyU({1.1, 2.2, 3.3, 4.4, 5.5, 6.6, 7.7}, {2, 4, 6, 8, 10, 12});
  EXPECT_DOUBLE_EQ(r.u, 12.0);
  EXPECT_NEAR(r.p_value, 0.22463863892378044, 1e-12);
}

TEST(MannWhitneyUTest, MatchesScipyWithTies) {
  MannWhitneyResult r = MannWhitneyU({1, 2, 2, 3, 3, 3, 4, 5}, {3, 4, 4, 5, 5, 6, 7, 7, 8});
  EXPECT_DOUBLE_EQ(r.u, 7.5);
  EXPECT_NEAR(r.p_value, 0.006373133838085873, 1e-12);
}

// numpy.random.default_rng(1): normal(100, 5, 40) and normal(103, 5, 50), rounded to 3 places.
const std::vector<double> kBefore = {
    101.728, 104.108, 101.652, 93.484,  104.527, 102.232, 97.315,  102.906, 101.823, 101.471,
    100.142, 102.734, 96.318,  99.185,  97.589,  102.994, 100.199, 98.538,  96.09,   98.714,
    100.041, 98.622,  106.47,  105.034, 86.444,  90.555,  99.126,  97.889,  101.068, 101.087,
    110.589, 94.44,   98.112,  110.214, 103.234, 103.315, 97.43,   91.76,   100.837, 100.545};
const std::vector<double> kNow = {
    96.863,  99.584,  102.64,  98.276,  102.509, 103.477, 103.178, 100.469, 105.969, 107.456,
    104.604, 98.909,  106.658, 100.493, 107.396, 97.641,  107.572, 102.9,   96.756,  101.431,
    103.271, 104.364, 98.089,  97.463,  103.998, 100.666, 104.178, 106.798, 94.756,  104.272,
    109.123, 101.512, 98.946,  106.761, 104.267, 107.479, 101.274, 95.591,  102.45,  100.771,
    106.877, 103.968, 94.846,  97.024,  107.419, 106.399, 99.799,  102.995, 105.228, 105.342};

TEST(MannWhitneyUTest, MatchesScipyOnNormalSamplesInEitherOrder) {
  MannWhitneyResult r = MannWhitneyU(kNow, kBefore);
  EXPECT_DOUBLE_EQ(r.u, 1317.0);
  EXPECT_NEAR(r.p_value, 0.010170629782620047, 1e-12);
  MannWhitneyResult swapped = MannWhitneyU(kBefore, kNow);
  EXPECT_DOUBLE_EQ(swapped.u, 683.0);
  EXPECT_NEAR(swapped.p_value, r.p_value, 1e-15);
}

TEST(MannWhitneyUTest, EmptyOrAllTiedSamplesGiveNoEvidence) {
  EXPECT_EQ(MannWhitneyU({}, {1, 2}).p_value, 1.0);
  EXPECT_EQ(MannWhitneyU({3, 3, 3}, {3, 3}).p_value, 1.0);
}

TEST(MedianOfTest, OddEvenAndEmpty) {
  EXPECT_EQ(MedianOf({3, 1, 2}), 2);
  EXPECT_EQ(MedianOf({4, 1, 3, 2}), 2.5);
  EXPECT_TRUE(std::isnan(MedianOf({})));
}

TEST(BootstrapMedianRatioTest, PointEstimateIsTheRatioOfMediansAndTheIntervalHoldsIt) {
  RatioInterval r = BootstrapMedianRatio(kNow, kBefore);
  // numpy: median(now) / median(before) = 1.0256595464870681
  EXPECT_NEAR(r.ratio, 1.0256595464870681, 1e-12);
  EXPECT_LT(r.low, r.ratio);
  EXPECT_GT(r.high, r.ratio);
  // The true ratio of the generating distributions' medians, 1.03, lies inside.
  EXPECT_LT(r.low, 1.03);
  EXPECT_GT(r.high, 1.03);
  EXPECT_GT(r.high - r.low, 0.005);
  EXPECT_LT(r.high - r.low, 0.08);
}

TEST(BootstrapMedianRatioTest, TheSameSeedGivesTheSameIntervalAndAnotherSeedADifferentOne) {
  RatioInterval a = BootstrapMedianRatio(kNow, kBefore, 0.95, 500, 5);
  RatioInterval b = BootstrapMedianRatio(kNow, kBefore, 0.95, 500, 5);
  RatioInterval c = BootstrapMedianRatio(kNow, kBefore, 0.95, 500, 6);
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  EXPECT_TRUE(a.low != c.low || a.high != c.high);
}

TEST(BootstrapMedianRatioTest, AShiftOfTenPercentIsSeparatedFromOne) {
  std::vector<double> slower;
  for (double v : kBefore) slower.push_back(v * 1.10);
  RatioInterval r = BootstrapMedianRatio(slower, kBefore);
  EXPECT_NEAR(r.ratio, 1.10, 1e-12);
  EXPECT_GT(r.low, 1.0);
  EXPECT_LT(r.low, 1.10);
  EXPECT_GT(r.high, 1.10);
}

TEST(BootstrapMedianRatioTest, EmptyOrNonPositiveBaselineGivesNaN) {
  EXPECT_TRUE(std::isnan(BootstrapMedianRatio({1, 2}, {}).ratio));
  EXPECT_TRUE(std::isnan(BootstrapMedianRatio({1, 2}, {0, 0, 0}).ratio));
}

// Expected values from scipy 1.17.1: 2 * scipy.stats.t.sf(t, df) and scipy.stats.t.ppf(p, df).
TEST(StudentTTest, MatchesScipy) {
  EXPECT_NEAR(StudentTTwoSidedP(2.0, 4), 0.11611652351681556, 1e-12);
  EXPECT_NEAR(StudentTTwoSidedP(-3.35, 1), 0.18467507682102285, 1e-12);
  EXPECT_NEAR(StudentTTwoSidedP(0.5, 30), 0.6207230048851272, 1e-12);
  EXPECT_DOUBLE_EQ(StudentTTwoSidedP(0, 7), 1.0);
  EXPECT_NEAR(StudentTQuantile(0.995, 4), 4.604094871349992, 1e-9);
  EXPECT_NEAR(StudentTQuantile(0.975, 1), 12.706204736174694, 1e-9);
  EXPECT_NEAR(StudentTQuantile(0.975, 100), 1.9839715185235518, 1e-9);
  EXPECT_NEAR(StudentTQuantile(0.025, 100), -1.9839715185235518, 1e-9);
}

// scipy.stats.ttest_ind on the logs of the process medians (10.0, 11.0, 10.5 against 12.05,
// 12.45, 11.9), and exp(difference -+ t.ppf(0.975, 4) * standard error) for the interval.
TEST(ProcessMedianRatioTest, IsAPooledTTestOnTheLogsOfProcessMedians) {
  const std::vector<std::vector<double>> before = {{10, 10.2, 9.9}, {11, 11.1, 10.9}, {10.5, 10.4, 10.6}};
  const std::vector<std::vector<double>> now = {{12, 12.1}, {12.5, 12.4}, {11.8, 11.9, 12}};
  ProcessRatio r = ProcessMedianRatio(now, before, 0.95);
  EXPECT_EQ(r.now_processes, 3);
  EXPECT_EQ(r.before_processes, 3);
  EXPECT_NEAR(r.ratio, 1.1562199496362602, 1e-12);
  EXPECT_NEAR(r.low, 1.061941489876542, 1e-9);
  EXPECT_NEAR(r.high, 1.2588683884008465, 1e-9);
  EXPECT_NEAR(r.p_value, 0.009049215330034284, 1e-10);
}

TEST(ProcessMedianRatioTest, TightProcessesAtDifferentLevelsAreNotAChangeOfMany) {
  // Two processes per side, every iteration within 0.1 % of its process's level, but the levels
  // of one side's processes 20 % apart: the 10 % difference between the sides is noise.
  const std::vector<std::vector<double>> before = {std::vector<double>(50, 10.0), std::vector<double>(50, 12.0)};
  const std::vector<std::vector<double>> now = {std::vector<double>(50, 11.0), std::vector<double>(50, 13.2)};
  ProcessRatio r = ProcessMedianRatio(now, before, 0.99);
  EXPECT_NEAR(r.ratio, 1.1, 1e-12);
  EXPECT_GT(r.p_value, 0.01);
  EXPECT_LT(r.low, 1.0);
}

TEST(ProcessMedianRatioTest, NeedsAProcessOnEachSideAndThreeInAll) {
  EXPECT_TRUE(std::isnan(ProcessMedianRatio({{1, 2}}, {{1, 2}}).ratio));
  EXPECT_TRUE(std::isnan(ProcessMedianRatio({{1, 2}, {2, 3}, {}}, {{}}).ratio));
  EXPECT_TRUE(std::isnan(ProcessMedianRatio({{1, 2}, {0, 0}}, {{1, 2}}).ratio));  // a zero median
  ProcessRatio r = ProcessMedianRatio({{2}, {2}}, {{1}});  // no spread at all: exact
  EXPECT_DOUBLE_EQ(r.ratio, 2.0);
  EXPECT_DOUBLE_EQ(r.low, 2.0);
  EXPECT_DOUBLE_EQ(r.p_value, 0.0);
}

}  // namespace
}  // namespace gh
