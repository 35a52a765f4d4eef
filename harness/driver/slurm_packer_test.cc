#include "harness/driver/slurm_packer.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/driver/resource_pool.h"
#include "harness/driver/slurm_step.h"

namespace gh::driver {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// "node:tasks:gpus ..." for compact expectations.
std::string Show(const std::optional<std::vector<NodeTasks>>& placed) {
  if (!placed) return "none";
  std::string out;
  for (const NodeTasks& t : *placed) {
    out += (out.empty() ? "" : " ") + std::to_string(t.node) + ":" + std::to_string(t.tasks) + ":" +
           std::to_string(t.gpus);
  }
  return out;
}

TEST(SlurmPackerTest, OneNodeCellsGoToTheFullestNodeThatHoldsThem) {
  std::vector<NodeCapacity> free = {{8, 0}, {3, 0}, {5, 0}};
  EXPECT_EQ(Show(PlaceRanks(free, 2, false, false)), "1:2:0");
  EXPECT_EQ(Show(PlaceRanks(free, 4, false, false)), "2:4:0");
  EXPECT_EQ(Show(PlaceRanks(free, 8, false, false)), "0:8:0");
}

TEST(SlurmPackerTest, LargeCellsSpreadOverTheFewestNodesFreestFirst) {
  std::vector<NodeCapacity> free = {{3, 0}, {8, 0}, {6, 0}};
  EXPECT_EQ(Show(PlaceRanks(free, 12, false, false)), "1:8:0 2:4:0");
  EXPECT_EQ(Show(PlaceRanks(free, 17, false, false)), "0:3:0 1:8:0 2:6:0");
  EXPECT_EQ(Show(PlaceRanks(free, 18, false, false)), "none");
  EXPECT_EQ(Show(PlaceRanks(free, 0, false, false)), "none");
}

TEST(SlurmPackerTest, GpuModeTakesAGpuPerRankOrOnePerNodeWhenShared) {
  std::vector<NodeCapacity> free = {{8, 4}, {8, 2}, {1, 4}};
  EXPECT_EQ(RanksThatFit(free[0], true, false), 4);
  EXPECT_EQ(RanksThatFit(free[2], true, false), 1);
  EXPECT_EQ(Show(PlaceRanks(free, 2, true, false)), "1:2:2");
  EXPECT_EQ(Show(PlaceRanks(free, 6, true, false)), "0:4:4 1:2:2");
  EXPECT_EQ(Show(PlaceRanks(free, 8, true, false)), "none");
  // Shared: the ranks of a node use one GPU, so CPUs bound them.
  EXPECT_EQ(Show(PlaceRanks(free, 8, true, true)), "0:8:1");
  EXPECT_EQ(Show(PlaceRanks(free, 12, true, true)), "0:8:1 1:4:1");
  EXPECT_EQ(RanksThatFit({8, 0}, true, true), 0);
}

Resources ThreeNodes(int gpus) {
  Resources r;
  r.slots = 2;
  r.source = "nproc";
  SlurmAllocation a;
  a.job_id = "7";
  a.nodelist = "ghnode[1-3]";
  for (int k = 1; k <= 3; ++k) a.nodes.push_back({"ghnode" + std::to_string(k), 8, gpus});
  r.slurm = a;
  return r;
}

TEST(SlurmPackerTest, ThePoolPacksCellsSideBySideAndFreesTheirNodes) {
  ResourcePool pool(ThreeNodes(0));
  std::optional<Allocation> big = pool.TryAcquireCell(16, false);
  ASSERT_TRUE(big);
  ASSERT_EQ(big->nodes.size(), 2u);
  EXPECT_EQ(big->nodes[0].name, "ghnode1");
  EXPECT_EQ(big->nodes[0].tasks, 8);
  EXPECT_EQ(big->nodes[1].name, "ghnode2");
  std::optional<Allocation> small = pool.TryAcquireCell(2, false);
  ASSERT_TRUE(small);
  ASSERT_EQ(small->nodes.size(), 1u);
  EXPECT_EQ(small->nodes[0].name, "ghnode3");
  EXPECT_FALSE(pool.TryAcquireCell(7, false));  // 6 left on ghnode3
  std::optional<Allocation> six = pool.TryAcquireCell(6, false);
  ASSERT_TRUE(six);
  EXPECT_FALSE(pool.TryAcquireCell(1, false));
  EXPECT_FALSE(pool.Idle());
  pool.Release(*big);
  EXPECT_TRUE(pool.TryAcquireCell(16, false));
  pool.Release(*small);
  pool.Release(*six);
}

TEST(SlurmPackerTest, ADeadNodeTakesNoCellAgainAndKeepsWhatItHeld) {
  ResourcePool pool(ThreeNodes(0));
  std::optional<Allocation> on1 = pool.TryAcquireCell(8, false);
  ASSERT_TRUE(on1);
  ASSERT_EQ(on1->nodes.size(), 1u);
  const std::string dead = on1->nodes[0].name;
  pool.ExcludeNode(dead);
  pool.Release(*on1);  // its CPUs are not given back
  EXPECT_THAT(pool.DeadNodes(), ElementsAre(dead));
  EXPECT_TRUE(pool.FitsLiveNodes(16, false));
  EXPECT_FALSE(pool.FitsLiveNodes(17, false));  // 24 CPUs less the dead node's 8
  std::optional<Allocation> sixteen = pool.TryAcquireCell(16, false);
  ASSERT_TRUE(sixteen);
  for (const StepNode& n : sixteen->nodes) EXPECT_NE(n.name, dead);
  EXPECT_FALSE(pool.TryAcquireCell(1, false));
  pool.Release(*sixteen);
  EXPECT_TRUE(pool.Idle());
  for (const char* name : {"ghnode1", "ghnode2", "ghnode3", "nosuchnode"}) pool.ExcludeNode(name);
  EXPECT_FALSE(pool.FitsLiveNodes(1, false));
  EXPECT_FALSE(pool.TryAcquireCell(1, false));
  EXPECT_THAT(pool.DeadNodes(), ElementsAre("ghnode1", "ghnode2", "ghnode3"));
}

TEST(SlurmPackerTest, GpuPoolCountsGpusPerNode) {
  ResourcePool pool(ThreeNodes(4));
  std::optional<Allocation> a = pool.TryAcquireCell(6, false);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->nodes[0].gpus + a->nodes[1].gpus, 6);
  EXPECT_TRUE(pool.TryAcquireCell(6, false));
  EXPECT_FALSE(pool.TryAcquireCell(1, false));  // 12 GPUs, 12 taken
  pool.Release(*a);
  EXPECT_TRUE(pool.TryAcquireCell(4, false));
}

TEST(SlurmPackerTest, ACellBiggerThanTheAllocationIsRefusedByName) {
  Resources r = ThreeNodes(0);
  EXPECT_TRUE(CheckFitsAllocation(r, "np=24", 24, false).ok());
  absl::Status st = CheckFitsAllocation(r, "np=32", 32, false);
  EXPECT_TRUE(absl::IsInvalidArgument(st));
  EXPECT_EQ(st.message(),
            "cell np=32 needs 32 ranks; the Slurm job 7: 3 node(s) ghnode[1-3], 24 CPUs, 0 GPUs holds "
            "at most 24 (one CPU a rank)");
  Resources gpus = ThreeNodes(4);
  EXPECT_THAT(CheckFitsAllocation(gpus, "np=16", 16, false).message(),
              HasSubstr("holds at most 12 (one GPU and one CPU a rank)"));
  EXPECT_TRUE(CheckFitsAllocation(gpus, "np=16", 16, true).ok());
  Resources local;
  EXPECT_TRUE(CheckFitsAllocation(local, "np=999", 999, false).ok());
}

TEST(SlurmStepTest, PlacesRanksBlockedOnTheGivenNodes) {
  EXPECT_THAT(SrunStepArgs({{"ghnode1", 3, 0}, {"ghnode3", 1, 0}}, false, false),
              ElementsAre("--exact", "-N", "2", "-w", "ghnode1,ghnode1,ghnode1,ghnode3",
                          "--distribution=arbitrary"));
  EXPECT_THAT(SrunStepArgs({{"ghnode2", 2, 2}}, true, false),
              ElementsAre("--exact", "-N", "1", "-w", "ghnode2,ghnode2", "--distribution=arbitrary",
                          "--gpus-per-task=1"));
  EXPECT_THAT(SrunStepArgs({{"ghnode2", 2, 1}}, true, true).back(), "--gpus-per-node=1");
}

}  // namespace
}  // namespace gh::driver
