#include "harness/scenarios/window_schedule.h"

#include <set>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gh {
namespace {

using ::testing::ElementsAre;

std::vector<int> HeldShards(int rank, int tp) {
  std::vector<int> held;
  for (const AllGatherStep& s : AllGatherSchedule(rank, tp)) held.push_back(s.held_shard);
  return held;
}

std::vector<int> ReduceBlocks(int rank, int tp) {
  std::vector<int> blocks;
  for (const ReduceScatterStep& s : ReduceScatterSchedule(rank, tp)) blocks.push_back(s.block);
  return blocks;
}

TEST(AllGatherScheduleTest, ThreeRanksHoldShardsInRingOrder) {
  EXPECT_THAT(HeldShards(0, 3), ElementsAre(0, 2, 1));
  EXPECT_THAT(HeldShards(1, 3), ElementsAre(1, 0, 2));
  EXPECT_THAT(HeldShards(2, 3), ElementsAre(2, 1, 0));
}

TEST(AllGatherScheduleTest, OneRankComputesItsOwnShardWithoutCommunicating) {
  std::vector<AllGatherStep> steps = AllGatherSchedule(0, 1);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].held_shard, 0);
  EXPECT_FALSE(steps[0].communicates);
  EXPECT_EQ(steps[0].send_to, -1);
  EXPECT_EQ(steps[0].recv_from, -1);
  EXPECT_EQ(steps[0].recv_shard, -1);
}

TEST(AllGatherScheduleTest, TwoRanksExchangeOnceThenComputeTheOtherShard) {
  std::vector<AllGatherStep> r1 = AllGatherSchedule(1, 2);
  ASSERT_EQ(r1.size(), 2u);
  EXPECT_EQ(r1[0].held_shard, 1);
  EXPECT_TRUE(r1[0].communicates);
  EXPECT_EQ(r1[0].send_to, 0);
  EXPECT_EQ(r1[0].recv_from, 0);
  EXPECT_EQ(r1[0].recv_shard, 0);
  EXPECT_EQ(r1[1].held_shard, 0);
  EXPECT_FALSE(r1[1].communicates);
}

// For every ring width 1..8: each rank starts with its own shard, holds every shard exactly
// once, communicates at every step but the last, and what it receives at step s is exactly
// what its sender held (and sent) at step s and what it holds at step s + 1.
TEST(AllGatherScheduleTest, EveryRankHoldsEveryShardOnceAndReceivesWhatItsSenderHeld) {
  for (int tp = 1; tp <= 8; ++tp) {
    std::vector<std::vector<AllGatherStep>> all;
    for (int r = 0; r < tp; ++r) all.push_back(AllGatherSchedule(r, tp));
    for (int r = 0; r < tp; ++r) {
      SCOPED_TRACE(testing::Message() << "tp=" << tp << " rank=" << r);
      ASSERT_EQ(static_cast<int>(all[r].size()), tp);
      EXPECT_EQ(all[r][0].held_shard, r);
      std::set<int> seen;
      for (int s = 0; s < tp; ++s) {
        const AllGatherStep& st = all[r][s];
        EXPECT_EQ(st.step, s);
        EXPECT_EQ(st.held_shard, HeldShard(r, s, tp));
        seen.insert(st.held_shard);
        EXPECT_EQ(st.communicates, s < tp - 1);
        if (!st.communicates) continue;
        ASSERT_GE(st.send_to, 0);
        ASSERT_GE(st.recv_from, 0);
        // The peer I send to expects me at this very step.
        EXPECT_EQ(all[st.send_to][s].recv_from, r);
        // I receive what my sender holds at this step, and hold it next step.
        EXPECT_EQ(st.recv_shard, all[st.recv_from][s].held_shard);
        EXPECT_EQ(st.recv_shard, all[r][s + 1].held_shard);
      }
      EXPECT_EQ(static_cast<int>(seen.size()), tp);
    }
  }
}

// Plays the all-gather out with explicit message passing: each rank starts with only its own
// shard and may compute on a shard only once it has arrived.
TEST(AllGatherScheduleTest, MessagePassingDeliversEveryShardBeforeItIsComputed) {
  for (int tp = 1; tp <= 8; ++tp) {
    std::vector<std::set<int>> have(tp);
    for (int r = 0; r < tp; ++r) have[r].insert(r);
    for (int s = 0; s < tp; ++s) {
      std::vector<std::set<int>> next = have;
      for (int r = 0; r < tp; ++r) {
        const AllGatherStep st = AllGatherSchedule(r, tp)[s];
        EXPECT_TRUE(have[r].count(st.held_shard)) << "tp=" << tp << " rank=" << r << " step=" << s;
        if (st.communicates) next[st.send_to].insert(st.held_shard);
      }
      have = next;
    }
    for (int r = 0; r < tp; ++r) EXPECT_EQ(static_cast<int>(have[r].size()), tp);
  }
}

TEST(ReduceScatterScheduleTest, ThreeRanksComputeBlocksEndingWithTheirOwn) {
  EXPECT_THAT(ReduceBlocks(0, 3), ElementsAre(2, 1, 0));
  EXPECT_THAT(ReduceBlocks(1, 3), ElementsAre(0, 2, 1));
  EXPECT_THAT(ReduceBlocks(2, 3), ElementsAre(1, 0, 2));
}

// For every ring width 1..8: the running sum that ends on rank c has collected the partial of
// every rank exactly once, and each rank adds what its sender sent at the previous step for
// the same block.
TEST(ReduceScatterScheduleTest, RunningSumCollectsEveryRanksPartialExactlyOnce) {
  for (int tp = 1; tp <= 8; ++tp) {
    // sums[r] = multiset of (rank, block) partials in the sum rank r holds after its step.
    std::vector<std::multiset<std::pair<int, int>>> sums(tp), received(tp);
    for (int s = 0; s < tp; ++s) {
      std::vector<std::multiset<std::pair<int, int>>> outgoing(tp);
      for (int r = 0; r < tp; ++r) {
        SCOPED_TRACE(testing::Message() << "tp=" << tp << " rank=" << r << " step=" << s);
        const ReduceScatterStep st = ReduceScatterSchedule(r, tp)[s];
        EXPECT_EQ(st.block, ReduceBlock(r, s, tp));
        EXPECT_EQ(st.adds_received, s > 0);
        std::multiset<std::pair<int, int>> sum;
        if (st.adds_received) {
          sum = received[r];
          for (const auto& [from_rank, block] : received[r]) EXPECT_EQ(block, st.block);
        }
        sum.insert({r, st.block});
        sums[r] = sum;
        EXPECT_EQ(st.communicates, s < tp - 1);
        if (st.communicates) {
          EXPECT_EQ(ReduceScatterSchedule(st.send_to, tp)[s].recv_from, r);
          outgoing[st.send_to] = sum;
        }
      }
      received = outgoing;
    }
    for (int c = 0; c < tp; ++c) {
      SCOPED_TRACE(testing::Message() << "tp=" << tp << " block owner=" << c);
      EXPECT_EQ(ReduceScatterSchedule(c, tp).back().block, c);
      std::multiset<std::pair<int, int>> want;
      for (int r = 0; r < tp; ++r) want.insert({r, c});
      EXPECT_EQ(sums[c], want);
    }
  }
}

}  // namespace
}  // namespace gh
