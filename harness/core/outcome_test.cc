#include "harness/core/outcome.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gh {
namespace {

RankOutcome Rank(int rank, Outcome outcome, std::string signature = "",
                 std::vector<Metric> metrics = {}) {
  RankOutcome r;
  r.rank = rank;
  r.outcome = outcome;
  r.signature = std::move(signature);
  r.metrics = std::move(metrics);
  return r;
}

// A factory sets exactly outcome, signature and (where given) step: everything else stays as a
// default-constructed RankOutcome has it.
void ExpectOnlyEnding(const RankOutcome& got, Outcome outcome, const std::string& signature,
                      const std::string& step) {
  const RankOutcome fresh;
  EXPECT_EQ(got.outcome, outcome);
  EXPECT_EQ(got.signature, signature);
  EXPECT_EQ(got.step, step);
  EXPECT_EQ(got.rank, fresh.rank);
  EXPECT_EQ(got.host, fresh.host);
  EXPECT_EQ(got.device, fresh.device);
  EXPECT_FALSE(got.mismatch.has_value());
  EXPECT_TRUE(got.metrics.empty());
  EXPECT_EQ(got.output_tail, "");
}

TEST(RankOutcomeFactoryTest, SkipSetsOutcomeAndReasonOnly) {
  ExpectOnlyEnding(RankOutcome::Skip("needs 2 GPUs"), Outcome::kSkip, "needs 2 GPUs", "");
}

TEST(RankOutcomeFactoryTest, ErrorSetsOutcomeSignatureAndStep) {
  ExpectOnlyEnding(RankOutcome::Error("ncclSystemError: x", "allreduce"), Outcome::kError,
                   "ncclSystemError: x", "allreduce");
  ExpectOnlyEnding(RankOutcome::Error("cudaErrorIllegalAddress"), Outcome::kError,
                   "cudaErrorIllegalAddress", "");
}

TEST(RankOutcomeFactoryTest, FailSetsOutcomeSignatureAndStep) {
  ExpectOnlyEnding(RankOutcome::Fail("wrong data", "verify"), Outcome::kFail, "wrong data",
                   "verify");
  ExpectOnlyEnding(RankOutcome::Fail("swallowed 3/200"), Outcome::kFail, "swallowed 3/200", "");
}

TEST(PointOutcomeFactoryTest, SkipAndErrorSetOutcomeAndSignatureOnly) {
  const PointOutcome skip = PointOutcome::Skip("kind needs CUDA");
  EXPECT_EQ(skip.outcome, Outcome::kSkip);
  EXPECT_EQ(skip.signature, "kind needs CUDA");
  EXPECT_TRUE(skip.ranks.empty());
  EXPECT_TRUE(skip.metrics.empty());
  const PointOutcome error = PointOutcome::Error("launcher exited 1");
  EXPECT_EQ(error.outcome, Outcome::kError);
  EXPECT_EQ(error.signature, "launcher exited 1");
  EXPECT_TRUE(error.ranks.empty());
  EXPECT_TRUE(error.metrics.empty());
}

TEST(OutcomeNameTest, NamesAndParsesEveryOutcome) {
  const std::pair<Outcome, std::string> all[] = {
      {Outcome::kPass, "pass"},   {Outcome::kSkip, "skip"},       {Outcome::kFail, "fail"},
      {Outcome::kError, "error"}, {Outcome::kTimeout, "timeout"}, {Outcome::kCrash, "crash"},
      {Outcome::kInfra, "infra"}};
  ASSERT_EQ(AllOutcomes().size(), std::size(all));
  for (size_t i = 0; i < std::size(all); ++i) EXPECT_EQ(AllOutcomes()[i], all[i].first) << i;
  for (const auto& [outcome, name] : all) {
    EXPECT_EQ(OutcomeName(outcome), name);
    absl::StatusOr<Outcome> parsed = ParseOutcome(name);
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, outcome);
  }
  absl::StatusOr<Outcome> bad = ParseOutcome("Pass");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "unknown outcome 'Pass' (expected one of pass, skip, fail, error, timeout, crash, infra)");
}

// Issue 15: an infrastructure failure outranks every verdict, so no reduction hides it.
TEST(OutcomeNameTest, InfraIsTheMostSevere) {
  for (Outcome outcome : AllOutcomes()) EXPECT_LE(outcome, Outcome::kInfra);
  PointOutcome point = ReduceRankOutcomes({Rank(0, Outcome::kCrash, "SIGSEGV"),
                                           Rank(1, Outcome::kInfra, "infrastructure: x")});
  EXPECT_EQ(point.outcome, Outcome::kInfra);
  EXPECT_EQ(point.signature, "infrastructure: x [ranks 1]");
}

TEST(ReduceRankOutcomesTest, AllPassKeepsRankZerosMetricsAndRankOrder) {
  PointOutcome point = ReduceRankOutcomes(
      {Rank(1, Outcome::kPass, "", {{"time_median_us", 2, "us"}}),
       Rank(0, Outcome::kPass, "", {{"time_median_us", 1, "us"}})});
  EXPECT_EQ(point.outcome, Outcome::kPass);
  EXPECT_EQ(point.signature, "");
  ASSERT_EQ(point.ranks.size(), 2u);
  EXPECT_EQ(point.ranks[0].rank, 0);
  EXPECT_EQ(point.ranks[1].rank, 1);
  ASSERT_EQ(point.metrics.size(), 1u);
  EXPECT_EQ(point.metrics[0].value, 1);
}

TEST(ReduceRankOutcomesTest, MetricsFallBackToTheFirstRankThatHasThem) {
  PointOutcome point = ReduceRankOutcomes(
      {Rank(0, Outcome::kPass), Rank(2, Outcome::kPass, "", {{"x", 3, "count"}}),
       Rank(1, Outcome::kPass, "", {{"x", 2, "count"}})});
  ASSERT_EQ(point.metrics.size(), 1u);
  EXPECT_EQ(point.metrics[0].value, 2);
}

TEST(ReduceRankOutcomesTest, FailWithoutSignatureIsWrongDataWithRanks) {
  PointOutcome point = ReduceRankOutcomes(
      {Rank(0, Outcome::kPass), Rank(1, Outcome::kFail), Rank(2, Outcome::kPass)});
  EXPECT_EQ(point.outcome, Outcome::kFail);
  EXPECT_EQ(point.signature, "wrong data [ranks 1]");
}

TEST(ReduceRankOutcomesTest, MostSevereWinsInEnumOrder) {
  // pass < skip < fail < error < timeout < crash
  EXPECT_EQ(ReduceRankOutcomes({Rank(0, Outcome::kSkip, "s"), Rank(1, Outcome::kPass)}).outcome,
            Outcome::kSkip);
  EXPECT_EQ(ReduceRankOutcomes({Rank(0, Outcome::kSkip, "s"), Rank(1, Outcome::kFail)}).outcome,
            Outcome::kFail);
  EXPECT_EQ(ReduceRankOutcomes({Rank(0, Outcome::kError, "e"), Rank(1, Outcome::kFail)}).outcome,
            Outcome::kError);
  EXPECT_EQ(ReduceRankOutcomes({Rank(0, Outcome::kError, "e"), Rank(1, Outcome::kTimeout, "t")})
                .outcome,
            Outcome::kTimeout);
  PointOutcome crash = ReduceRankOutcomes(
      {Rank(0, Outcome::kTimeout, "timeout in exchange"), Rank(1, Outcome::kCrash, "SIGSEGV"),
       Rank(2, Outcome::kError, "x"), Rank(3, Outcome::kPass)});
  EXPECT_EQ(crash.outcome, Outcome::kCrash);
  EXPECT_EQ(crash.signature, "SIGSEGV [ranks 1]");
}

TEST(ReduceRankOutcomesTest, MostCommonSignatureAmongTheWorstRanks) {
  PointOutcome point = ReduceRankOutcomes(
      {Rank(0, Outcome::kError, "ncclSystemError: a"), Rank(1, Outcome::kError, "ncclInternalError: b"),
       Rank(2, Outcome::kPass), Rank(3, Outcome::kError, "ncclInternalError: b"),
       Rank(4, Outcome::kFail, "swallowed 3/200")});
  EXPECT_EQ(point.outcome, Outcome::kError);
  EXPECT_EQ(point.signature, "ncclInternalError: b [ranks 0,1,3]");
}

TEST(ReduceRankOutcomesTest, TiesGoToTheLowestRanksSignature) {
  PointOutcome point = ReduceRankOutcomes(
      {Rank(3, Outcome::kError, "late"), Rank(1, Outcome::kError, "early")});
  EXPECT_EQ(point.signature, "early");  // all ranks share the outcome: no rank list
}

TEST(ReduceRankOutcomesTest, MixedFailSignaturesCountWrongDataAsOne) {
  PointOutcome point = ReduceRankOutcomes(
      {Rank(0, Outcome::kFail), Rank(1, Outcome::kFail, "swallowed 3/200"), Rank(2, Outcome::kFail),
       Rank(3, Outcome::kPass)});
  EXPECT_EQ(point.signature, "wrong data [ranks 0,1,2]");
}

TEST(ReduceRankOutcomesTest, SkipWhenAllRanksSkipWithOneReason) {
  PointOutcome point = ReduceRankOutcomes(
      {Rank(0, Outcome::kSkip, "needs 2 GPUs"), Rank(1, Outcome::kSkip, "needs 2 GPUs")});
  EXPECT_EQ(point.outcome, Outcome::kSkip);
  EXPECT_EQ(point.signature, "needs 2 GPUs");
}

TEST(ReduceRankOutcomesTest, TimeoutWithoutSignatureStillNamesRanks) {
  PointOutcome point = ReduceRankOutcomes({Rank(0, Outcome::kPass), Rank(1, Outcome::kTimeout)});
  EXPECT_EQ(point.signature, "[ranks 1]");
}

TEST(ReduceRankOutcomesTest, NoRanksIsAnError) {
  PointOutcome point = ReduceRankOutcomes({});
  EXPECT_EQ(point.outcome, Outcome::kError);
  EXPECT_EQ(point.signature, "no rank reported an outcome");
  EXPECT_TRUE(point.ranks.empty());
}

}  // namespace
}  // namespace gh
