#include "harness/bisect/sprt.h"

#include <cmath>

#include "gtest/gtest.h"

namespace gh {
namespace {

// At `trials` trials with `failures` of them, the cap (max_trials), not a bound, decides:
// `decision`.
void ExpectTruncatedTo(const SprtConfig& config, int trials, int failures, SprtDecision decision) {
  SCOPED_TRACE(testing::Message() << failures << " failures in " << trials << " trials");
  SprtState state = EvaluateSprt(config, trials, failures);
  EXPECT_EQ(state.decision, decision);
  EXPECT_TRUE(state.truncated);
}

TEST(SprtTest, DefaultBoundsAreLogsOfTheErrorRates) {
  SprtConfig config;
  EXPECT_NEAR(SprtUpperBound(config), std::log(0.99 / 0.01), 1e-12);
  EXPECT_NEAR(SprtLowerBound(config), std::log(0.01 / 0.99), 1e-12);
}

TEST(SprtTest, TwoFailuresMakeADefaultVersionBad) {
  SprtConfig config;  // each failure adds log(30) = 3.40, the bound is log(99) = 4.60
  EXPECT_EQ(EvaluateSprt(config, 1, 1).decision, SprtDecision::kContinue);
  SprtState state = EvaluateSprt(config, 2, 2);
  EXPECT_EQ(state.decision, SprtDecision::kBad);
  EXPECT_FALSE(state.truncated);
  EXPECT_NEAR(state.llr, 2 * std::log(30.0), 1e-12);
}

TEST(SprtTest, FourteenPassesMakeADefaultVersionGood) {
  SprtConfig config;  // each pass adds log(0.7 / 0.99) = -0.3466; the bound is -4.595
  EXPECT_EQ(EvaluateSprt(config, 13, 0).decision, SprtDecision::kContinue);
  EXPECT_EQ(EvaluateSprt(config, 14, 0).decision, SprtDecision::kGood);
}

TEST(SprtTest, MixedEvidenceNeedsMoreTrials) {
  SprtConfig config;
  // One failure then passes: 3.40 - 0.3466 k reaches -4.595 only at k = 24 > cap 20.
  EXPECT_EQ(EvaluateSprt(config, 10, 1).decision, SprtDecision::kContinue);
  // At the cap the llr is 3.40 - 19 * 0.3466 = -3.18 < 0: truncated to good.
  ExpectTruncatedTo(config, 20, 1, SprtDecision::kGood);
  // Three failures in twenty: 10.20 - 17 * 0.3466 = 4.31 < 4.60, truncated to bad.
  ExpectTruncatedTo(config, 20, 3, SprtDecision::kBad);
}

TEST(SprtTest, TruncationFollowsTheSignOfTheLlr) {
  SprtConfig config;
  config.max_trials = 1;
  ExpectTruncatedTo(config, 1, 1, SprtDecision::kBad);
  ExpectTruncatedTo(config, 1, 0, SprtDecision::kGood);
}

TEST(SprtTest, MinTrialsDelaysEveryDecision) {
  SprtConfig config;
  config.min_trials = 5;
  EXPECT_EQ(EvaluateSprt(config, 4, 4).decision, SprtDecision::kContinue);
  EXPECT_EQ(EvaluateSprt(config, 5, 5).decision, SprtDecision::kBad);
}

TEST(SprtTest, ValidateNamesTheBadField) {
  SprtConfig config;
  EXPECT_TRUE(config.Validate().ok());
  config.p_bad = 0.005;
  EXPECT_EQ(config.Validate().message(), "p_bad: must be in (p_good=0.01, 1), got 0.005");
  config = SprtConfig();
  config.alpha = 0.6;
  EXPECT_EQ(config.Validate().message(), "alpha: must be in (0, 0.5), got 0.6");
  config = SprtConfig();
  config.max_trials = 0;
  EXPECT_EQ(config.Validate().message(), "max_trials: must be >= min_trials (1), got 0");
  config = SprtConfig();
  config.p_good = 0;
  EXPECT_EQ(config.Validate().message(), "p_good: must be in (0, 1), got 0");
}

}  // namespace
}  // namespace gh
