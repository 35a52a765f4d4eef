#include "harness/core/expectation_conditions.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/point.h"
#include "harness/core/registry.h"
#include "harness/core/scenario_loader.h"
#include "harness/core/testdata/loaded_scenario.h"

namespace gh {
namespace {

using ::testing::HasSubstr;

// A kind with the two axes the sliced_collective expectations key on.
ScenarioRegistry MakeRegistry() {
  return testing::RegistryOfOneHostKind(
      "fake_sliced", {{"allocator", ParamType::kEnum, std::string("arena"), "where",
                       {"arena", "cuda_malloc", "nccl_mem_alloc"}, {}, {}},
                      {"offset", ParamType::kBytes, int64_t{0}, "bytes before the buffer", {}, 0.0, {}}});
}

// What measured NCCL does, in the form scenarios/sliced_collective.yaml writes it.
constexpr char kRules[] =
    "name: windows\n"
    "kind: fake_sliced\n"
    "params:\n"
    "  allocator: [arena, cuda_malloc, nccl_mem_alloc]\n"
    "  offset: [0, 256, 4K]\n"
    "expect:\n"
    "  - when: {env: {NCCL_CUMEM_ENABLE: \"0\"}}\n"
    "    outcome: pass\n"
    "  - when: {allocator: cuda_malloc, nccl: \">=2.28.4\"}\n"
    "    outcome: error\n"
    "    signature: \"Cuda failure 1 'invalid argument'\"\n"
    "  - when: {allocator: cuda_malloc, nccl: \"<2.28.4\", nranks: \">=2\"}\n"
    "    outcome: error\n"
    "    signature: \"Cuda failure 1\"\n"
    "  - when: {offset: 256, gpu_shared: false, env: {NCCL_CUMEM_ENABLE: [null, \"1\"]}}\n"
    "    outcome: error\n"
    "    signature: \"suitably aligned\"\n"
    "  - pass\n";

class ConditionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::vector<ScenarioSpec>> specs =
        LoadScenarioText(kRules, "scenarios/windows.yaml", registry_);
    ASSERT_TRUE(specs.ok()) << specs.status();
    spec_ = (*specs)[0];
  }

  // The expectation of the point with these axis values, at `nranks`, given the facts.
  Expectation For(const std::string& allocator, const std::string& offset, int nranks,
                  std::map<std::string, std::string> facts) {
    absl::StatusOr<std::vector<Point>> points = ExpandPoints(spec_, nranks);
    EXPECT_TRUE(points.ok()) << points.status();
    for (const Point& point : *points) {
      if (point.Format("allocator") == allocator && point.Format("offset") == offset) {
        return ExpectationFor(spec_.expect, point, EnvironmentFacts{std::move(facts)});
      }
    }
    ADD_FAILURE() << "no point " << allocator << "/" << offset;
    return {};
  }

  std::string ErrorOf(const std::string& when) {
    std::string yaml = absl::StrCat(
        "name: bad\nkind: fake_sliced\nexpect:\n  - when: ", when, "\n    outcome: error\n");
    absl::StatusOr<std::vector<ScenarioSpec>> specs =
        LoadScenarioText(yaml, "scenarios/bad.yaml", registry_);
    EXPECT_FALSE(specs.ok()) << "loaded: " << when;
    return specs.ok() ? "" : std::string(specs.status().message());
  }

  ScenarioRegistry registry_ = MakeRegistry();
  ScenarioSpec spec_;
};

TEST(DottedNumberTest, ParsesComponentsAndRejectsAnythingElse) {
  EXPECT_EQ(*ParseDottedNumber("2.28.9"), (std::vector<int64_t>{2, 28, 9}));
  EXPECT_EQ(*ParseDottedNumber("4"), (std::vector<int64_t>{4}));
  for (const char* bad : {"", "2..9", "2.28.x", "v2.28", "2.28.", "-1", "1e3"}) {
    EXPECT_FALSE(ParseDottedNumber(bad).ok()) << bad;
  }
}

TEST(RangeTest, ClausesAllHold) {
  absl::StatusOr<std::vector<RangeClause>> range = ParseRange(">=2.28.4,<2.29");
  ASSERT_TRUE(range.ok()) << range.status();
  ASSERT_EQ(range->size(), 2u);
  EXPECT_EQ((*range)[0].op, CompareOp::kGe);
  EXPECT_EQ((*range)[1].op, CompareOp::kLt);
  EXPECT_TRUE(InRange("2.28.9", *range));
  EXPECT_TRUE(InRange("2.28.4", *range));
  EXPECT_FALSE(InRange("2.28.3", *range));
  EXPECT_FALSE(InRange("2.29.0", *range));
  EXPECT_FALSE(InRange("2.30.7", *range));
}

TEST(RangeTest, ComponentsCompareNumericallyAndMissingOnesAreZero) {
  EXPECT_TRUE(InRange("2.28.10", *ParseRange(">2.28.9")));  // not a string comparison
  EXPECT_TRUE(InRange("2.28", *ParseRange("==2.28.0")));
  EXPECT_TRUE(InRange("2.28.0", *ParseRange("2.28")));     // no operator: equality
  EXPECT_FALSE(InRange("2.28.3", *ParseRange("!=2.28.3")));
  EXPECT_TRUE(InRange("4", *ParseRange(">=2, <=4")));      // spaces around clauses
  EXPECT_FALSE(InRange("1", *ParseRange(">=2")));
}

TEST(RangeTest, ValuesThatAreNotNumbersNeverMatch) {
  EXPECT_FALSE(InRange("", *ParseRange(">=0")));
  EXPECT_FALSE(InRange("unknown", *ParseRange("!=2.28.9")));
}

TEST(RangeTest, BadClauseIsNamed) {
  absl::StatusOr<std::vector<RangeClause>> range = ParseRange(">=2.28.4,~2.29");
  ASSERT_FALSE(range.ok());
  EXPECT_THAT(range.status().message(), HasSubstr("bad range clause '~2.29' in '>=2.28.4,~2.29'"));
  EXPECT_FALSE(ParseRange(">=").ok());
  EXPECT_FALSE(ParseRange("").ok());
}

TEST(RangeTest, LooksLikeRangeOnlyWithAnOperator) {
  for (const char* range : {">=2", "!=4", "==4"}) EXPECT_TRUE(LooksLikeRange(range)) << range;
  for (const char* value : {"4", ""}) EXPECT_FALSE(LooksLikeRange(value)) << value;
}

TEST_F(ConditionsTest, RulesLoadIntoRangesEnvAndFacts) {
  ASSERT_EQ(spec_.expect.rules.size(), 5u);
  const ExpectationRule& cumem = spec_.expect.rules[0];
  ASSERT_EQ(cumem.when_env.count("NCCL_CUMEM_ENABLE"), 1u);
  EXPECT_EQ(cumem.when_env.at("NCCL_CUMEM_ENABLE"),
            (std::vector<std::optional<std::string>>{"0"}));
  EXPECT_EQ(spec_.expect.rules[1].when_ranges.at("nccl_version"), ">=2.28.4");
  EXPECT_EQ(spec_.expect.rules[2].when_ranges.at("nranks"), ">=2");
  EXPECT_EQ(spec_.expect.rules[3].when_facts.at("gpu_shared"), (std::vector<std::string>{"false"}));
  EXPECT_EQ(spec_.expect.rules[3].when_env.at("NCCL_CUMEM_ENABLE"),
            (std::vector<std::optional<std::string>>{std::nullopt, "1"}));
  EXPECT_EQ(spec_.expect.rules[1].expect.signature_regex, "Cuda failure 1 'invalid argument'");
}

TEST_F(ConditionsTest, NcclVersionRangeSelectsTheRule) {
  std::map<std::string, std::string> v2289 = {{"nccl_version", "2.28.9"}, {"gpu_shared", "false"}};
  std::map<std::string, std::string> v2283 = {{"nccl_version", "2.28.3"}, {"gpu_shared", "false"}};
  Expectation e = For("cuda_malloc", "0", 1, v2289);
  EXPECT_EQ(e.outcome, Outcome::kError);
  EXPECT_EQ(e.signature_regex, "Cuda failure 1 'invalid argument'");
  // 2.28.3 at one rank accepted every registration: only the >=2 ranks rule would say error.
  EXPECT_EQ(For("cuda_malloc", "0", 1, v2283).outcome, Outcome::kPass);
  e = For("cuda_malloc", "0", 2, v2283);
  EXPECT_EQ(e.outcome, Outcome::kError);
  EXPECT_EQ(e.signature_regex, "Cuda failure 1");
}

TEST_F(ConditionsTest, MissingVersionFactFailsTheRange) {
  // The host backend reports no NCCL version: a version condition cannot hold there.
  EXPECT_EQ(For("cuda_malloc", "0", 2, {{"gpu_shared", "false"}}).outcome, Outcome::kPass);
}

TEST_F(ConditionsTest, EnvValueAndUnsetAreDistinct) {
  std::map<std::string, std::string> facts = {{"nccl_version", "2.28.9"}, {"gpu_shared", "false"}};
  // Unset: the alignment rule applies.
  Expectation e = For("nccl_mem_alloc", "256", 2, facts);
  EXPECT_EQ(e.outcome, Outcome::kError);
  EXPECT_EQ(e.signature_regex, "suitably aligned");
  // "1" is listed too.
  facts["env.NCCL_CUMEM_ENABLE"] = "1";
  EXPECT_EQ(For("nccl_mem_alloc", "256", 2, facts).outcome, Outcome::kError);
  // "0": the first rule wins over everything after it.
  facts["env.NCCL_CUMEM_ENABLE"] = "0";
  EXPECT_EQ(For("nccl_mem_alloc", "256", 2, facts).outcome, Outcome::kPass);
  EXPECT_EQ(For("cuda_malloc", "0", 2, facts).outcome, Outcome::kPass);
  // A value the rule does not list.
  facts["env.NCCL_CUMEM_ENABLE"] = "2";
  EXPECT_EQ(For("nccl_mem_alloc", "256", 2, facts).outcome, Outcome::kPass);
}

TEST_F(ConditionsTest, GpuSharedFactSelects) {
  std::map<std::string, std::string> facts = {{"nccl_version", "2.28.9"}, {"gpu_shared", "true"}};
  EXPECT_EQ(For("nccl_mem_alloc", "256", 2, facts).outcome, Outcome::kPass);
  facts["gpu_shared"] = "false";
  EXPECT_EQ(For("nccl_mem_alloc", "256", 2, facts).outcome, Outcome::kError);
}

TEST_F(ConditionsTest, NoRuleMatchingMeansPass) {
  Expectation e = For("nccl_mem_alloc", "4K", 2, {{"nccl_version", "2.28.9"}, {"gpu_shared", "false"}});
  EXPECT_EQ(e.outcome, Outcome::kPass);
  EXPECT_FALSE(e.signature_regex.has_value());
}

TEST(SignatureRegexTest, MatchesBySearchAndRequiresTheOutcome) {
  Expectation expected;
  expected.outcome = Outcome::kError;
  expected.signature_regex = "Cuda failure 1 'invalid argument'";
  const std::string observed =
      "ncclUnhandledCudaError: Cuda failure 1 'invalid argument' (ncclCommWindowRegister)";
  EXPECT_TRUE(MeetsExpectation(expected, Outcome::kError, observed));
  EXPECT_FALSE(MeetsExpectation(expected, Outcome::kFail, observed));
  EXPECT_FALSE(MeetsExpectation(
      expected, Outcome::kError,
      "ncclInvalidArgument: Window address must be suitably aligned. (ncclCommWindowRegister)"));
  expected.signature_regex = "^ncclInvalidArgument: .*suitably aligned";
  EXPECT_TRUE(MeetsExpectation(
      expected, Outcome::kError,
      "ncclInvalidArgument: Window address must be suitably aligned. (ncclCommWindowRegister)"));
  // A skip's reason is its signature: the device ring shift skips where GIN is missing.
  Expectation skip{Outcome::kSkip, std::string("GIN not supported"), ""};
  EXPECT_TRUE(MeetsExpectation(skip, Outcome::kSkip,
                               "ncclDevCommCreate: ncclInvalidUsage: GIN not supported."));
  EXPECT_FALSE(MeetsExpectation(skip, Outcome::kPass, ""));
}

TEST_F(ConditionsTest, BadConditionsAreErrorsWithFileLineColumnAndKey) {
  EXPECT_THAT(ErrorOf("{nccl: \">=2.28.x\"}"),
              HasSubstr("scenarios/bad.yaml:4:18: expect[0].when.nccl: bad range clause '>=2.28.x'"));
  EXPECT_THAT(ErrorOf("{nccl: [2.28.3]}"),
              HasSubstr("scenarios/bad.yaml:4:18: expect[0].when.nccl: expected a range such as >=2.28.9"));
  EXPECT_THAT(ErrorOf("{nranks: \">=two\"}"),
              HasSubstr("scenarios/bad.yaml:4:20: expect[0].when.nranks: bad range clause"));
  EXPECT_THAT(ErrorOf("{env: NCCL_CUMEM_ENABLE}"),
              HasSubstr("scenarios/bad.yaml:4:17: expect[0].when.env: expected a map of environment"));
  EXPECT_THAT(ErrorOf("{env: {NCCL_CUMEM_ENABLE: {a: 1}}}"),
              HasSubstr("expect[0].when.env.NCCL_CUMEM_ENABLE: expected a value (or null: unset)"));
  EXPECT_THAT(ErrorOf("{env: {NCCL_CUMEM_ENABLE: []}}"),
              HasSubstr("expect[0].when.env.NCCL_CUMEM_ENABLE: expected at least one value"));
  EXPECT_THAT(ErrorOf("{gpu_shared: maybe}"),
              HasSubstr("scenarios/bad.yaml:4:24: expect[0].when.gpu_shared: expected true or false, got 'maybe'"));
  EXPECT_THAT(ErrorOf("{nccl_version: \"2.28.9\"}"),
              HasSubstr("expect[0].when.nccl_version: not a parameter of kind 'fake_sliced' nor a fact"));
}

}  // namespace
}  // namespace gh
