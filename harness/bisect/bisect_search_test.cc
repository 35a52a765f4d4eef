#include "harness/bisect/bisect_search.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gh {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(SplitPositionsTest, SplitsIntoNearEqualParts) {
  EXPECT_THAT(SplitPositions(98, 1), ElementsAre(48));       // parts 48 and 49
  EXPECT_THAT(SplitPositions(98, 3), ElementsAre(23, 48, 73));  // parts 23, 24, 24, 24
  EXPECT_THAT(SplitPositions(3, 1), ElementsAre(1));
  EXPECT_THAT(SplitPositions(1, 1), ElementsAre(0));
  EXPECT_THAT(SplitPositions(2, 5), ElementsAre(0, 1));      // clamped to m
  EXPECT_THAT(SplitPositions(0, 3), IsEmpty());
}

// Drives a search with a monotone oracle: versions >= first_bad are bad.
int ProbesToFind(int n, int first_bad, int jobs, int* rounds) {
  BisectSearch search(n, 0, n - 1, jobs);
  int probes = 0;
  *rounds = 0;
  for (std::vector<int> round = search.NextRound(); !round.empty(); round = search.NextRound()) {
    ++*rounds;
    for (int v : round) {
      ++probes;
      search.Record(v, v >= first_bad ? ProbeVerdict::kBad : ProbeVerdict::kGood);
    }
  }
  BisectAnswer answer = search.Answer();
  EXPECT_EQ(answer.first_bad, first_bad);
  EXPECT_EQ(answer.last_good, first_bad - 1);
  EXPECT_THAT(answer.unclassified, IsEmpty());
  return probes;
}

TEST(BisectSearchTest, HundredVersionsTakeAtMostSevenProbes) {
  for (int first_bad = 1; first_bad <= 99; ++first_bad) {
    int rounds = 0;
    EXPECT_LE(ProbesToFind(100, first_bad, 1, &rounds), 7) << "first bad " << first_bad;
  }
}

TEST(BisectSearchTest, ThreeJobsTakeAtMostFourRounds) {
  for (int first_bad = 1; first_bad <= 99; ++first_bad) {
    int rounds = 0;
    ProbesToFind(100, first_bad, 3, &rounds);
    EXPECT_LE(rounds, 4) << "first bad " << first_bad;
  }
}

TEST(BisectSearchTest, FirstRoundIsTheMiddle) {
  BisectSearch search(10, 0, 9, 1);
  EXPECT_THAT(search.NextRound(), ElementsAre(4));  // candidates 1..8, the 4th of 8
  BisectSearch three(10, 0, 9, 3);
  EXPECT_THAT(three.NextRound(), ElementsAre(2, 4, 6));
}

TEST(BisectSearchTest, SkipProbesANeighbour) {
  BisectSearch search(10, 0, 9, 1);
  search.Record(4, ProbeVerdict::kSkip);
  EXPECT_THAT(search.NextRound(), ElementsAre(5));  // candidates 1,2,3,5,6,7,8
  search.Record(5, ProbeVerdict::kOther);
  EXPECT_THAT(search.NextRound(), ElementsAre(3));  // candidates 1,2,3,6,7,8
}

TEST(BisectSearchTest, UnclassifiableVersionsBetweenEndsFormTheRange) {
  // Bad from 6; 4 and 5 cannot be classified.
  BisectSearch search(10, 0, 9, 1);
  for (std::vector<int> round = search.NextRound(); !round.empty(); round = search.NextRound()) {
    for (int v : round) {
      ProbeVerdict verdict = v >= 6 ? ProbeVerdict::kBad
                             : (v == 4 || v == 5) ? ProbeVerdict::kSkip
                                                  : ProbeVerdict::kGood;
      search.Record(v, verdict);
    }
  }
  BisectAnswer answer = search.Answer();
  EXPECT_EQ(answer.last_good, 3);
  EXPECT_EQ(answer.first_bad, 6);
  EXPECT_THAT(answer.unclassified, ElementsAre(4, 5));
}

TEST(BisectSearchTest, AllBetweenUnclassifiable) {
  BisectSearch search(5, 0, 4, 2);
  while (!search.Done()) {
    for (int v : search.NextRound()) search.Record(v, ProbeVerdict::kSkip);
  }
  BisectAnswer answer = search.Answer();
  EXPECT_EQ(answer.last_good, 0);
  EXPECT_EQ(answer.first_bad, 4);
  EXPECT_THAT(answer.unclassified, ElementsAre(1, 2, 3));
}

TEST(BisectSearchTest, GoodAfterBadIsAContradiction) {
  BisectSearch search(10, 0, 9, 3);  // probes 2, 4, 6
  search.Record(2, ProbeVerdict::kBad);
  search.Record(4, ProbeVerdict::kGood);
  search.Record(6, ProbeVerdict::kBad);
  EXPECT_EQ(search.first_bad(), 2);
  EXPECT_EQ(search.last_good(), 0);
  EXPECT_THAT(search.NextRound(), ElementsAre(1));
  search.Record(1, ProbeVerdict::kGood);
  BisectAnswer answer = search.Answer();
  EXPECT_EQ(answer.first_bad, 2);
  EXPECT_EQ(answer.last_good, 1);
  ASSERT_EQ(answer.contradictions.size(), 1u);
  EXPECT_EQ(answer.contradictions[0], std::make_pair(4, 2));
}

TEST(BisectSearchTest, AdjacentEndsNeedNoProbe) {
  BisectSearch search(2, 0, 1, 1);
  EXPECT_TRUE(search.Done());
  EXPECT_EQ(search.Answer().first_bad, 1);
  EXPECT_EQ(search.Answer().last_good, 0);
}

}  // namespace
}  // namespace gh
