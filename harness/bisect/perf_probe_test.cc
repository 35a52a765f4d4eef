#include "harness/bisect/perf_probe.h"

#include <map>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/perf_statistics.h"

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

// Processes settle in levels a little apart (+-1 %), the same in every version.
constexpr double kJitter[] = {1.000, 1.008, 0.993, 1.004, 0.996, 1.006};

// One process per level, each of 40 samples.
ProcessSamplesOf Processes(const std::vector<double>& levels) {
  ProcessSamplesOf out;
  for (size_t k = 0; k < levels.size(); ++k) out.push_back(Samples(levels[k], 40, static_cast<int>(k)));
  return out;
}

// Three processes of one build at `center`, each at its level.
ProcessSamplesOf Steady(double center) {
  return Processes({center * kJitter[0], center * kJitter[1], center * kJitter[2]});
}

std::vector<double> Pooled(const ProcessSamplesOf& processes) {
  std::vector<double> all;
  for (const auto& p : processes) all.insert(all.end(), p.begin(), p.end());
  return all;
}

// Versions whose k-th trial (process) sits at levels[k % size] (a negative level: it crashes).
// Counts the trials run.
class FakeVersions : public TrialRunner {
 public:
  explicit FakeVersions(std::map<int, std::vector<double>> levels) : levels_(std::move(levels)) {}
  // Each version at its center, its processes jittered by kJitter.
  static FakeVersions Steady(const std::vector<double>& centers) {
    std::map<int, std::vector<double>> levels;
    for (size_t v = 0; v < centers.size(); ++v) {
      for (double j : kJitter) levels[static_cast<int>(v)].push_back(centers[v] < 0 ? -1 : centers[v] * j);
    }
    return FakeVersions(std::move(levels));
  }
  absl::StatusOr<std::vector<TrialResult>> RunTrials(const std::vector<Request>& batch) override {
    std::vector<TrialResult> out;
    for (const Request& r : batch) {
      ++trials[r.version];
      const std::vector<double>& levels = levels_.at(r.version);
      const double level = levels[static_cast<size_t>(r.trial) % levels.size()];
      TrialResult t;
      t.point = "ring/np=1";
      t.detail = "probes/v/trial" + std::to_string(r.trial);
      if (level < 0) {
        t.outcome = Outcome::kCrash;
        t.signature = "crash (SIGSEGV)";
      } else {
        t.metrics = {{"time_median_us", level, "us", Samples(level, 40, r.trial)}};
      }
      out.push_back(t);
    }
    return out;
  }
  std::map<int, int> trials;

 private:
  std::map<int, std::vector<double>> levels_;
};

PerfHunt Hunt() {
  PerfHunt hunt;
  hunt.metric = "time_median_us";
  return hunt;
}

TEST(PerfProbeTest, ATenPercentSlowdownSteadyAcrossProcessesIsDecidedWithMinTrials) {
  const ProcessSamplesOf good = Steady(100), bad = Steady(110);
  PerfJudgement end = JudgeBadEnd(Hunt(), false, good, bad, /*at_cap=*/false);
  EXPECT_EQ(end.verdict, PerfClass::kLikeBad);
  EXPECT_NEAR(end.worse, 0.10, 0.001);
  EXPECT_GT(end.worse_low, 0.05);
  EXPECT_LT(end.worse_high, 0.15);
  EXPECT_NEAR(end.split, 0.05, 0.001);
  EXPECT_THAT(end.text, StartsWith("time_median_us slower by 10.0 % (99 % CI "));
  EXPECT_THAT(end.text, HasSubstr(" %; 3 vs 3 processes) than the good end"));
  EXPECT_EQ(JudgeProbe(Hunt(), false, good, bad, Steady(101), false).verdict, PerfClass::kLikeGood);
  EXPECT_EQ(JudgeProbe(Hunt(), false, good, bad, Steady(109), false).verdict, PerfClass::kLikeBad);
  // Right at the split: ambiguous until the cap, then by the point estimate.
  EXPECT_EQ(JudgeProbe(Hunt(), false, good, bad, Steady(105), false).verdict, PerfClass::kUndecided);
  PerfJudgement capped = JudgeProbe(Hunt(), false, good, bad, Steady(105.5), true);
  EXPECT_EQ(capped.verdict, PerfClass::kLikeBad);
  EXPECT_THAT(capped.text, HasSubstr("(decided at the cap)"));
  // A bad end within the threshold is not bad; lower-is-worse reads a drop as worse.
  EXPECT_EQ(JudgeBadEnd(Hunt(), false, good, Steady(101), false).verdict, PerfClass::kLikeGood);
  EXPECT_EQ(JudgeBadEnd(Hunt(), true, good, Steady(90), false).verdict, PerfClass::kLikeBad);
  EXPECT_EQ(JudgeBadEnd(Hunt(), true, good, bad, false).verdict, PerfClass::kLikeGood);
}

// One build whose processes land at 100 or at 112: the good end's happened to land 100, 100, 112
// and the bad end's (the same build) 100, 112, 112. Their pooled iterations differ by 9 %,
// "significantly"; their processes do not.
TEST(PerfProbeTest, BimodalProcessLevelsOfOneBuildDoNotMakeABadEnd) {
  const ProcessSamplesOf good = Processes({100, 100, 112}), bad = Processes({100, 112, 112});
  // What the old pooled test saw: a 9 % slowdown whose interval clears the 5 % threshold.
  EXPECT_LT(MannWhitneyU(Pooled(bad), Pooled(good)).p_value, 1e-4);
  const RatioInterval pooled = BootstrapMedianRatio(Pooled(bad), Pooled(good), 0.99);
  EXPECT_GT(pooled.low, 1.05);
  // On the process level: not significant, and a 5 % change is not ruled out either.
  PerfJudgement end = JudgeBadEnd(Hunt(), false, good, bad, false);
  EXPECT_EQ(end.verdict, PerfClass::kUndecided) << end.text;
  EXPECT_LT(end.worse_low, 0);
  EXPECT_GT(end.worse_high, 0.05);
  PerfJudgement capped = JudgeBadEnd(Hunt(), false, good, bad, true);
  EXPECT_EQ(capped.verdict, PerfClass::kLikeGood);
  EXPECT_THAT(capped.text, HasSubstr("; 3 vs 3 processes) than the good end (decided at the cap)"));
}

// The good end's processes all landed low; a probe of the same build lands high in its first two
// processes, then half the time. Its pooled iterations look 13 % slower (beyond the split, 10 %);
// its processes are measured to the cap and come out like the good end.
TEST(PerfProbeTest, ABimodalProbeLikeTheGoodEndIsNotCalledBad) {
  FakeVersions versions({{0, {100, 100.8, 99.3}},
                         {1, {115, 115, 100, 100, 100, 115}},
                         {2, {120, 121, 119.2}}});
  // What the old pooled test saw after the minimum 3 trials: clearly beyond the split.
  const ProcessSamplesOf first_three = Processes({115, 115, 100});
  const RatioInterval pooled = BootstrapMedianRatio(Pooled(first_three), Pooled(Processes({100, 100.8, 99.3})), 0.99);
  EXPECT_GT(pooled.low, 1.10);
  PerfTrialRunner runner(versions, Hunt(), 0, 2);
  absl::StatusOr<std::vector<TrialResult>> ends = runner.RunTrials({{0, 0}, {2, 0}});
  ASSERT_TRUE(ends.ok()) << ends.status();
  EXPECT_EQ((*ends)[1].outcome, Outcome::kFail);
  absl::StatusOr<std::vector<TrialResult>> probe = runner.RunTrials({{1, 0}});
  ASSERT_TRUE(probe.ok()) << probe.status();
  EXPECT_EQ((*probe)[0].outcome, Outcome::kPass) << (*probe)[0].signature;
  EXPECT_EQ(versions.trials, (std::map<int, int>{{0, 3}, {1, 12}, {2, 3}}));
}

TEST(PerfProbeTest, AnAmbiguousBadEndGetsOneMoreProcessPerEnd) {
  FakeVersions versions({{0, {100, 100.8, 99.3, 100.4}}, {1, {104, 116, 110, 110}}});
  PerfTrialRunner runner(versions, Hunt(), 0, 1);
  absl::StatusOr<std::vector<TrialResult>> ends = runner.RunTrials({{1, 0}, {0, 0}});
  ASSERT_TRUE(ends.ok()) << ends.status();
  EXPECT_EQ((*ends)[0].outcome, Outcome::kFail);
  EXPECT_THAT((*ends)[0].signature, HasSubstr("; 4 vs 4 processes) than the good end"));
  EXPECT_EQ(versions.trials, (std::map<int, int>{{0, 4}, {1, 4}}));
}

TEST(PerfProbeTest, TheRunnerMeasuresTheEndsFirstAndReportsSlowVersionsAsThePerfRegression) {
  FakeVersions versions = FakeVersions::Steady({100, 101, 110, 110});
  PerfTrialRunner runner(versions, Hunt(), 0, 3);
  absl::StatusOr<std::vector<TrialResult>> ends = runner.RunTrials({{3, 0}, {0, 0}});
  ASSERT_TRUE(ends.ok()) << ends.status();
  EXPECT_EQ((*ends)[1].outcome, Outcome::kPass);
  EXPECT_EQ((*ends)[0].outcome, Outcome::kFail);
  EXPECT_THAT((*ends)[0].signature, StartsWith("perf regression: time_median_us slower by 10.0 % (99 % CI "));
  EXPECT_THAT((*ends)[0].signature, HasSubstr("; 3 vs 3 processes) than the good end"));
  absl::StatusOr<std::vector<TrialResult>> middle = runner.RunTrials({{1, 0}, {2, 0}});
  ASSERT_TRUE(middle.ok()) << middle.status();
  EXPECT_EQ((*middle)[0].outcome, Outcome::kPass);
  EXPECT_EQ((*middle)[1].outcome, Outcome::kFail);
  EXPECT_EQ(versions.trials, (std::map<int, int>{{0, 3}, {1, 3}, {2, 3}, {3, 3}}));
}

TEST(PerfProbeTest, ABadEndWithinTheThresholdPassesAndAFailingTrialIsPassedOn) {
  FakeVersions versions = FakeVersions::Steady({100, -1, 101});
  PerfTrialRunner runner(versions, Hunt(), 0, 2);
  absl::StatusOr<std::vector<TrialResult>> out = runner.RunTrials({{2, 0}, {1, 0}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].outcome, Outcome::kPass);
  EXPECT_THAT((*out)[0].signature, StartsWith("not worse by the threshold: time_median_us slower by 1.0 % (99 % CI "));
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
