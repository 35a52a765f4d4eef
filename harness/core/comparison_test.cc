#include "harness/core/comparison.h"

#include <vector>

#include "gtest/gtest.h"
#include "harness/core/testdata/test_records.h"

namespace gh {
namespace {

using testing::MakeRecord;
using testing::MakeTrials;
using testing::RecordSpec;

const PointComparison& Find(const Comparison& comparison, const std::string& point) {
  for (const PointComparison& entry : comparison.points) {
    if (entry.key.point == point) return entry;
  }
  ADD_FAILURE() << "no entry for " << point;
  static PointComparison none;
  return none;
}

// Errors: the signature's leading token; crashes: the signal; other outcomes: their name
// (wrong data for kFail).
TEST(ShortSignatureTest, OneShortNamePerOutcome) {
  struct Case {
    Outcome outcome;
    std::string signature, short_name;
  };
  const Case cases[] = {
      {Outcome::kError, "FAILED_PRECONDITION: during context [hlo verifier]: Asynchronous computation",
       "FAILED_PRECONDITION"},
      {Outcome::kError, "ncclUnhandledCudaError: Cuda failure 1 'invalid argument' [ranks 1]",
       "ncclUnhandledCudaError"},
      {Outcome::kError, "swallowed 3/200", "swallowed"},
      {Outcome::kError, "Cuda failure 1 'invalid argument'", "Cuda failure"},
      {Outcome::kError, "bad input: x.yaml:3:1: name: missing", "bad input"},
      {Outcome::kError, "", "error"},
      {Outcome::kCrash, "rank 1 killed by SIGSEGV in exchange", "crash (SIGSEGV)"},
      {Outcome::kCrash, "exited with status 134", "crash"},
      {Outcome::kPass, "ignored", "pass"}, {Outcome::kSkip, "needs 4 ranks", "skip"},
      {Outcome::kTimeout, "timeout in exchange", "timeout"}, {Outcome::kFail, "", "wrong data"},
      {Outcome::kFail, "wrong data [ranks 1,3]", "wrong data"},
      {Outcome::kInfra, "infrastructure: mpirun has detected an attempt", "infra"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ShortSignature(c.outcome, c.signature), c.short_name) << c.signature;
  }
}

TEST(SignatureClassTest, IgnoresNumbersAndRankLists) {
  EXPECT_EQ(SignatureClass(Outcome::kError, "swallowed 3/200 [ranks 0,1]"), "error: swallowed #/#");
  EXPECT_EQ(SignatureClass(Outcome::kError, "swallowed 17/200"), "error: swallowed #/#");
  EXPECT_NE(SignatureClass(Outcome::kError, "swallowed 3/200"), SignatureClass(Outcome::kCrash, "swallowed 3/200"));
}

TEST(CellKeyTest, SortedByAxisNameAndEmptyForPlainRuns) {
  EXPECT_EQ(CellKey({}), "");
  EXPECT_EQ(CellKey({{"proto", "ll"}, {"nccl", "2.28.9"}}), "nccl=2.28.9,proto=ll");
}

TEST(AggregateTrialsTest, CountsTrialsFailuresAndSignatures) {
  std::vector<Outcome> outcomes(10, Outcome::kError);
  std::vector<std::string> signatures;
  for (int i = 0; i < 9; ++i) signatures.push_back("swallowed " + std::to_string(i + 1) + "/200");
  outcomes[4] = Outcome::kCrash;
  signatures.insert(signatures.begin() + 4, "rank 0 killed by SIGSEGV");
  std::vector<PointTrials> points = AggregateTrials(MakeTrials(RecordSpec{}, outcomes, signatures));
  ASSERT_EQ(points.size(), 1u);
  const PointTrials& p = points[0];
  EXPECT_EQ(p.key.point, "ring/bytes=4K/np=2");
  EXPECT_EQ(p.key.cell, "");
  EXPECT_EQ(p.trials, 10);
  EXPECT_EQ(p.failed, 10);
  EXPECT_EQ(p.passed, 0);
  EXPECT_EQ(p.worst, Outcome::kCrash);
  EXPECT_EQ(p.outcome_counts.at(Outcome::kError), 9);
  EXPECT_EQ(p.outcome_counts.at(Outcome::kCrash), 1);
  ASSERT_EQ(p.failure_counts.size(), 2u);
  EXPECT_EQ(p.failure_counts[0], (std::pair<std::string, int>{"swallowed", 9}));
  EXPECT_EQ(p.failure_counts[1], (std::pair<std::string, int>{"crash (SIGSEGV)", 1}));
  EXPECT_EQ(p.failure_classes,
            (std::vector<std::string>{"crash: rank # killed by SIGSEGV", "error: swallowed #/#"}));
  EXPECT_EQ(p.first_failure_signature, "swallowed 1/200");
  EXPECT_FALSE(p.flaky());
  EXPECT_FALSE(p.all_pass());
}

TEST(AggregateTrialsTest, SeparatesKeysByCellAndPoint) {
  std::vector<Record> records = {
      MakeRecord({.cell = {{"nccl", "2.28.3"}}}),
      MakeRecord({.point_suffix = "bytes=1M/np=2", .cell = {{"nccl", "2.28.3"}}}),
      MakeRecord({.cell = {{"nccl", "2.28.9"}}}),
      MakeRecord({.outcome = Outcome::kError, .signature = "x", .cell = {{"nccl", "2.28.3"}}, .trial = 1}),
  };
  std::vector<PointTrials> points = AggregateTrials(records);
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[0].key.cell, "nccl=2.28.3");
  EXPECT_EQ(points[0].key.point, "ring/bytes=4K/np=2");
  EXPECT_EQ(points[0].trials, 2);
  EXPECT_TRUE(points[0].flaky());
  EXPECT_EQ(points[1].key.point, "ring/bytes=1M/np=2");
  EXPECT_EQ(points[2].key.cell, "nccl=2.28.9");
  EXPECT_EQ(points[2].trials, 1);
}

TEST(AggregateTrialsTest, MetricsAreMediansOverPassingTrialsOnly) {
  std::vector<Record> records;
  for (double value : {10.0, 30.0, 20.0}) {
    records.push_back(MakeRecord({.metrics = {{"bandwidth_GBps", value, "GB/s"}}}));
  }
  records.push_back(MakeRecord({.outcome = Outcome::kFail, .metrics = {{"bandwidth_GBps", 1000.0, "GB/s"}}}));
  std::vector<PointTrials> points = AggregateTrials(records);
  ASSERT_EQ(points.size(), 1u);
  const Metric* metric = points[0].FindMetric("bandwidth_GBps");
  ASSERT_NE(metric, nullptr);
  EXPECT_DOUBLE_EQ(metric->value, 20.0);
  EXPECT_EQ(metric->unit, "GB/s");
  EXPECT_EQ(points[0].FindMetric("time_median_us"), nullptr);
}

TEST(AggregateTrialsTest, SkipsAreNeitherPassesNorFailures) {
  std::vector<PointTrials> points =
      AggregateTrials({MakeRecord({.outcome = Outcome::kSkip, .signature = "needs 4 ranks"})});
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].skipped, 1);
  EXPECT_EQ(points[0].failed, 0);
  EXPECT_EQ(points[0].skip_reason, "needs 4 ranks");
  EXPECT_FALSE(points[0].all_pass());
}

TEST(CompareResultsTest, FlakyPointCountedAndUnmetWhenAnyTrialUnmatched) {
  RecordSpec spec;
  std::vector<Record> records =
      MakeTrials(spec, {Outcome::kPass, Outcome::kFail, Outcome::kPass, Outcome::kPass}, {"", "wrong data [ranks 1]"});
  records[1].matched = false;
  Comparison comparison = CompareResults(records, nullptr);
  EXPECT_FALSE(comparison.has_baseline);
  ASSERT_EQ(comparison.points.size(), 1u);
  EXPECT_EQ(comparison.points[0].change, BaselineChange::kNotCompared);
  EXPECT_FALSE(comparison.points[0].expectation_met());
  EXPECT_EQ(comparison.counts.points, 1);
  EXPECT_EQ(comparison.counts.trials, 4);
  EXPECT_EQ(comparison.counts.flaky, 1);
  EXPECT_EQ(comparison.counts.unmet, 1);
  EXPECT_EQ(comparison.counts.points_by_worst.at(Outcome::kFail), 1);
  EXPECT_EQ(ComparisonExitStatus(comparison), 1);
  EXPECT_EQ(ComparisonHeadline(comparison), "1 point (4 trials): 1 fail (1 flaky); 1 unmet expectation");
}

TEST(CompareResultsTest, ExpectedFailureMetIsExitZero) {
  Expectation expected{Outcome::kError, "FAILED_PRECONDITION", ""};
  Comparison comparison = CompareResults(
      {MakeRecord({.outcome = Outcome::kError, .signature = "FAILED_PRECONDITION: x", .expected = expected}),
       MakeRecord({.point_suffix = "bytes=1M/np=2"})},
      nullptr);
  EXPECT_EQ(comparison.counts.unmet, 0);
  EXPECT_EQ(ComparisonExitStatus(comparison), 0);
  EXPECT_EQ(ComparisonHeadline(comparison), "2 points (2 trials): 1 pass, 1 error (expected); 0 unmet expectations");
}

// Every baseline category, each on its own point.
TEST(CompareResultsTest, BaselineCategories) {
  const std::map<std::string, std::string> cell = {{"proto", "ll"}, {"nccl", "2.28.9"}};
  auto rec = [&](const std::string& point, Outcome outcome, const std::string& signature = "") {
    return MakeRecord({.point_suffix = point, .outcome = outcome, .signature = signature, .cell = cell});
  };
  std::vector<Record> baseline = {
      rec("p=regressed", Outcome::kPass),
      rec("p=fixed", Outcome::kError, "ncclInvalidArgument: Window address must be suitably aligned."),
      rec("p=changed", Outcome::kError, "ncclInvalidArgument: Window address must be suitably aligned."),
      rec("p=same_failure", Outcome::kError, "swallowed 3/200"),
      rec("p=same_pass", Outcome::kPass),
      rec("p=vanished", Outcome::kPass),
  };
  std::vector<Record> now = {
      rec("p=regressed", Outcome::kCrash, "killed by SIGSEGV"),
      rec("p=fixed", Outcome::kPass),
      rec("p=changed", Outcome::kError, "ncclUnhandledCudaError: Cuda failure 1 'invalid argument'"),
      rec("p=same_failure", Outcome::kError, "swallowed 11/200"),
      rec("p=same_pass", Outcome::kPass),
      rec("p=new", Outcome::kPass),
  };
  // The cell's labels written in another order are the same cell.
  for (Record& r : baseline) r.cell = {{"nccl", "2.28.9"}, {"proto", "ll"}};
  Comparison comparison = CompareResults(now, &baseline);
  EXPECT_TRUE(comparison.has_baseline);
  ASSERT_EQ(comparison.points.size(), 7u);
  EXPECT_EQ(Find(comparison, "ring/p=regressed").change, BaselineChange::kRegression);
  EXPECT_EQ(Find(comparison, "ring/p=fixed").change, BaselineChange::kFix);
  EXPECT_EQ(Find(comparison, "ring/p=changed").change, BaselineChange::kChangedSignature);
  EXPECT_EQ(Find(comparison, "ring/p=same_failure").change, BaselineChange::kUnchanged);
  EXPECT_EQ(Find(comparison, "ring/p=same_pass").change, BaselineChange::kUnchanged);
  EXPECT_EQ(Find(comparison, "ring/p=new").change, BaselineChange::kNew);
  const PointComparison& vanished = Find(comparison, "ring/p=vanished");
  EXPECT_EQ(vanished.change, BaselineChange::kVanished);
  EXPECT_FALSE(vanished.now.has_value());
  EXPECT_TRUE(vanished.baseline.has_value());
  EXPECT_EQ(comparison.points.back().key.point, "ring/p=vanished");  // vanished keys come last

  const ComparisonCounts& c = comparison.counts;
  EXPECT_EQ(c.points, 6);
  EXPECT_EQ(c.regressions, 1);
  EXPECT_EQ(c.fixes, 1);
  EXPECT_EQ(c.changed_signatures, 1);
  EXPECT_EQ(c.new_points, 1);
  EXPECT_EQ(c.vanished, 1);
  EXPECT_EQ(c.unchanged, 2);
  EXPECT_EQ(ComparisonExitStatus(comparison), 1);
  EXPECT_EQ(ComparisonHeadline(comparison),
            "6 points (6 trials): 3 pass, 2 error (all expected), 1 crash (expected); 0 unmet expectations; "
            "vs baseline: 1 regression, 1 fix, 1 changed signature, 1 new, 1 vanished");
}

TEST(CompareResultsTest, AnyFailedTrialAfterAllPassIsARegression) {
  std::vector<Record> baseline = MakeTrials(RecordSpec{}, {Outcome::kPass, Outcome::kPass, Outcome::kPass}, {});
  std::vector<Record> now =
      MakeTrials(RecordSpec{}, {Outcome::kPass, Outcome::kTimeout, Outcome::kPass}, {"", "timeout in exchange"});
  Comparison comparison = CompareResults(now, &baseline);
  ASSERT_EQ(comparison.points.size(), 1u);
  EXPECT_EQ(comparison.points[0].change, BaselineChange::kRegression);
  EXPECT_EQ(comparison.counts.regressions, 1);
  EXPECT_EQ(ComparisonExitStatus(comparison), 1);
}

TEST(CompareResultsTest, RegressionAloneExitsOneEvenWhenExpected) {
  Expectation expected{Outcome::kError, "Cuda failure", ""};
  std::vector<Record> baseline = {MakeRecord({})};
  std::vector<Record> now = {
      MakeRecord({.outcome = Outcome::kError, .signature = "ncclUnhandledCudaError: Cuda failure 1", .expected = expected})};
  Comparison comparison = CompareResults(now, &baseline);
  EXPECT_EQ(comparison.points[0].change, BaselineChange::kRegression);
  EXPECT_EQ(comparison.counts.unmet, 0);
  EXPECT_EQ(ComparisonExitStatus(comparison), 1);
}

TEST(CompareResultsTest, FlakyBeforeAndAllPassNowIsAFix) {
  std::vector<Record> baseline = MakeTrials(RecordSpec{}, {Outcome::kPass, Outcome::kFail}, {});
  std::vector<Record> now = MakeTrials(RecordSpec{}, {Outcome::kPass, Outcome::kPass}, {});
  Comparison comparison = CompareResults(now, &baseline);
  EXPECT_EQ(comparison.points[0].change, BaselineChange::kFix);
  EXPECT_EQ(ComparisonExitStatus(comparison), 0);
}

TEST(CompareResultsTest, SkippedBaselineIsNotARegression) {
  std::vector<Record> baseline = {MakeRecord({.outcome = Outcome::kSkip, .signature = "no GPU"})};
  std::vector<Record> now = {MakeRecord({.outcome = Outcome::kError, .signature = "boom"})};
  Comparison comparison = CompareResults(now, &baseline);
  EXPECT_EQ(comparison.points[0].change, BaselineChange::kUnchanged);
  EXPECT_EQ(ComparisonExitStatus(comparison), 0);
}

TEST(CompareResultsTest, PlainRunAgainstSweepCellsIsNewAndVanished) {
  std::vector<Record> baseline = {MakeRecord({.cell = {{"nccl", "2.28.3"}}})};
  std::vector<Record> now = {MakeRecord({})};
  Comparison comparison = CompareResults(now, &baseline);
  ASSERT_EQ(comparison.points.size(), 2u);
  EXPECT_EQ(comparison.points[0].change, BaselineChange::kNew);
  EXPECT_EQ(comparison.points[1].change, BaselineChange::kVanished);
  EXPECT_EQ(comparison.points[1].key.cell, "nccl=2.28.3");
}

// A version axis whose label changes from run to run: ignored, tonight's nccl=2.28.9 cell meets
// last night's nccl=2.28.8 cell; the other axes still have to agree.
TEST(CompareResultsTest, IgnoredAxesMatchCellsAcrossVersions) {
  std::vector<Record> baseline = {
      MakeRecord({.point_suffix = "p", .cell = {{"nccl", "2.28.8"}, {"proto", "ll"}}}),
      MakeRecord({.point_suffix = "p", .cell = {{"nccl", "2.28.8"}, {"proto", "simple"}}})};
  std::vector<Record> now = {
      MakeRecord({.point_suffix = "p", .outcome = Outcome::kError, .signature = "boom",
                  .cell = {{"nccl", "2.28.9"}, {"proto", "ll"}}}),
      MakeRecord({.point_suffix = "p", .cell = {{"nccl", "2.28.9"}, {"proto", "ll128"}}})};
  Comparison plain = CompareResults(now, &baseline);
  EXPECT_EQ(plain.counts.regressions, 0);
  EXPECT_EQ(plain.counts.new_points, 2);
  EXPECT_EQ(plain.counts.vanished, 2);
  BaselineMatch match{{"nccl"}};
  Comparison across = CompareResults(now, &baseline, match);
  ASSERT_EQ(across.points.size(), 3u);
  EXPECT_EQ(across.points[0].change, BaselineChange::kRegression);
  EXPECT_EQ(across.points[0].key.cell, "nccl=2.28.9,proto=ll");  // reports keep the full cell
  EXPECT_EQ(across.points[0].baseline->key.cell, "nccl=2.28.8,proto=ll");
  EXPECT_EQ(across.points[1].change, BaselineChange::kNew);
  EXPECT_EQ(across.points[2].change, BaselineChange::kVanished);
  EXPECT_EQ(across.points[2].key.cell, "nccl=2.28.8,proto=simple");
  EXPECT_EQ(ComparisonExitStatus(across), 1);
}

TEST(CheckBaselineMatchTest, CellsThatWouldCompareAsOneAreAnError) {
  std::vector<Record> records = {MakeRecord({.point_suffix = "p", .cell = {{"nccl", "2.28.3"}, {"proto", "ll"}}}),
                                 MakeRecord({.point_suffix = "q", .cell = {{"nccl", "2.28.3"}, {"proto", "ll"}}}),
                                 MakeRecord({.point_suffix = "p", .cell = {{"nccl", "2.28.9"}, {"proto", "ll"}}})};
  EXPECT_TRUE(CheckBaselineMatch(records, {}, "x").ok());
  EXPECT_TRUE(CheckBaselineMatch(records, BaselineMatch{{"proto"}}, "x").ok());  // one label
  absl::Status status = CheckBaselineMatch(records, BaselineMatch{{"nccl"}}, "results/last");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "--baseline-ignore nccl: cells 'nccl=2.28.3,proto=ll' and 'nccl=2.28.9,proto=ll' of "
            "results/last would compare as one");
  EXPECT_TRUE(CheckBaselineMatch({records[0], records[1]}, BaselineMatch{{"nccl"}}, "x").ok());
  EXPECT_EQ(MatchCellKey({{"nccl", "2.28.9"}, {"proto", "ll"}}, BaselineMatch{{"nccl"}}), "proto=ll");
  EXPECT_EQ(MatchCellKey({{"nccl", "2.28.9"}}, BaselineMatch{{"nccl"}}), "");
}

// Issue 15 items 2-3: a sweep in which nothing ran cannot pass. The synthesized infra record
// of a launcher that exits 1 at once meets no expectation, even `expect: crash`, and the
// comparison exits 3, ahead of unmet expectations (1).
TEST(CompareResultsTest, AnInfraPointExitsThreeAndMeetsNoExpectation) {
  Expectation crash{Outcome::kCrash, std::nullopt, ""};
  Record infra = MakeRecord({.outcome = Outcome::kInfra,
                             .signature = "infrastructure: job ended before recording anything (job exited with status 1)",
                             .matched = false,
                             .expected = crash});
  infra.matched = MeetsExpectation(crash, infra.result.outcome, infra.result.signature);
  EXPECT_FALSE(infra.matched);
  Comparison comparison = CompareResults({infra, MakeRecord({.point_suffix = "bytes=1M/np=2"})}, nullptr);
  EXPECT_EQ(comparison.counts.unmet, 1);
  EXPECT_EQ(comparison.counts.points_by_worst.at(Outcome::kInfra), 1);
  EXPECT_EQ(ComparisonExitStatus(comparison), 3);
  EXPECT_EQ(ComparisonHeadline(comparison), "2 points (2 trials): 1 pass, 1 infra; 1 unmet expectation");
  const PointTrials& now = *Find(comparison, "ring/bytes=4K/np=2").now;
  EXPECT_EQ(now.failed, 1);
  EXPECT_EQ(now.infra, 1);
  EXPECT_EQ(now.judged_failures(), 0);
  EXPECT_FALSE(now.all_pass());
  EXPECT_EQ(now.failure_counts, (std::vector<std::pair<std::string, int>>{{"infra", 1}}));
  EXPECT_TRUE(now.failure_classes.empty());
}

// Against a passing baseline an infra point is no regression (nothing of the code was judged),
// and infra beside passes is not flaky.
TEST(CompareResultsTest, InfraIsNoRegressionNorFlaky) {
  const std::vector<Record> baseline = {MakeRecord({}), MakeRecord({.point_suffix = "bytes=1M/np=2"})};
  std::vector<Record> now = {MakeRecord({.outcome = Outcome::kInfra, .signature = "infrastructure: x", .matched = false})};
  for (Record r : MakeTrials({.point_suffix = "bytes=1M/np=2"}, {Outcome::kPass, Outcome::kInfra}, {"", "infrastructure: y"})) {
    r.matched = r.result.outcome == Outcome::kPass;
    now.push_back(r);
  }
  Comparison comparison = CompareResults(now, &baseline);
  EXPECT_EQ(comparison.counts.regressions, 0);
  EXPECT_EQ(comparison.counts.flaky, 0);
  EXPECT_EQ(Find(comparison, "ring/bytes=4K/np=2").change, BaselineChange::kNotCompared);
  EXPECT_EQ(Find(comparison, "ring/bytes=1M/np=2").change, BaselineChange::kUnchanged);
  EXPECT_EQ(ComparisonExitStatus(comparison), 3);
}

TEST(CompareResultsTest, EmptyResults) {
  Comparison comparison = CompareResults({}, nullptr);
  EXPECT_TRUE(comparison.points.empty());
  EXPECT_EQ(ComparisonExitStatus(comparison), 0);
  EXPECT_EQ(ComparisonHeadline(comparison), "0 points (0 trials); 0 unmet expectations");
}

}  // namespace
}  // namespace gh
