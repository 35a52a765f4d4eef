#include "harness/driver/slurm_allocation.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace gh::driver {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(SlurmAllocationTest, ExpandsHostlists) {
  absl::StatusOr<std::vector<std::string>> hosts =
      ExpandHostlist("ghnode[1-3],login[01,05-06],gpu7,rack[2]-x");
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  EXPECT_THAT(*hosts, ElementsAre("ghnode1", "ghnode2", "ghnode3", "login01", "login05", "login06",
                                  "gpu7", "rack2-x"));
  EXPECT_THAT(*ExpandHostlist("node09,node[9-11]"), ElementsAre("node09", "node9", "node10", "node11"));
}

TEST(SlurmAllocationTest, RejectsBadHostlists) {
  for (const char* bad : {"", "node[1-3", "node1-3]", "node[3-1]", "node[a-b]", "a,,b", "n[1-2-3]"}) {
    absl::StatusOr<std::vector<std::string>> hosts = ExpandHostlist(bad);
    EXPECT_TRUE(absl::IsInvalidArgument(hosts.status())) << bad;
    EXPECT_THAT(hosts.status().message(), HasSubstr(absl::StrCat("SLURM_JOB_NODELIST '", bad, "'")));
  }
}

TEST(SlurmAllocationTest, ParsesCpusPerNode) {
  EXPECT_THAT(*ParseCpusPerNode("8(x3)", 3), ElementsAre(8, 8, 8));
  EXPECT_THAT(*ParseCpusPerNode("16,8(x2)", 3), ElementsAre(16, 8, 8));
  EXPECT_THAT(*ParseCpusPerNode("4", 1), ElementsAre(4));
  absl::StatusOr<std::vector<int>> short_list = ParseCpusPerNode("8(x2)", 3);
  EXPECT_THAT(short_list.status().message(),
              HasSubstr("SLURM_JOB_CPUS_PER_NODE '8(x2)': gives 2 node(s), SLURM_JOB_NODELIST has 3"));
  for (const char* bad : {"", "x", "8(3)", "8(x0)", "0", "8(x2"}) {
    EXPECT_TRUE(absl::IsInvalidArgument(ParseCpusPerNode(bad, 1).status())) << bad;
  }
}

TEST(SlurmAllocationTest, ReadsGpusPerNodeFromScontrol) {
  // As `scontrol show job -d` prints a job with gres on three nodes, two of them alike.
  const std::string text =
      "JobId=7 JobName=x\n"
      "   NumNodes=3 NumCPUs=24 NumTasks=3 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
      "   JOB_GRES=gpu:10\n"
      "     Nodes=ghnode[1-2] CPU_IDs=0-7 Mem=0 GRES=gpu:4(IDX:0-3)\n"
      "     Nodes=ghnode3 CPU_IDs=0-7 Mem=0 GRES=gpu:h100:2(IDX:1,3)\n"
      "   TresPerNode=gres:gpu:4\n";
  absl::StatusOr<std::map<std::string, int>> gpus = ParseJobGpus(text);
  ASSERT_TRUE(gpus.ok()) << gpus.status();
  EXPECT_EQ(*gpus, (std::map<std::string, int>{{"ghnode1", 4}, {"ghnode2", 4}, {"ghnode3", 2}}));
  EXPECT_TRUE(ParseJobGpus("     Nodes=ghnode1 CPU_IDs=0-7 Mem=0 GRES=\n")->empty());
}


TEST(SlurmAllocationTest, DiscoversTheAllocationFromEnvironmentAndScontrol) {
  std::map<std::string, const char*> env = {{"SLURM_JOB_ID", "7"},
                                            {"SLURM_JOB_NODELIST", "ghnode[1-3]"},
                                            {"SLURM_JOB_CPUS_PER_NODE", "8(x2),2"}};
  GetEnvFn getenv = [&](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second;
  };
  std::string asked;
  ScontrolFn scontrol = [&](const std::string& job) -> absl::StatusOr<std::string> {
    asked = job;
    return std::string("     Nodes=ghnode2 CPU_IDs=0-7 Mem=0 GRES=gpu:4(IDX:0-3)\n");
  };
  absl::StatusOr<std::optional<SlurmAllocation>> a = DiscoverSlurmAllocation(getenv, scontrol);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(a->has_value());
  EXPECT_EQ(asked, "7");
  const SlurmAllocation& got = **a;
  ASSERT_EQ(got.nodes.size(), 3u);
  EXPECT_EQ(got.nodes[0].name, "ghnode1");
  EXPECT_EQ(got.nodes[0].cpus, 8);
  EXPECT_EQ(got.nodes[0].gpus, 0);
  EXPECT_EQ(got.nodes[1].gpus, 4);
  EXPECT_EQ(got.nodes[2].cpus, 2);
  EXPECT_EQ(got.ToString(), "Slurm job 7: 3 node(s) ghnode[1-3], 18 CPUs, 4 GPUs");

  // scontrol failing: no GPUs, the nodes still.
  ScontrolFn failing = [](const std::string&) -> absl::StatusOr<std::string> {
    return absl::UnavailableError("no scontrol");
  };
  a = DiscoverSlurmAllocation(getenv, failing);
  ASSERT_TRUE(a.ok() && a->has_value());
  EXPECT_EQ((*a)->nodes[1].gpus, 0);

  // Inside a job step (a rank of srun): no allocation to pack.
  env["SLURM_STEP_ID"] = "0";
  a = DiscoverSlurmAllocation(getenv, scontrol);
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(a->has_value());
  env.erase("SLURM_STEP_ID");

  env["SLURM_JOB_CPUS_PER_NODE"] = "8(x2)";
  EXPECT_THAT(DiscoverSlurmAllocation(getenv, scontrol).status().message(),
              HasSubstr("gives 2 node(s), SLURM_JOB_NODELIST has 3"));
  env.erase("SLURM_JOB_CPUS_PER_NODE");
  EXPECT_THAT(DiscoverSlurmAllocation(getenv, scontrol).status().message(),
              HasSubstr("SLURM_JOB_CPUS_PER_NODE is not"));
  env.erase("SLURM_JOB_NODELIST");
  a = DiscoverSlurmAllocation(getenv, scontrol);
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(a->has_value());
}

}  // namespace
}  // namespace gh::driver
