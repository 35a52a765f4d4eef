#include "harness/core/validity_range.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/point.h"
#include "harness/core/record.h"
#include "harness/core/scenario_loader.h"
#include "harness/core/skip_cause.h"
#include "harness/core/testdata/loaded_scenario.h"

namespace gh {
namespace {

using ::testing::HasSubstr;

ScenarioRegistry MakeRegistry() {
  return testing::RegistryOfOneHostKind(
      "fake_capture", {{"stream", ParamType::kEnum, std::string("shared"), "which", {"shared", "private"}, {}, {}}});
}

class ValidityTest : public ::testing::Test {
 protected:
  ScenarioSpec Load(const std::string& valid_for) {
    const std::string yaml = absl::StrCat("name: race\nkind: fake_capture\nvalid_for: ", valid_for,
                                          "\nexpect: {outcome: crash}\n");
    absl::StatusOr<std::vector<ScenarioSpec>> specs = LoadScenarioText(yaml, "scenarios/race.yaml", registry_);
    EXPECT_TRUE(specs.ok()) << specs.status();
    return specs.ok() ? (*specs)[0] : ScenarioSpec{};
  }
  std::string ErrorOf(const std::string& valid_for) {
    const std::string yaml = absl::StrCat("name: race\nkind: fake_capture\nvalid_for: ", valid_for, "\n");
    absl::StatusOr<std::vector<ScenarioSpec>> specs = LoadScenarioText(yaml, "scenarios/race.yaml", registry_);
    EXPECT_FALSE(specs.ok()) << "loaded: " << valid_for;
    return specs.ok() ? "" : std::string(specs.status().message());
  }
  std::string Outside(const ScenarioSpec& spec, std::map<std::string, std::string> facts, int nranks = 2) {
    absl::StatusOr<std::vector<Point>> points = ExpandPoints(spec, nranks);
    EXPECT_TRUE(points.ok() && !points->empty());
    return OutsideValidity(spec.valid_for, points->front(), EnvironmentFacts{std::move(facts)});
  }

  ScenarioRegistry registry_ = MakeRegistry();
};

TEST_F(ValidityTest, SharedGpuIsOutsideAOneRankPerGpuRange) {
  ScenarioSpec spec = Load("{gpu_shared: false}");
  ASSERT_TRUE(spec.valid_for.has_value());
  EXPECT_EQ(Outside(spec, {{"gpu_shared", "true"}, {"ranks_per_gpu", "2"}, {"nranks", "2"}}),
            "expectations hold for 1 rank per GPU; this run shares one GPU between 2 ranks");
  EXPECT_EQ(Outside(spec, {{"gpu_shared", "false"}, {"nranks", "2"}}), "");
}

TEST_F(ValidityTest, RankCountsRangesEnvAndGpuSayWhatThisRunHad) {
  EXPECT_EQ(Outside(Load("{nranks: \">=2\"}"), {{"nranks", "1"}}, 1),
            "expectations hold for nranks >=2; this run has 1 rank");
  EXPECT_EQ(Outside(Load("{nranks: [2, 4]}"), {{"nranks", "3"}}, 3),
            "expectations hold for 2 or 4 ranks; this run has 3 ranks");
  EXPECT_EQ(Outside(Load("{nccl: \">=2.28.4\"}"), {{"nccl_version", "2.28.3"}}),
            "expectations hold for NCCL >=2.28.4; this run runs NCCL 2.28.3");
  EXPECT_EQ(Outside(Load("{nccl: \">=2.28.4\"}"), {}),
            "expectations hold for NCCL >=2.28.4; this run reports no NCCL version");
  EXPECT_EQ(Outside(Load("{env: {NCCL_CUMEM_ENABLE: null}}"), {{"env.NCCL_CUMEM_ENABLE", "0"}}),
            "expectations hold for NCCL_CUMEM_ENABLE unset; this run has NCCL_CUMEM_ENABLE=0");
  EXPECT_EQ(Outside(Load("{gpu: \"NVIDIA H200*\"}"), {{"gpu", "NVIDIA H100 80GB HBM3"}}),
            "expectations hold for GPUs NVIDIA H200*; this run runs on NVIDIA H100 80GB HBM3");
  EXPECT_EQ(Outside(Load("{backend: cuda, gpu_shared: false}"), {{"backend", "cuda"}, {"gpu_shared", "false"}}), "");
}

TEST_F(ValidityTest, TheSkipMeetsEveryExpectation) {
  ScenarioSpec spec = Load("{gpu_shared: false}");
  const std::string why = Outside(spec, {{"gpu_shared", "true"}, {"ranks_per_gpu", "2"}});
  EXPECT_TRUE(IsNotApplicableSkip(Outcome::kSkip, why));
  EXPECT_FALSE(IsNotApplicableSkip(Outcome::kError, why));
  absl::StatusOr<std::vector<Point>> points = ExpandPoints(spec, 2);
  ASSERT_TRUE(points.ok());
  Record record = MakeRecord(spec, "scenarios/race.yaml", points->front(), 0, EnvironmentFacts{{{"gpu_shared", "true"}}});
  SetResult(record, PointOutcome::Skip(why));
  EXPECT_EQ(record.expected.outcome, Outcome::kCrash);
  EXPECT_TRUE(record.matched);
}

TEST_F(ValidityTest, BadRangesNameFileLineAndKey) {
  EXPECT_THAT(ErrorOf("{stream: shared}"),
              HasSubstr("scenarios/race.yaml:3:13: valid_for.stream: a parameter cannot bound where expectations "
                        "hold (list the values it should take in params.stream)"));
  EXPECT_THAT(ErrorOf("{gpu_shared: sometimes}"),
              HasSubstr("scenarios/race.yaml:3:25: valid_for.gpu_shared: expected true or false, got 'sometimes'"));
  EXPECT_THAT(ErrorOf("{nranks: \">=two\"}"), HasSubstr("scenarios/race.yaml:3:21: valid_for.nranks: bad range clause"));
  EXPECT_THAT(ErrorOf("{gpu_sharing: false}"),
              HasSubstr("scenarios/race.yaml:3:13: valid_for.gpu_sharing: not a parameter of kind 'fake_capture' "
                        "nor a fact"));
  EXPECT_THAT(ErrorOf("shared"), HasSubstr("scenarios/race.yaml:3:12: valid_for: expected a map of facts"));
}

}  // namespace
}  // namespace gh
