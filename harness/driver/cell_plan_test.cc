#include "harness/driver/cell_plan.h"

#include <algorithm>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "absl/strings/str_cat.h"

namespace gh::driver {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Matrix MustLoad(const std::string& text) {
  absl::StatusOr<Matrix> m = LoadMatrixText(text, "m.yaml", "/mats");
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *m : Matrix{};
}

std::vector<std::string> Ids(const std::vector<CellPlan>& cells) {
  std::vector<std::string> ids;
  for (const CellPlan& c : cells) ids.push_back(c.id);
  return ids;
}

constexpr char kTwoAxesAndVersions[] = R"(name: m
scenarios: [a.yaml]
defaults: {ranks: 4}
axes:
  - name: proto
    values: [{label: simple, env: {NCCL_PROTO: Simple}}, {label: ll, env: {NCCL_PROTO: LL}}]
  - name: np
    values: [{label: "2", ranks: 2}, {label: "4", ranks: 4}]
versions:
  name: nccl
  values: [{label: "2.28.3"}, {label: "2.28.9"}]
)";

TEST(CellPlanTest, ProductFirstAxisSlowestVersionLast) {
  absl::StatusOr<std::vector<CellPlan>> cells = ExpandCells(MustLoad(kTwoAxesAndVersions));
  ASSERT_TRUE(cells.ok()) << cells.status();
  std::vector<std::string> want;
  for (const char* proto : {"simple", "ll"}) {
    for (const char* np : {"2", "4"}) {
      for (const char* nccl : {"2.28.3", "2.28.9"}) {
        want.push_back(absl::StrCat("proto=", proto, ",np=", np, ",nccl=", nccl));
      }
    }
  }
  EXPECT_EQ(Ids(*cells), want);
  EXPECT_EQ((*cells)[0].ranks, 2);
  EXPECT_EQ((*cells)[2].ranks, 4);
  EXPECT_EQ((*cells)[4].env.set.at("NCCL_PROTO"), "LL");
  EXPECT_EQ((*cells)[5].version, "2.28.9");
  EXPECT_EQ((*cells)[5].LabelMap().at("np"), "2");
}

TEST(CellPlanTest, ExcludeRemovesAndIncludeAddsBack) {
  std::string text = std::string(kTwoAxesAndVersions) +
                     "exclude: [{proto: ll, np: \"4\"}, {nccl: \"2.28.3\"}]\n"
                     "include: [{proto: ll, np: \"4\", nccl: \"2.28.9\"}]\n";
  absl::StatusOr<std::vector<CellPlan>> cells = ExpandCells(MustLoad(text));
  ASSERT_TRUE(cells.ok()) << cells.status();
  EXPECT_THAT(Ids(*cells), ElementsAre("proto=simple,np=2,nccl=2.28.9", "proto=simple,np=4,nccl=2.28.9",
                                       "proto=ll,np=2,nccl=2.28.9", "proto=ll,np=4,nccl=2.28.9"));
}

TEST(CellPlanTest, EverythingExcludedIsAnError) {
  absl::StatusOr<std::vector<CellPlan>> cells =
      ExpandCells(MustLoad("name: m\nscenarios: [a.yaml]\naxes: [{name: p, values: [a]}]\nexclude: [{p: a}]\n"));
  ASSERT_FALSE(cells.ok());
  EXPECT_EQ(std::string(cells.status().message()), "m.yaml:1:1: exclude: every cell is excluded");
}

TEST(CellPlanTest, NoAxesIsOneCell) {
  absl::StatusOr<std::vector<CellPlan>> cells = ExpandCells(MustLoad("name: m\nscenarios: [a.yaml]\n"));
  ASSERT_TRUE(cells.ok());
  EXPECT_THAT(Ids(*cells), ElementsAre("all"));
  EXPECT_EQ((*cells)[0].ranks, 1);
  EXPECT_EQ((*cells)[0].launcher, "mpirun");
  EXPECT_EQ((*cells)[0].timeout, absl::Minutes(10));
  EXPECT_EQ((*cells)[0].backend, "auto");
}

TEST(CellPlanTest, TwoAxesSettingOneVariableDifferentlyNamesBoth) {
  absl::StatusOr<std::vector<CellPlan>> cells = ExpandCells(MustLoad(R"(name: m
scenarios: [a.yaml]
axes:
  - name: proto
    values: [{label: ll, env: {NCCL_PROTO: LL}}]
  - name: other
    values: [{label: x, env: {NCCL_PROTO: Simple}}]
)"));
  ASSERT_FALSE(cells.ok());
  EXPECT_EQ(std::string(cells.status().message()),
            "m.yaml:7:14: env.NCCL_PROTO: axis 'other' value 'x' sets 'Simple' but axis 'proto' "
            "value 'll' at m.yaml:5:14 sets 'LL' in the same cell");
}

TEST(CellPlanTest, TwoAxesSettingRanksDifferentlyIsAnError) {
  absl::StatusOr<std::vector<CellPlan>> cells = ExpandCells(MustLoad(R"(name: m
scenarios: [a.yaml]
axes:
  - {name: a, values: [{label: x, ranks: 2}]}
  - {name: b, values: [{label: y, ranks: 4}]}
)"));
  ASSERT_FALSE(cells.ok());
  EXPECT_THAT(std::string(cells.status().message()),
              HasSubstr("m.yaml:5:24: ranks: axis 'b' value 'y' sets '4' but axis 'a' value 'x'"));
}

TEST(CellPlanTest, AxesOverrideDefaultsWithoutError) {
  absl::StatusOr<std::vector<CellPlan>> cells = ExpandCells(MustLoad(R"(name: m
scenarios: [a.yaml]
defaults: {env: {NCCL_DEBUG: WARN}, ranks: 4}
axes:
  - {name: a, values: [{label: x, ranks: 2, env: {NCCL_DEBUG: INFO}}]}
)"));
  ASSERT_TRUE(cells.ok()) << cells.status();
  EXPECT_EQ((*cells)[0].ranks, 2);
  EXPECT_EQ((*cells)[0].env.set.at("NCCL_DEBUG"), "INFO");
}

TEST(CellPlanTest, FlagsFromAxesAreMergedLaterAxisWins) {
  absl::StatusOr<std::vector<CellPlan>> cells = ExpandCells(MustLoad(R"(name: m
scenarios: [a.yaml]
axes:
  - {name: a, values: [{label: x, flags: {XLA_FLAGS: ["--xla_a=1", "--xla_b=true"]}}]}
  - {name: b, values: [{label: y, flags: {XLA_FLAGS: "--xla_b=false --xla_c"}}]}
)"));
  ASSERT_TRUE(cells.ok()) << cells.status();
  std::vector<std::string> env = ApplyEnvPlan({"XLA_FLAGS=--xla_z=9 --xla_a=0", "HOME=/root"},
                                              (*cells)[0].env, {}, "");
  EXPECT_THAT(env, ElementsAre("XLA_FLAGS=--xla_z=9 --xla_a=1 --xla_b=false --xla_c", "HOME=/root"));
}

TEST(CellPlanTest, MergeFlags) {
  EXPECT_EQ(MergeFlags("", {"--a=1", "--b"}), "--a=1 --b");
  EXPECT_EQ(MergeFlags("--a=0  --keep", {"--a=1", "--a=2"}), "--a=2 --keep");
  EXPECT_EQ(MergeFlags("--b", {"--b=3"}), "--b=3");
}

TEST(CellPlanTest, ApplyEnvPlanPrependAppendAndVersionDir) {
  EnvPlan plan;
  plan.set["NCCL_PROTO"] = "LL";
  plan.prepend["LD_LIBRARY_PATH"] = {"{version_dir}/lib"};
  plan.append["PATH"] = {"/opt/bin", ""};
  plan.prepend["NEWVAR"] = {"/x"};
  std::vector<std::string> env = ApplyEnvPlan(
      {"PATH=/usr/bin", "LD_LIBRARY_PATH=/usr/lib", "NCCL_PROTO=Simple"}, plan,
      {{"CUDA_VISIBLE_DEVICES", "2,3"}}, "/out/versions/2.28.9");
  EXPECT_THAT(env, ElementsAre("PATH=/usr/bin:/opt/bin",
                               "LD_LIBRARY_PATH=/out/versions/2.28.9/lib:/usr/lib",
                               "NCCL_PROTO=LL", "NEWVAR=/x", "CUDA_VISIBLE_DEVICES=2,3"));
  EXPECT_THAT(plan.Names(), ElementsAre("LD_LIBRARY_PATH", "NCCL_PROTO", "NEWVAR", "PATH"));
}

TEST(CellPlanTest, SafeDirNameKeepsPlainIdsAndDisambiguatesReplaced) {
  EXPECT_EQ(SafeDirName("proto=ll,np=4,nccl=2.28.9"), "proto=ll,np=4,nccl=2.28.9");
  std::string a = SafeDirName("dsf=a/b");
  std::string b = SafeDirName("dsf=a b");
  EXPECT_EQ(a.substr(0, 8), "dsf=a_b-");
  EXPECT_EQ(b.substr(0, 8), "dsf=a_b-");
  EXPECT_NE(a, b);
  EXPECT_EQ(SafeDirName("..").find('/'), std::string::npos);
  EXPECT_NE(SafeDirName(".."), "..");
}

TEST(CellPlanTest, SettingsHashChangesWithSettingsOnly) {
  auto hash_of = [](const std::string& proto_value) {
    absl::StatusOr<std::vector<CellPlan>> cells = ExpandCells(MustLoad(
        "name: m\nscenarios: [a.yaml]\naxes: [{name: p, values: [{label: a, env: {X: " +
        proto_value + "}}]}]\n"));
    return cells.ok() ? (*cells)[0].settings_hash : std::string("error");
  };
  EXPECT_EQ(hash_of("1"), hash_of("1"));
  EXPECT_NE(hash_of("1"), hash_of("2"));
  EXPECT_EQ(hash_of("1").size(), 16u);
}

}  // namespace
}  // namespace gh::driver
