#include "harness/core/expectation.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "harness/core/point.h"
#include "harness/core/scenario_loader.h"
#include "harness/core/testdata/fake_kinds.h"

namespace gh {
namespace {

class ExpectationForTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ScenarioRegistry registry = testing::MakeFakeRegistry();
    absl::StatusOr<std::vector<ScenarioSpec>> specs = LoadScenarioText(
        "name: e\nkind: fake_ring\n"
        "params:\n  bytes: [4K, 1M, 2M]\n  dtype: [f32, bf16]\n"
        "expect:\n"
        "  - when: {bytes: [1M, 2M], dtype: bf16}\n"
        "    outcome: fail\n"
        "    reason: bf16 rounding bug\n"
        "  - when: {backend: cuda, nranks: 4}\n"
        "    outcome: error\n"
        "    signature: \"Cuda failure [0-9]+\"\n"
        "  - when: {bytes: 2M}\n"
        "    outcome: skip\n",
        "e.yaml", registry);
    ASSERT_TRUE(specs.ok()) << specs.status();
    spec_ = (*specs)[0];
  }
  Point At(int nranks, const std::string& name) {
    absl::StatusOr<std::vector<Point>> points = ExpandPoints(spec_, nranks);
    EXPECT_TRUE(points.ok());
    for (const Point& p : *points) {
      if (p.name == name) return p;
    }
    ADD_FAILURE() << "no point " << name;
    return {};
  }
  ScenarioSpec spec_;
};

TEST_F(ExpectationForTest, FirstMatchingRuleWins) {
  EnvironmentFacts host{{{"backend", "host"}, {"nranks", "4"}}};
  Expectation e = ExpectationFor(spec_.expect, At(4, "e/bytes=1M/dtype=bf16/np=4"), host);
  EXPECT_EQ(e.outcome, Outcome::kFail);
  EXPECT_EQ(e.reason, "bf16 rounding bug");
  // All conditions must hold: dtype f32 misses rule 0; host misses rule 1; 1M misses rule 2.
  EXPECT_EQ(ExpectationFor(spec_.expect, At(4, "e/bytes=1M/dtype=f32/np=4"), host).outcome,
            Outcome::kPass);
  EXPECT_EQ(ExpectationFor(spec_.expect, At(4, "e/bytes=2M/dtype=f32/np=4"), host).outcome,
            Outcome::kSkip);
  EXPECT_EQ(ExpectationFor(spec_.expect, At(4, "e/bytes=2M/dtype=bf16/np=4"), host).outcome,
            Outcome::kFail);
}

TEST_F(ExpectationForTest, FactConditions) {
  EnvironmentFacts cuda{{{"backend", "cuda"}, {"nranks", "4"}}};
  Expectation e = ExpectationFor(spec_.expect, At(4, "e/bytes=4K/dtype=f32/np=4"), cuda);
  EXPECT_EQ(e.outcome, Outcome::kError);
  EXPECT_EQ(e.signature_regex, "Cuda failure [0-9]+");
  EXPECT_EQ(e.ToString(), "error ~ /Cuda failure [0-9]+/");
  // nranks falls back to the point's rank count when the facts lack it.
  EnvironmentFacts cuda_only{{{"backend", "cuda"}}};
  EXPECT_EQ(ExpectationFor(spec_.expect, At(4, "e/bytes=4K/dtype=f32/np=4"), cuda_only).outcome,
            Outcome::kError);
  EXPECT_EQ(ExpectationFor(spec_.expect, At(2, "e/bytes=4K/dtype=f32/np=2"), cuda_only).outcome,
            Outcome::kPass);
  // A fact the environment does not report fails the condition.
  EXPECT_EQ(ExpectationFor(spec_.expect, At(4, "e/bytes=4K/dtype=f32/np=4"), {}).outcome,
            Outcome::kPass);
}

TEST(ExpectationTest, NoRulesMeansPass) {
  Point point;
  Expectation e = ExpectationFor(ExpectationSet{}, point, {});
  EXPECT_EQ(e.outcome, Outcome::kPass);
  EXPECT_FALSE(e.signature_regex.has_value());
  EXPECT_EQ(e.ToString(), "pass");
}

// A set of one rule: `when` on the point's params or on the job's facts, expecting `outcome`.
ExpectationSet OneRule(std::map<std::string, std::vector<std::string>> when_params,
                       std::map<std::string, std::vector<std::string>> when_facts, Outcome outcome) {
  ExpectationRule rule;
  rule.when_params = std::move(when_params);
  rule.when_facts = std::move(when_facts);
  rule.expect.outcome = outcome;
  ExpectationSet set;
  set.rules.push_back(std::move(rule));
  return set;
}

TEST(ExpectationTest, RuleOnAParamThePointLacksDoesNotHold) {
  const ExpectationSet set = OneRule({{"ghost", {"1"}}}, {}, Outcome::kCrash);
  EXPECT_EQ(ExpectationFor(set, Point{}, {}).outcome, Outcome::kPass);
}

TEST(ExpectationTest, EnvFactsAreGenericStrings) {
  const ExpectationSet set = OneRule({}, {{"env.NCCL_CUMEM_ENABLE", {"0"}}}, Outcome::kError);
  EXPECT_EQ(ExpectationFor(set, Point{}, {{{"env.NCCL_CUMEM_ENABLE", "0"}}}).outcome,
            Outcome::kError);
  EXPECT_EQ(ExpectationFor(set, Point{}, {{{"env.NCCL_CUMEM_ENABLE", "1"}}}).outcome,
            Outcome::kPass);
}

TEST(MeetsExpectationTest, OutcomeAndSignatureRegex) {
  Expectation pass;
  EXPECT_TRUE(MeetsExpectation(pass, Outcome::kPass, ""));
  EXPECT_FALSE(MeetsExpectation(pass, Outcome::kFail, "wrong data"));
  Expectation error{Outcome::kError, "Cuda failure 1", ""};
  EXPECT_TRUE(MeetsExpectation(error, Outcome::kError, "ncclUnhandledCudaError: Cuda failure 1 'invalid argument'"));
  EXPECT_FALSE(MeetsExpectation(error, Outcome::kError, "ncclInvalidArgument: aligned"));
  EXPECT_FALSE(MeetsExpectation(error, Outcome::kCrash, "Cuda failure 1"));
  Expectation anchored{Outcome::kError, "^nccl[A-Z]", ""};
  EXPECT_TRUE(MeetsExpectation(anchored, Outcome::kError, "ncclSystemError"));
  EXPECT_FALSE(MeetsExpectation(anchored, Outcome::kError, "x ncclSystemError"));
  Expectation any_error{Outcome::kError, std::nullopt, ""};
  EXPECT_TRUE(MeetsExpectation(any_error, Outcome::kError, "anything"));
  Expectation broken{Outcome::kError, "(", ""};
  EXPECT_FALSE(MeetsExpectation(broken, Outcome::kError, "("));
}

// Issue 15 items 2-3: a run the machinery failed meets no expectation, not even one built in
// code that names infra (the loader refuses to load one).
TEST(MeetsExpectationTest, InfraMeetsNoExpectation) {
  for (Outcome expected : AllOutcomes()) {
    EXPECT_FALSE(MeetsExpectation(Expectation{expected, std::nullopt, ""}, Outcome::kInfra,
                                  "infrastructure: mpirun has detected an attempt to run as root"))
        << OutcomeName(expected);
  }
  EXPECT_FALSE(MeetsExpectation(Expectation{Outcome::kCrash, ".*", ""}, Outcome::kInfra, "crash"));
}

TEST(ParseExpectableOutcomeTest, EveryVerdictButNotInfra) {
  for (Outcome outcome : AllOutcomes()) {
    absl::StatusOr<Outcome> parsed = ParseExpectableOutcome(OutcomeName(outcome));
    EXPECT_EQ(parsed.ok(), outcome != Outcome::kInfra) << OutcomeName(outcome);
  }
  absl::StatusOr<Outcome> infra = ParseExpectableOutcome("infra");
  ASSERT_FALSE(infra.ok());
  EXPECT_EQ(infra.status().message(),
            "'infra' cannot be expected: it means the launcher, MPI start-up or the harness failed, "
            "which says nothing about the code under test (such a run never meets an expectation)");
  absl::StatusOr<Outcome> unknown = ParseExpectableOutcome("broken");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(),
            "unknown outcome 'broken' (expected one of pass, skip, fail, error, timeout, crash)");
}

TEST(ParseExpectableOutcomeTest, TheLoaderRefusesExpectInfraNamingFileLineAndKey) {
  ScenarioRegistry registry = testing::MakeFakeRegistry();
  absl::StatusOr<std::vector<ScenarioSpec>> scalar =
      LoadScenarioText("name: e\nkind: fake_ring\nexpect: infra\n", "e.yaml", registry);
  ASSERT_FALSE(scalar.ok());
  EXPECT_EQ(scalar.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(scalar.status().message(),
            "e.yaml:3:9: expect: 'infra' cannot be expected: it means the launcher, MPI start-up or "
            "the harness failed, which says nothing about the code under test (such a run never "
            "meets an expectation)");
  absl::StatusOr<std::vector<ScenarioSpec>> rule = LoadScenarioText(
      "name: e\nkind: fake_ring\nexpect:\n  - pass\n  - {outcome: infra}\n", "e.yaml", registry);
  ASSERT_FALSE(rule.ok());
  EXPECT_TRUE(absl::StartsWith(rule.status().message(),
                               "e.yaml:5:15: expect[1].outcome: 'infra' cannot be expected: "))
      << rule.status();
}

}  // namespace
}  // namespace gh
