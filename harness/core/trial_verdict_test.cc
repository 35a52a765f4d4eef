#include "harness/core/trial_verdict.h"

#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "harness/core/scenario_loader.h"
#include "harness/core/testdata/fake_kinds.h"

namespace gh {
namespace {

PointOutcome Trial(Outcome outcome, std::string signature = "") {
  PointOutcome trial;
  trial.outcome = outcome;
  trial.signature = std::move(signature);
  return trial;
}

// The seed's first row: 10 trials, 9 capture failures and 1 crash.
std::vector<PointOutcome> SeedRow() {
  std::vector<PointOutcome> trials;
  for (int i = 0; i < 9; ++i) trials.push_back(Trial(Outcome::kFail, "swallowed 200/200"));
  trials.push_back(Trial(Outcome::kCrash, "SIGSEGV in trial 7"));
  return trials;
}

TEST(TrialVerdictTest, CountsFailuresByLabelAndSignature) {
  const TrialSummary summary = SummarizeTrials(SeedRow());
  EXPECT_EQ(summary.trials, 10);
  EXPECT_EQ(summary.failed, 10);
  EXPECT_EQ(summary.skipped, 0);
  EXPECT_EQ(summary.worst, Outcome::kCrash);
  EXPECT_EQ(summary.labels, (std::map<std::string, int>{{"swallowed", 9}, {"crash", 1}}));
  EXPECT_EQ(summary.signatures, (std::map<std::string, int>{{"swallowed 200/200", 9},
                                                            {"SIGSEGV in trial 7", 1}}));
  EXPECT_EQ(RenderTrialSummary(summary), "10 trials, 10 failed (9 swallowed, 1 crash)");
}

TEST(TrialVerdictTest, LabelsErrorsByTheirNameAndTimeoutsByOutcome) {
  EXPECT_EQ(FailureLabel(Outcome::kError,
                         "cudaErrorStreamCaptureInvalidated in cudaStreamEndCapture"),
            "cudaErrorStreamCaptureInvalidated");
  EXPECT_EQ(FailureLabel(Outcome::kError, "ncclSystemError: socket closed"), "ncclSystemError");
  EXPECT_EQ(FailureLabel(Outcome::kTimeout, "timeout in capture"), "timeout");
  EXPECT_EQ(FailureLabel(Outcome::kFail, ""), "fail");
}

TEST(TrialVerdictTest, AllPassRendersWithoutLabels) {
  const TrialSummary summary =
      SummarizeTrials({Trial(Outcome::kPass), Trial(Outcome::kPass), Trial(Outcome::kSkip, "x")});
  EXPECT_EQ(summary.trials, 2);
  EXPECT_EQ(summary.failed, 0);
  EXPECT_EQ(summary.skipped, 1);
  EXPECT_EQ(RenderTrialSummary(summary), "2 trials, 0 failed, 1 skipped");
  EXPECT_FALSE(TrialsFailed(summary, TrialVerdictRule{}));
}

TEST(TrialVerdictTest, LabelsSortedByCountThenName) {
  const TrialSummary summary = SummarizeTrials(
      {Trial(Outcome::kError, "cudaErrorStreamCaptureImplicit"), Trial(Outcome::kTimeout, "t"),
       Trial(Outcome::kTimeout, "t"), Trial(Outcome::kPass),
       Trial(Outcome::kError, "cudaErrorStreamCaptureInvalidated")});
  EXPECT_EQ(RenderTrialSummary(summary),
            "5 trials, 4 failed (2 timeout, 1 cudaErrorStreamCaptureImplicit, "
            "1 cudaErrorStreamCaptureInvalidated)");
}

TEST(TrialVerdictTest, AnyFailureFailsOnOneFailedTrial) {
  std::vector<PointOutcome> trials(9, Trial(Outcome::kPass));
  const TrialVerdictRule any;
  EXPECT_FALSE(TrialsFailed(SummarizeTrials(trials), any));
  trials.push_back(Trial(Outcome::kFail, "swallowed 1/200"));
  EXPECT_TRUE(TrialsFailed(SummarizeTrials(trials), any));
}

TEST(TrialVerdictTest, FailureRateAboveIsStrict) {
  const TrialVerdictRule rule{TrialVerdictRule::Kind::kFailureRateAbove, 0.2};
  std::vector<PointOutcome> trials(8, Trial(Outcome::kPass));
  trials.push_back(Trial(Outcome::kFail, "swallowed 3/200"));
  trials.push_back(Trial(Outcome::kCrash, "SIGSEGV"));
  EXPECT_FALSE(TrialsFailed(SummarizeTrials(trials), rule));  // 2/10 is not above 0.2
  trials[0] = Trial(Outcome::kError, "cudaErrorStreamCaptureInvalidated");
  EXPECT_TRUE(TrialsFailed(SummarizeTrials(trials), rule));  // 3/10 is
}

TEST(TrialVerdictTest, NoTrialRanIsNotAFailure) {
  EXPECT_FALSE(TrialsFailed(SummarizeTrials({}), TrialVerdictRule{}));
  EXPECT_FALSE(TrialsFailed(SummarizeTrials({}),
                            TrialVerdictRule{TrialVerdictRule::Kind::kFailureRateAbove, 0}));
}

TEST(TrialVerdictTest, ExpectationsOnTrials) {
  const TrialVerdictRule any;
  const TrialSummary seed = SummarizeTrials(SeedRow());
  Expectation fail_swallowed{Outcome::kFail, std::string("^swallowed \\d+/\\d+$"), ""};
  EXPECT_TRUE(TrialsMeetExpectation(fail_swallowed, seed, any));
  Expectation fail_other{Outcome::kFail, std::string("cudaErrorStreamCaptureImplicit"), ""};
  EXPECT_FALSE(TrialsMeetExpectation(fail_other, seed, any));
  EXPECT_FALSE(TrialsMeetExpectation(Expectation{}, seed, any));  // expected pass

  const TrialSummary clean = SummarizeTrials(std::vector<PointOutcome>(10, Trial(Outcome::kPass)));
  EXPECT_TRUE(TrialsMeetExpectation(Expectation{}, clean, any));
  EXPECT_FALSE(TrialsMeetExpectation(fail_swallowed, clean, any));

  Expectation skip{Outcome::kSkip, std::nullopt, ""};
  EXPECT_TRUE(TrialsMeetExpectation(skip, SummarizeTrials({Trial(Outcome::kSkip, "no GPU")}), any));
  EXPECT_FALSE(TrialsMeetExpectation(skip, clean, any));
}

// Issue 15: one trial the machinery failed leaves the point unjudged, whatever was expected.
TEST(TrialVerdictTest, AnInfraTrialMeetsNoExpectation) {
  const TrialVerdictRule any;
  const TrialVerdictRule rate{TrialVerdictRule::Kind::kFailureRateAbove, 0.5};
  std::vector<PointOutcome> trials(3, Trial(Outcome::kPass));
  trials.push_back(Trial(Outcome::kInfra, "infrastructure: job ended before recording anything"));
  const TrialSummary summary = SummarizeTrials(trials);
  EXPECT_EQ(summary.worst, Outcome::kInfra);
  EXPECT_EQ(summary.failed, 1);
  EXPECT_EQ(summary.labels, (std::map<std::string, int>{{"infra", 1}}));
  EXPECT_FALSE(TrialsFailed(summary, rate));  // 1 of 4 is not above 0.5...
  EXPECT_FALSE(TrialsMeetExpectation(Expectation{}, summary, rate));  // ...yet pass is not met
  for (Outcome expected : AllOutcomes()) {
    EXPECT_FALSE(TrialsMeetExpectation(Expectation{expected, std::nullopt, ""}, summary, any))
        << OutcomeName(expected);
  }
}

TEST(TrialVerdictTest, RuleNames) {
  EXPECT_EQ(TrialVerdictRule{}.ToString(), "any_failure");
  EXPECT_EQ((TrialVerdictRule{TrialVerdictRule::Kind::kFailureRateAbove, 0.2}.ToString()),
            "failure_rate_above 0.2");
}

class VerdictLoaderTest : public ::testing::Test {
 protected:
  absl::StatusOr<std::vector<ScenarioSpec>> Load(const std::string& yaml) {
    return LoadScenarioText(yaml, "scenarios/x.yaml", registry_);
  }
  ScenarioRegistry registry_ = testing::MakeFakeRegistry();
};

TEST_F(VerdictLoaderTest, DefaultIsAnyFailure) {
  auto specs = Load("name: a\nkind: solo\ntrials: 10\n");
  ASSERT_TRUE(specs.ok()) << specs.status();
  EXPECT_EQ((*specs)[0].trials, 10);
  EXPECT_EQ((*specs)[0].verdict.kind, TrialVerdictRule::Kind::kAnyFailure);
}

TEST_F(VerdictLoaderTest, AnyFailureAndRate) {
  auto any = Load("name: a\nkind: solo\ntrials: 10\nverdict: any_failure\n");
  ASSERT_TRUE(any.ok()) << any.status();
  EXPECT_EQ((*any)[0].verdict.kind, TrialVerdictRule::Kind::kAnyFailure);
  auto rate = Load("name: a\nkind: solo\ntrials: 10\nverdict: {failure_rate_above: 0.2}\n");
  ASSERT_TRUE(rate.ok()) << rate.status();
  EXPECT_EQ((*rate)[0].verdict.kind, TrialVerdictRule::Kind::kFailureRateAbove);
  EXPECT_DOUBLE_EQ((*rate)[0].verdict.threshold, 0.2);
}

TEST_F(VerdictLoaderTest, BadVerdictsNameFileLineColumnAndKey) {
  auto word = Load("name: a\nkind: solo\nverdict: most\n");
  ASSERT_FALSE(word.ok());
  EXPECT_EQ(word.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(word.status().message(),
            "scenarios/x.yaml:3:10: verdict: expected any_failure or {failure_rate_above: RATE} "
            "with RATE in [0, 1), got 'most'");
  auto key = Load("name: a\nkind: solo\nverdict: {failure_rate: 0.2}\n");
  ASSERT_FALSE(key.ok());
  EXPECT_EQ(key.status().message(),
            "scenarios/x.yaml:3:11: verdict: unknown key (expected any_failure or "
            "{failure_rate_above: RATE} with RATE in [0, 1))");
  auto rate = Load("name: a\nkind: solo\nverdict:\n  failure_rate_above: 1.5\n");
  ASSERT_FALSE(rate.ok());
  EXPECT_EQ(rate.status().message(),
            "scenarios/x.yaml:4:23: verdict.failure_rate_above: expected a rate in [0, 1), got "
            "'1.5'");
}

}  // namespace
}  // namespace gh
