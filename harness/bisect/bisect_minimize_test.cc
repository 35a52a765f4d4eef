#include "harness/bisect/bisect_minimize.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gh {
namespace {

using ::testing::ElementsAre;

driver::CellPlan Plan() {
  driver::CellPlan plan;
  plan.id = "cell";
  plan.ranks = 4;
  plan.launcher = "mpirun";
  return plan;
}

std::vector<std::string> Texts(const std::vector<SettingChange>& changes, bool failing) {
  std::vector<std::string> out;
  for (const SettingChange& c : changes) out.push_back(failing ? c.FailingText() : c.PassingText());
  return out;
}

TEST(DiffSettingsTest, PlainVariablesFlagsAndPathLists) {
  driver::CellPlan passing = Plan(), failing = Plan();
  passing.env.set = {{"NCCL_CUMEM_ENABLE", "0"}, {"NCCL_PROTO", "Simple"}, {"SAME", "x"}};
  failing.env.set = {{"NCCL_PROTO", "LL"}, {"NCCL_ALGO", "Ring"}, {"SAME", "x"}};
  passing.env.flags["XLA_FLAGS"] = {"--a=1", "--xla_gpu_enable_dynamic_slice_fusion=false"};
  failing.env.flags["XLA_FLAGS"] = {"--a=1", "--b"};
  failing.env.prepend["LD_LIBRARY_PATH"] = {"/v2/lib"};
  absl::StatusOr<std::vector<SettingChange>> diff = DiffSettings(passing, failing);
  ASSERT_TRUE(diff.ok()) << diff.status();
  EXPECT_THAT(Texts(*diff, true),
              ElementsAre("LD_LIBRARY_PATH: prepend /v2/lib", "NCCL_ALGO=Ring", "unset NCCL_CUMEM_ENABLE",
                          "NCCL_PROTO=LL", "XLA_FLAGS += --b",
                          "XLA_FLAGS without --xla_gpu_enable_dynamic_slice_fusion"));
  EXPECT_THAT(Texts(*diff, false),
              ElementsAre("LD_LIBRARY_PATH not extended", "unset NCCL_ALGO", "NCCL_CUMEM_ENABLE=0",
                          "NCCL_PROTO=Simple", "XLA_FLAGS without --b",
                          "XLA_FLAGS += --xla_gpu_enable_dynamic_slice_fusion=false"));
}

TEST(DiffSettingsTest, ApplyingEveryChangeGivesTheFailingEnvironment) {
  driver::CellPlan passing = Plan(), failing = Plan();
  passing.env.set = {{"NCCL_CUMEM_ENABLE", "0"}, {"KEEP", "1"}};
  failing.env.set = {{"NCCL_P2P_DISABLE", "1"}, {"KEEP", "1"}};
  passing.env.flags["XLA_FLAGS"] = {"--x=1"};
  failing.env.flags["XLA_FLAGS"] = {"--x=2", "--y"};
  failing.env.append["PATH"] = {"/opt/bin"};
  absl::StatusOr<std::vector<SettingChange>> diff = DiffSettings(passing, failing);
  ASSERT_TRUE(diff.ok());
  driver::CellPlan applied = ApplyChanges(passing, *diff);
  EXPECT_EQ(applied.env.set, failing.env.set);
  EXPECT_THAT(applied.env.flags["XLA_FLAGS"], ElementsAre("--x=2", "--y"));
  EXPECT_EQ(applied.env.append, failing.env.append);
  EXPECT_TRUE(DiffSettings(applied, failing)->empty());
  // One change alone: only that variable moves.
  std::vector<SettingChange> one;
  for (const SettingChange& c : *diff) {
    if (c.variable == "NCCL_CUMEM_ENABLE") one.push_back(c);
  }
  ASSERT_EQ(one.size(), 1u);
  driver::CellPlan partial = ApplyChanges(passing, one);
  EXPECT_EQ(partial.env.set, (std::map<std::string, std::string>{{"KEEP", "1"}}));
  EXPECT_THAT(partial.env.flags["XLA_FLAGS"], ElementsAre("--x=1"));
}

TEST(DiffSettingsTest, OtherDifferencesAreRefusedByName) {
  driver::CellPlan passing = Plan(), failing = Plan();
  failing.ranks = 2;
  failing.version = "2.28.9";
  absl::StatusOr<std::vector<SettingChange>> diff = DiffSettings(passing, failing);
  ASSERT_FALSE(diff.ok());
  EXPECT_EQ(diff.status().message(),
            "--failing and --passing differ in version ( vs 2.28.9), ranks (4 vs 2): minimize varies "
            "environment variables and flags only; choose cells that differ in those");
}

TEST(FlagNameTest, UpToTheEqualsSign) {
  EXPECT_EQ(FlagName("--a=1=2"), "--a");
  EXPECT_EQ(FlagName("--b"), "--b");
}

}  // namespace
}  // namespace gh
