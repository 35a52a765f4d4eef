#include "harness/driver/slurm_sweep.h"

#include <cstdio>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/testdata/captured_file.h"

namespace gh::driver {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

SweepPlan Plan(const std::vector<std::pair<int, std::string>>& cells) {
  SweepPlan plan;
  for (const auto& [ranks, launcher] : cells) {
    PlannedCell c;
    c.plan.id = "np=" + std::to_string(ranks);
    c.plan.ranks = ranks;
    c.launcher.name = launcher;
    c.launcher.argv = {launcher, "{program}"};
    plan.cells.push_back(c);
  }
  return plan;
}

Resources Allocation() {
  Resources r;
  SlurmAllocation a;
  a.job_id = "9";
  a.nodelist = "n[1-2]";
  a.nodes = {{"n1", 8, 0}, {"n2", 8, 0}};
  r.slurm = a;
  return r;
}

TEST(SlurmSweepTest, SrunCellsThatFitKeepTheAllocation) {
  Resources r = Allocation();
  testing::CapturedFile progress;
  EXPECT_TRUE(UseSlurmAllocation(Plan({{2, "srun"}, {16, "srun"}}), r, progress.file()).ok());
  EXPECT_TRUE(r.slurm.has_value());
}

TEST(SlurmSweepTest, ACellBiggerThanTheAllocationIsBadInput) {
  Resources r = Allocation();
  testing::CapturedFile progress;
  absl::Status st = UseSlurmAllocation(Plan({{2, "srun"}, {17, "srun"}}), r, progress.file());
  EXPECT_TRUE(absl::IsInvalidArgument(st));
  EXPECT_THAT(st.message(), HasSubstr("cell np=17 needs 17 ranks; the Slurm job 9: 2 node(s) n[1-2], 16 CPUs"));
}

TEST(SlurmSweepTest, ANonSrunLauncherSetsTheAllocationAsideAndSaysSo) {
  Resources r = Allocation();
  testing::CapturedFile progress;
  EXPECT_TRUE(UseSlurmAllocation(Plan({{2, "srun"}, {64, "mpirun"}}), r, progress.file()).ok());
  EXPECT_FALSE(r.slurm.has_value());
  EXPECT_EQ(progress.Text(),
            "Slurm job 9: 2 node(s) n[1-2], 16 CPUs, 0 GPUs: cell np=64's launcher 'mpirun' is not srun: "
            "the cells run on this node only\n");
}

TEST(SlurmSweepTest, LargestCellsStartFirstMatrixOrderAmongEquals) {
  SweepPlan plan = Plan({{2, "srun"}, {16, "srun"}, {4, "srun"}, {2, "srun"}, {4, "srun"}});
  EXPECT_THAT(LargestCellsFirst(plan, {0, 1, 2, 3, 4}), ElementsAre(1, 2, 4, 0, 3));
  EXPECT_THAT(LargestCellsFirst(plan, {3, 0}), ElementsAre(3, 0));
}

}  // namespace
}  // namespace gh::driver
