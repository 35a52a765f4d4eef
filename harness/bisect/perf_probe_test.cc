#include "harness/bisect/perf_probe.h"

#include <map>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gh {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// `n` samples of about `center` (sawtooth, +-3 %), shifted by `phase` so runs differ.
std::vector<double> Samples(double center, int n, int phase) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(center * (0.97 + 0.06 * (((i + phase) * 37) % n) / n));
  return out;
}

// Versions with fixed speeds; each trial is `per_trial` samples. Counts the trials run.
class FakeVersions : public TrialRunner {
 public:
  explicit FakeVersions(std::vector<double> speeds) : speeds_(std::move(speeds)) {}
  absl::StatusOr<std::vector<TrialResult>> RunTrials(const std::vector<Request>& batch) override {
    std::vector<TrialResult> out;
    for (const Request& r : batch) {
      ++trials[r.version];
      TrialResult t;
      t.point = "ring/np=1";
      t.detail = "probes/v/trial" + std::to_string(r.trial);
      if (speeds_[r.version] < 0) {
        t.outcome = Outcome::kCrash;
        t.signature = "crash (SIGSEGV)";
      } else {
        t.metrics = {{"time_median_us", speeds_[r.version], "us", Samples(speeds_[r.version], 40, r.trial)}};
      }
      out.push_back(t);
    }
    return out;
  }
  std::map<int, int> trials;

 private:
  std::vector<double> speeds_;
};

PerfHunt Hunt() {
  PerfHunt hunt;
  hunt.metric = "time_median_us";
  return hunt;
}

TEST(PerfProbeTest, JudgesEndsAndProbesAgainstHalfTheEndsDifference) {
  std::vector<double> good = Samples(100, 120, 0), bad = Samples(110, 120, 1);
  PerfJudgement end = JudgeBadEnd(Hunt(), false, good, bad);
  EXPECT_EQ(end.verdict, PerfClass::kLikeBad);
  EXPECT_NEAR(end.worse, 0.10, 0.01);
  EXPECT_NEAR(end.split, 0.05, 0.005);
  EXPECT_THAT(end.text, StartsWith("time_median_us slower by "));
  EXPECT_THAT(end.text, HasSubstr("than the good end"));
  EXPECT_EQ(JudgeProbe(Hunt(), false, good, bad, Samples(101, 120, 2), false).verdict, PerfClass::kLikeGood);
  EXPECT_EQ(JudgeProbe(Hunt(), false, good, bad, Samples(109, 120, 3), false).verdict, PerfClass::kLikeBad);
  // Right at the split: ambiguous until the cap, then by the point estimate.
  EXPECT_EQ(JudgeProbe(Hunt(), false, good, bad, Samples(105, 120, 4), false).verdict, PerfClass::kUndecided);
  PerfJudgement capped = JudgeProbe(Hunt(), false, good, bad, Samples(105.5, 120, 4), true);
  EXPECT_NE(capped.verdict, PerfClass::kUndecided);
  EXPECT_THAT(capped.text, HasSubstr("(decided at the cap)"));
  // A bad end within the threshold is not bad; lower-is-worse reads a drop as worse.
  EXPECT_EQ(JudgeBadEnd(Hunt(), false, good, Samples(102, 120, 1)).verdict, PerfClass::kLikeGood);
  EXPECT_EQ(JudgeBadEnd(Hunt(), true, good, Samples(90, 120, 1)).verdict, PerfClass::kLikeBad);
  EXPECT_EQ(JudgeBadEnd(Hunt(), true, good, bad).verdict, PerfClass::kLikeGood);
}

TEST(PerfProbeTest, TheRunnerMeasuresTheEndsFirstAndReportsSlowVersionsAsThePerfRegression) {
  FakeVersions versions({100, 101, 110, 110});
  PerfTrialRunner runner(versions, Hunt(), 0, 3);
  absl::StatusOr<std::vector<TrialResult>> ends = runner.RunTrials({{3, 0}, {0, 0}});
  ASSERT_TRUE(ends.ok()) << ends.status();
  EXPECT_EQ((*ends)[1].outcome, Outcome::kPass);
  EXPECT_EQ((*ends)[0].outcome, Outcome::kFail);
  EXPECT_THAT((*ends)[0].signature, StartsWith("perf regression: time_median_us slower by "));
  EXPECT_THAT((*ends)[0].signature, HasSubstr(", 3 trials"));
  absl::StatusOr<std::vector<TrialResult>> middle = runner.RunTrials({{1, 0}, {2, 0}});
  ASSERT_TRUE(middle.ok()) << middle.status();
  EXPECT_EQ((*middle)[0].outcome, Outcome::kPass);
  EXPECT_EQ((*middle)[1].outcome, Outcome::kFail);
  EXPECT_EQ(versions.trials, (std::map<int, int>{{0, 3}, {1, 3}, {2, 3}, {3, 3}}));
}

TEST(PerfProbeTest, ABadEndWithinTheThresholdPassesAndAFailingTrialIsPassedOn) {
  FakeVersions versions({100, -1, 101});
  PerfTrialRunner runner(versions, Hunt(), 0, 2);
  absl::StatusOr<std::vector<TrialResult>> out = runner.RunTrials({{2, 0}, {1, 0}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].outcome, Outcome::kPass);
  EXPECT_THAT((*out)[0].signature, StartsWith("not worse by the threshold: time_median_us slower by 1."));
  EXPECT_EQ((*out)[1].outcome, Outcome::kCrash);
  EXPECT_EQ(versions.trials[1], 1);  // a failing trial decides at once
}

TEST(PerfProbeTest, ParseDirection) {
  EXPECT_TRUE(*ParseDirection("lower-is-worse"));
  EXPECT_FALSE(*ParseDirection("higher-is-worse"));
  EXPECT_EQ(ParseDirection("up").status().message(),
            "--direction: expected lower-is-worse or higher-is-worse, got 'up'");
}

}  // namespace
}  // namespace gh
