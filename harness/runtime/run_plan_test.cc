#include "harness/runtime/run_plan.h"

#include <memory>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "absl/strings/match.h"
#include "harness/core/file_util.h"
#include "harness/core/scenario_loader.h"

namespace gh {
namespace {

using ::testing::ElementsAre;

class NeverRun : public Scenario {
 public:
  RankOutcome Run(PointContext&) override { return {}; }
};

ScenarioRegistry FakeRegistry() {
  ScenarioRegistry registry;
  KindInfo kind;
  kind.name = "fake";
  kind.description = "a kind for planning tests";
  ParamDef size;
  size.name = "size";
  size.type = ParamType::kBytes;
  size.default_value = int64_t{4096};
  kind.params.push_back(size);
  ParamDef mode;
  mode.name = "mode";
  mode.type = ParamType::kEnum;
  mode.default_value = std::string("a");
  mode.choices = {"a", "b"};
  kind.params.push_back(mode);
  kind.backends = {Backend::kHost};
  kind.make = [] { return std::make_unique<NeverRun>(); };
  registry.Register(std::move(kind));
  return registry;
}

std::vector<LoadedScenario> Load(const std::string& text, const ScenarioRegistry& registry) {
  absl::StatusOr<std::vector<ScenarioSpec>> specs = LoadScenarioText(text, "t.yaml", registry);
  EXPECT_TRUE(specs.ok()) << specs.status();
  std::vector<LoadedScenario> loaded;
  if (!specs.ok()) return loaded;
  for (ScenarioSpec& spec : *specs) loaded.push_back(LoadedScenario{"t.yaml", std::move(spec)});
  return loaded;
}

std::vector<std::string> Names(const std::vector<PlannedRun>& plan) {
  std::vector<std::string> names;
  for (const PlannedRun& run : plan) {
    names.push_back(run.point.name + "#" + std::to_string(run.trial) +
                    (run.skip_reason.empty() ? "" : " skip: " + run.skip_reason));
  }
  return names;
}

TEST(PlanRuns, PointsInOrderEachTrialInTurn) {
  const ScenarioRegistry registry = FakeRegistry();
  const std::vector<LoadedScenario> scenarios =
      Load("name: s\nkind: fake\nparams:\n  size: [1K, 2K]\n  mode: [a, b]\ntrials: 2\n", registry);
  absl::StatusOr<std::vector<PlannedRun>> plan = PlanRuns(scenarios, registry, 2, Backend::kHost, "");
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(Names(*plan),
              ElementsAre("s/size=1K/mode=a/np=2#0", "s/size=1K/mode=a/np=2#1",
                          "s/size=1K/mode=b/np=2#0", "s/size=1K/mode=b/np=2#1",
                          "s/size=2K/mode=a/np=2#0", "s/size=2K/mode=a/np=2#1",
                          "s/size=2K/mode=b/np=2#0", "s/size=2K/mode=b/np=2#1"));
  EXPECT_EQ((*plan)[0].kind->name, "fake");
  EXPECT_EQ((*plan)[0].scenario, &scenarios[0]);
}

TEST(PlanRuns, FilterKeepsMatchingPoints) {
  const ScenarioRegistry registry = FakeRegistry();
  const std::vector<LoadedScenario> scenarios =
      Load("name: s\nkind: fake\nparams:\n  size: [1K, 2K]\n  mode: [a, b]\n", registry);
  absl::StatusOr<std::vector<PlannedRun>> plan =
      PlanRuns(scenarios, registry, 1, Backend::kHost, "*/mode=b/*");
  ASSERT_TRUE(plan.ok());
  EXPECT_THAT(Names(*plan), ElementsAre("s/size=1K/mode=b/np=1#0", "s/size=2K/mode=b/np=1#0"));
}

class KeepListedRunsTest : public ::testing::Test {
 protected:
  // One file per test: CTest runs the tests of this binary in parallel.
  std::string WriteList(const std::string& text) {
    const std::string path = ::testing::TempDir() + "/keep_listed_runs_" +
                             ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                             ".runs";
    EXPECT_TRUE(WriteFileAtomically(path, text).ok());
    return path;
  }
  const ScenarioRegistry registry_ = FakeRegistry();
  const std::vector<LoadedScenario> scenarios_ =
      Load("name: s\nkind: fake\nparams:\n  size: [1K, 2K]\ntrials: 3\n", registry_);
};

TEST_F(KeepListedRunsTest, KeepsTheListedRunsInPlanOrder) {
  absl::StatusOr<std::vector<PlannedRun>> plan = PlanRuns(scenarios_, registry_, 1, Backend::kHost, "");
  ASSERT_TRUE(plan.ok());
  const std::string path = WriteList("s/size=2K/np=1\t0\ns/size=1K/np=1\t2\n\ns/size=2K/np=1\t2\n");
  absl::StatusOr<std::vector<PlannedRun>> kept = KeepListedRuns(*std::move(plan), path);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_THAT(Names(*kept), ElementsAre("s/size=1K/np=1#2", "s/size=2K/np=1#0", "s/size=2K/np=1#2"));
}

TEST_F(KeepListedRunsTest, AnUnknownRunOrABadFileIsAnErrorNamingFileAndLine) {
  absl::StatusOr<std::vector<PlannedRun>> plan = PlanRuns(scenarios_, registry_, 1, Backend::kHost, "");
  ASSERT_TRUE(plan.ok());
  std::string path = WriteList("s/size=1K/np=1\t0\n\ns/size=1K/np=1\t3\n");
  absl::StatusOr<std::vector<PlannedRun>> kept = KeepListedRuns(*plan, path);
  EXPECT_EQ(kept.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(kept.status().message(),
            path + ":3: run 's/size=1K/np=1' trial 3 is not a run of these scenarios");
  path = WriteList("s/size=1K/np=1 0\n");
  EXPECT_EQ(KeepListedRuns(*plan, path).status().message(),
            path + ":1: expected '<point name><TAB><trial>', got 's/size=1K/np=1 0'");
  kept = KeepListedRuns(*plan, ::testing::TempDir() + "/no_such.runs");
  EXPECT_EQ(kept.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(kept.status().message(), "--runs: ")) << kept.status();
}

TEST(PlanRuns, RankRequirementAndBackendSkipWithReasons) {
  const ScenarioRegistry registry = FakeRegistry();
  const std::vector<LoadedScenario> scenarios =
      Load("name: four\nkind: fake\nranks: 4\n---\nname: some\nkind: fake\nranks: {min: 2, max: 3}\n",
           registry);
  absl::StatusOr<std::vector<PlannedRun>> plan = PlanRuns(scenarios, registry, 1, Backend::kHost, "");
  ASSERT_TRUE(plan.ok());
  EXPECT_THAT(Names(*plan), ElementsAre("four/np=1#0 skip: needs 4 ranks, job has 1",
                                        "some/np=1#0 skip: needs 2..3 ranks, job has 1"));
  plan = PlanRuns(scenarios, registry, 4, Backend::kCuda, "");
  ASSERT_TRUE(plan.ok());
  EXPECT_THAT(Names(*plan), ElementsAre("four/np=4#0 skip: kind fake has no cuda backend",
                                        "some/np=4#0 skip: needs 2..3 ranks, job has 4"));
}

TEST(RecordFor, CarriesThePointAndItsExpectation) {
  const ScenarioRegistry registry = FakeRegistry();
  const std::vector<LoadedScenario> scenarios = Load(
      "name: s\nkind: fake\nparams:\n  size: [1K, 3000]\ntrials: 3\nexpect:\n"
      "  - when: {size: 3000}\n    outcome: fail\n",
      registry);
  absl::StatusOr<std::vector<PlannedRun>> plan = PlanRuns(scenarios, registry, 2, Backend::kHost, "");
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->size(), 6u);
  EnvironmentFacts facts;
  facts.values["backend"] = "host";
  facts.values["nranks"] = "2";
  facts.values["gpu_shared"] = "true";
  Record record = RecordFor((*plan)[4], facts);
  EXPECT_EQ(record.scenario, "s");
  EXPECT_EQ(record.kind, "fake");
  EXPECT_EQ(record.file, "t.yaml");
  EXPECT_EQ(record.point, "s/size=3000/np=2");
  EXPECT_EQ(record.params, nlohmann::json({{"size", 3000}, {"mode", "a"}}));
  EXPECT_EQ(record.backend, "host");
  EXPECT_EQ(record.nranks, 2);
  EXPECT_EQ(record.trial, 1);
  EXPECT_EQ(record.trials, 3);
  EXPECT_TRUE(record.gpu_shared);
  EXPECT_EQ(record.expected.outcome, Outcome::kFail);
  PointOutcome failed;
  failed.outcome = Outcome::kFail;
  SetResult(record, failed);
  EXPECT_TRUE(record.matched);
  SetResult(record, SkipOutcome("why"));
  EXPECT_FALSE(record.matched);
  EXPECT_EQ(record.result.signature, "why");
  EXPECT_EQ(RecordFor((*plan)[0], facts).expected.outcome, Outcome::kPass);
}

TEST(Rfc3339Utc, MillisecondsAndZ) {
  EXPECT_EQ(Rfc3339Utc(absl::FromUnixMillis(1795000000123)), "2026-11-18T11:06:40.123Z");
}

}  // namespace
}  // namespace gh
