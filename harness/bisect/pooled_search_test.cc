#include "harness/bisect/pooled_search.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gh {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

PooledSearchConfig Config() {
  PooledSearchConfig config;
  config.error = 0.01;
  config.max_trials_per_version = 20;
  config.min_rate = 0.3;
  return config;
}

TEST(PooledSearchTest, FirstTrialGoesToTheMiddle) {
  PooledSearch search(101, 0, 100, Config());
  search.Observe(100, true);
  search.Observe(100, false);  // a flaky bad end
  std::vector<int> next = search.Next(1);
  ASSERT_EQ(next.size(), 1u);
  // The most informative version is near the middle of 1..99, not at an end.
  EXPECT_GT(next[0], 30);
  EXPECT_LT(next[0], 70);
  EXPECT_FALSE(search.Confident());
}

TEST(PooledSearchTest, PassesAndFailuresOnNeighboursMakeItConfident) {
  PooledSearch search(10, 0, 9, Config());
  search.Observe(9, true);
  for (int i = 0; i < 12; ++i) search.Observe(4, false);  // 12 passes: 4 is good
  EXPECT_FALSE(search.Confident());  // 5 is not known bad yet
  search.Observe(5, true);           // a good version fails 1% of the time: 5 is bad
  search.Observe(5, true);
  EXPECT_TRUE(search.Confident()) << search.AnswerMass();
  BisectAnswer answer = search.Answer();
  EXPECT_EQ(answer.first_bad, 5);
  EXPECT_EQ(answer.last_good, 4);
  EXPECT_THAT(answer.unclassified, IsEmpty());
  EXPECT_GT(search.ProbabilityBad(5), 0.99);
  EXPECT_LT(search.ProbabilityBad(4), 0.01);
  EXPECT_TRUE(search.Next(1).empty());  // done: nothing more to ask
}

TEST(PooledSearchTest, OnePassIsWeakEvidenceForAFlakyFailure) {
  PooledSearch search(10, 0, 9, Config());
  search.Observe(9, true);
  search.Observe(9, false);
  search.Observe(5, false);
  // One pass at 5: 5 may still be bad (it fails at most half the time).
  EXPECT_GT(search.ProbabilityBad(5), 0.2);
  EXPECT_LT(search.ProbabilityBad(5), 0.6);
}

TEST(PooledSearchTest, ExcludedVersionsAreNeverProbedAndNamedUnclassified) {
  PooledSearch search(10, 0, 9, Config());
  search.Exclude(5);
  search.Exclude(6);
  search.Observe(9, true);
  for (int i = 0; i < 15; ++i) search.Observe(4, false);
  for (int i = 0; i < 3; ++i) search.Observe(7, true);
  for (int v : search.Next(10)) {
    EXPECT_NE(v, 5);
    EXPECT_NE(v, 6);
  }
  EXPECT_TRUE(search.Confident()) << search.AnswerMass();
  BisectAnswer answer = search.Answer();
  EXPECT_EQ(answer.last_good, 4);
  EXPECT_EQ(answer.first_bad, 7);
  EXPECT_THAT(answer.unclassified, ElementsAre(5, 6));
}

TEST(PooledSearchTest, AFailingGoodEndIsTheAnswer) {
  PooledSearch search(10, 0, 9, Config());
  search.Observe(0, true);
  search.Observe(0, true);
  search.Observe(9, true);
  BisectAnswer answer = search.Answer();
  EXPECT_EQ(answer.first_bad, 0);
  EXPECT_EQ(answer.last_good, -1);
}

TEST(PooledSearchTest, AVersionThatShowedTheFailureIsNeverOnTheGoodSide) {
  PooledSearch search(10, 0, 9, Config());
  search.Observe(9, true);
  search.Observe(3, true);  // once, among many passes
  for (int i = 0; i < 19; ++i) search.Observe(3, false);
  EXPECT_DOUBLE_EQ(search.ProbabilityBad(3), 1.0);
  EXPECT_LE(search.Answer().first_bad, 3);
}

TEST(PooledSearchTest, BusyVersionsAndCappedVersionsAreNotOffered) {
  PooledSearchConfig config = Config();
  config.max_trials_per_version = 2;
  PooledSearch search(4, 0, 3, config);
  search.Observe(3, true);
  search.Observe(3, false);
  std::vector<int> all = search.Next(5);
  EXPECT_THAT(all, ::testing::UnorderedElementsAre(0, 1, 2));
  std::vector<int> not_busy = search.Next(5, {1});
  EXPECT_THAT(not_busy, ::testing::UnorderedElementsAre(0, 2));
  search.Observe(1, false);
  search.Observe(1, false);  // at the cap
  for (int v : search.Next(5)) EXPECT_NE(v, 1);
}

}  // namespace
}  // namespace gh
