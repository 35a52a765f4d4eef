#include "harness/core/scenario_loader.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/testdata/error_cases.h"
#include "harness/core/testdata/fake_kinds.h"
#include "harness/core/testdata/temp_dir.h"

namespace gh {
namespace {

using ::testing::ElementsAre;

class LoaderTest : public ::testing::Test {
 protected:
  absl::StatusOr<std::vector<ScenarioSpec>> Load(const std::string& yaml) {
    return LoadScenarioText(yaml, "scenarios/x.yaml", registry_);
  }
  // The message of the error loading `yaml` must give; fails the test when it loads.
  std::string ErrorOf(const std::string& yaml) {
    absl::StatusOr<std::vector<ScenarioSpec>> specs = Load(yaml);
    EXPECT_FALSE(specs.ok()) << "loaded without error:\n" << yaml;
    if (specs.ok()) return "";
    EXPECT_EQ(specs.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(specs.status().message());
  }
  ScenarioSpec LoadOne(const std::string& yaml) {
    absl::StatusOr<std::vector<ScenarioSpec>> specs = Load(yaml);
    EXPECT_TRUE(specs.ok()) << specs.status();
    if (!specs.ok() || specs->size() != 1) {
      ADD_FAILURE() << "expected one scenario";
      return {};
    }
    return (*specs)[0];
  }

  ScenarioRegistry registry_ = testing::MakeFakeRegistry();
};

// How a spec runs its points, in one line a test compares whole.
std::string RunSettings(const ScenarioSpec& spec) {
  return absl::StrCat("ranks ", spec.ranks.min, "..", spec.ranks.max, ", trials ", spec.trials,
                      ", timeout ", absl::FormatDuration(spec.timeout), ", warmup ", spec.warmup,
                      ", iterations ", spec.iterations);
}

std::vector<std::string> Formatted(const Axis& axis) {
  std::vector<std::string> out;
  for (const ParamValue& v : axis.values) out.push_back(FormatParamValue(axis.type, v));
  return out;
}

TEST_F(LoaderTest, FullScenarioLoadsEveryField) {
  ScenarioSpec spec = LoadOne(
      "name: ring_smoke\n"
      "kind: fake_ring\n"
      "description: \"a smoke test\"\n"
      "params:\n"
      "  bytes: [4K, 1M, 4096K]\n"
      "  dtype: [f32, bf16]\n"
      "  transport: mpi_put\n"
      "  iters: 7\n"
      "  scale: [0.25, 2]\n"
      "  check: false\n"
      "ranks: {min: 2, max: 4}\n"
      "trials: 3\n"
      "timeout: 500ms\n"
      "warmup: 0\n"
      "iterations: 9\n"
      "expect: pass\n");
  EXPECT_EQ(spec.name, "ring_smoke");
  EXPECT_EQ(spec.kind, "fake_ring");
  EXPECT_EQ(spec.description, "a smoke test");
  EXPECT_EQ(spec.loc.ToString(), "scenarios/x.yaml:1:1");
  ASSERT_EQ(spec.axes.size(), 6u);
  EXPECT_EQ(spec.axes[0].name, "bytes");
  EXPECT_EQ(spec.axes[0].type, ParamType::kBytes);
  EXPECT_THAT(spec.axes[0].values,
              ElementsAre(ParamValue(int64_t{4096}), ParamValue(int64_t{1048576}),
                          ParamValue(int64_t{4194304})));
  EXPECT_TRUE(spec.axes[0].from_yaml);
  EXPECT_EQ(spec.axes[0].loc.ToString(), "scenarios/x.yaml:5:10");
  EXPECT_THAT(Formatted(spec.axes[1]), ElementsAre("f32", "bf16"));
  EXPECT_THAT(spec.axes[2].values, ElementsAre(ParamValue(std::string("mpi_put"))));
  EXPECT_THAT(spec.axes[3].values, ElementsAre(ParamValue(int64_t{7})));
  EXPECT_THAT(spec.axes[4].values, ElementsAre(ParamValue(0.25), ParamValue(2.0)));
  EXPECT_THAT(spec.axes[5].values, ElementsAre(ParamValue(false)));
  EXPECT_EQ(RunSettings(spec), "ranks 2..4, trials 3, timeout 500ms, warmup 0, iterations 9");
  ASSERT_EQ(spec.expect.rules.size(), 1u);
  EXPECT_EQ(spec.expect.rules[0].expect.outcome, Outcome::kPass);
  EXPECT_TRUE(spec.expect.rules[0].when_params.empty());
}

TEST_F(LoaderTest, DefaultsFillUnsetParamsAndFields) {
  ScenarioSpec spec = LoadOne("name: d\nkind: fake_ring\nparams:\n  dtype: i32\n");
  ASSERT_EQ(spec.axes.size(), 6u);
  EXPECT_FALSE(spec.axes[0].from_yaml);
  EXPECT_THAT(spec.axes[0].values, ElementsAre(ParamValue(int64_t{1 << 20})));
  EXPECT_TRUE(spec.axes[1].from_yaml);
  EXPECT_THAT(spec.axes[1].values, ElementsAre(ParamValue(std::string("i32"))));
  EXPECT_FALSE(spec.axes[5].from_yaml);
  EXPECT_THAT(spec.axes[5].values, ElementsAre(ParamValue(true)));
  // Unset ranks are the kind's; the rest are ScenarioSpec's defaults.
  EXPECT_EQ(RunSettings(spec), "ranks 1..8, trials 1, timeout 1m, warmup 5, iterations 20");
  EXPECT_TRUE(spec.expect.rules.empty());
}

TEST_F(LoaderTest, RanksScalarIsExactAndIntersectsTheKind) {
  ScenarioSpec exact = LoadOne("name: a\nkind: fake_ring\nranks: 4\n");
  EXPECT_EQ(exact.ranks.min, 4);
  EXPECT_EQ(exact.ranks.max, 4);
  ScenarioSpec open = LoadOne("name: a\nkind: fake_ring\nranks: {min: 2}\n");
  EXPECT_EQ(open.ranks.min, 2);
  EXPECT_EQ(open.ranks.max, 8);  // the kind's max
  ScenarioSpec wide = LoadOne("name: a\nkind: fake_ring\nranks: {min: 4, max: 64}\n");
  EXPECT_EQ(wide.ranks.min, 4);
  EXPECT_EQ(wide.ranks.max, 8);
}

TEST_F(LoaderTest, MultipleDocumentsAreMultipleScenarios) {
  absl::StatusOr<std::vector<ScenarioSpec>> specs =
      Load("name: one\nkind: solo\n---\nname: two\nkind: fake_ring\n---\n");
  ASSERT_TRUE(specs.ok()) << specs.status();
  ASSERT_EQ(specs->size(), 2u);
  EXPECT_EQ((*specs)[0].name, "one");
  EXPECT_EQ((*specs)[1].name, "two");
  EXPECT_EQ((*specs)[1].loc.ToString(), "scenarios/x.yaml:4:1");
}

TEST_F(LoaderTest, ExpectationForms) {
  ScenarioSpec map = LoadOne(
      "name: a\nkind: fake_ring\n"
      "expect: {outcome: error, signature: \"Cuda failure [0-9]+\", reason: bug 42}\n");
  ASSERT_EQ(map.expect.rules.size(), 1u);
  EXPECT_EQ(map.expect.rules[0].expect.outcome, Outcome::kError);
  EXPECT_EQ(map.expect.rules[0].expect.signature_regex, "Cuda failure [0-9]+");
  EXPECT_EQ(map.expect.rules[0].expect.reason, "bug 42");

  ScenarioSpec rules = LoadOne(
      "name: a\nkind: fake_ring\n"
      "params:\n"
      "  bytes: [4K, 1M, 2M]\n"
      "  dtype: [f32, bf16]\n"
      "expect:\n"
      "  - when: {bytes: [1024K, 2M], dtype: bf16}\n"
      "    outcome: fail\n"
      "  - when: {backend: cuda, nranks: [2, 4]}\n"
      "    outcome: error\n"
      "    signature: ncclSystemError\n"
      "  - when: {transport: mpi_p2p}\n"
      "    outcome: skip\n"
      "  - pass\n");
  ASSERT_EQ(rules.expect.rules.size(), 4u);
  const ExpectationRule& first = rules.expect.rules[0];
  EXPECT_EQ(first.expect.outcome, Outcome::kFail);
  // Values are kept as the point names write them: 1024K is 1M.
  EXPECT_THAT(first.when_params.at("bytes"), ElementsAre("1M", "2M"));
  EXPECT_THAT(first.when_params.at("dtype"), ElementsAre("bf16"));
  EXPECT_TRUE(first.when_facts.empty());
  const ExpectationRule& second = rules.expect.rules[1];
  EXPECT_TRUE(second.when_params.empty());
  EXPECT_THAT(second.when_facts.at("backend"), ElementsAre("cuda"));
  EXPECT_THAT(second.when_facts.at("nranks"), ElementsAre("2", "4"));
  EXPECT_EQ(second.expect.signature_regex, "ncclSystemError");
  // A parameter left at its default takes only its default value.
  EXPECT_THAT(rules.expect.rules[2].when_params.at("transport"), ElementsAre("mpi_p2p"));
  EXPECT_TRUE(rules.expect.rules[3].when_params.empty());
  EXPECT_EQ(rules.expect.rules[3].expect.outcome, Outcome::kPass);
}

TEST_F(LoaderTest, ScalarsOfEveryTypeParse) {
  ScenarioSpec spec = LoadOne(
      "name: a\nkind: fake_ring\nparams:\n"
      "  bytes: [1, 4KiB, 8k, 1g]\n"
      "  iters: [+5, 100]\n"
      "  scale: [0, 1e-1, 10]\n"
      "  check: [true, False]\n"
      "  transport: \"quoted: text\"\n");
  EXPECT_THAT(Formatted(spec.axes[0]), ElementsAre("1", "4K", "8K", "1G"));
  EXPECT_THAT(spec.axes[2].values, ElementsAre(ParamValue(std::string("quoted: text"))));
  EXPECT_THAT(Formatted(spec.axes[3]), ElementsAre("5", "100"));
  EXPECT_THAT(Formatted(spec.axes[4]), ElementsAre("0", "0.1", "10"));
  EXPECT_THAT(Formatted(spec.axes[5]), ElementsAre("true", "false"));
}

// ---- every error class, with the exact message

TEST_F(LoaderTest, YamlSyntaxErrorNamesTheParserPosition) {
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nparams:\n  bytes: [4K, 1M\n"),
            "scenarios/x.yaml:5:1: invalid YAML: end of sequence flow not found");
}

TEST_F(LoaderTest, UnknownTopLevelKey) {
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\ntrails: 3\n"),
            "scenarios/x.yaml:3:1: trails: unknown key; did you mean trials?");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\ncolour: red\n"),
            "scenarios/x.yaml:3:1: colour: unknown key (allowed here: description, expect, "
            "expect_metrics, iterations, kind, name, nccl_inspector, params, ranks, timeout, trials, valid_for, "
            "verdict, warmup)");
}

TEST_F(LoaderTest, DuplicateKey) {
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\ntrials: 2\ntrials: 3\n"),
            "scenarios/x.yaml:4:1: trials: duplicate key (first at scenarios/x.yaml:3:1)");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nparams:\n  dtype: f32\n  dtype: i32\n"),
            "scenarios/x.yaml:5:3: params.dtype: duplicate key (first at scenarios/x.yaml:4:3)");
}

TEST_F(LoaderTest, DocumentMustBeAMap) {
  EXPECT_EQ(ErrorOf("- name: a\n"),
            "scenarios/x.yaml:1:1: scenario: expected a map with name, kind, params, ...; got a list");
}

TEST_F(LoaderTest, EmptyFile) {
  EXPECT_EQ(ErrorOf(""), "scenarios/x.yaml:1:1: scenario: the file holds no scenario");
  EXPECT_EQ(ErrorOf("# only a comment\n---\n"),
            "scenarios/x.yaml:1:1: scenario: the file holds no scenario");
}

TEST_F(LoaderTest, MissingNameAndKind) {
  EXPECT_EQ(ErrorOf("kind: fake_ring\n"), "scenarios/x.yaml:1:1: name: missing required key");
  EXPECT_EQ(ErrorOf("name: a\nkind: solo\n---\n\ndescription: x\nname: b\n"),
            "scenarios/x.yaml:5:1: kind: missing required key");
}

TEST_F(LoaderTest, InvalidName) {
  EXPECT_EQ(ErrorOf("name: ring smoke\nkind: fake_ring\n"),
            "scenarios/x.yaml:1:7: name: 'ring smoke' is not a valid scenario name (use letters, "
            "digits, '_', '.' and '-')");
  EXPECT_EQ(ErrorOf("name: [a]\nkind: fake_ring\n"),
            "scenarios/x.yaml:1:7: name: expected a scenario name, got a list");
}

TEST_F(LoaderTest, UnknownKindListsKnownKinds) {
  EXPECT_EQ(ErrorOf("name: a\nkind: ring_shift\n"),
            "scenarios/x.yaml:2:7: kind: unknown scenario kind 'ring_shift' (known kinds: "
            "fake_ring, solo)");
}

TEST_F(LoaderTest, UnknownParamListsTheKindsParams) {
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nparams:\n  bytes: 4K\n  byte: 4K\n"),
            "scenarios/x.yaml:5:3: params.byte: unknown parameter of kind 'fake_ring' (its "
            "parameters: bytes, dtype, transport, iters, scale, check); did you mean bytes?");
  EXPECT_EQ(ErrorOf("name: a\nkind: solo\nparams: {n: 1}\n"),
            "scenarios/x.yaml:3:10: params.n: unknown parameter of kind 'solo' (it takes no "
            "parameters)");
}

TEST_F(LoaderTest, ParamsMustBeAMap) {
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nparams: [bytes]\n"),
            "scenarios/x.yaml:3:9: params: expected a map of parameter names to values, got a list");
}

TEST_F(LoaderTest, WrongTypes) {
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nparams:\n  bytes: [4K, abc]\n"),
            "scenarios/x.yaml:4:15: params.bytes[1]: expected a byte size such as 4K or 1M, got "
            "'abc'");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nparams:\n  iters: 2.5\n"),
            "scenarios/x.yaml:4:10: params.iters: expected an integer, got '2.5'");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nparams:\n  scale: [1, fast]\n"),
            "scenarios/x.yaml:4:14: params.scale[1]: expected a number, got 'fast'");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nparams:\n  check: yes\n"),
            "scenarios/x.yaml:4:10: params.check: expected true or false, got 'yes'");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nparams:\n  dtype: f16\n"),
            "scenarios/x.yaml:4:10: params.dtype: 'f16' is not one of f32, bf16, i32");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nparams:\n  dtype: [[f32]]\n"),
            "scenarios/x.yaml:4:11: params.dtype[0]: expected one of f32, bf16, i32, got a list");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nparams:\n  transport: {a: b}\n"),
            "scenarios/x.yaml:4:14: params.transport: expected a string, got a map");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nparams:\n  transport:\n"),
            "scenarios/x.yaml:4:3: params.transport: expected a string, got nothing");
}

TEST_F(LoaderTest, BytesErrors) {
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nparams:\n  bytes: -4K\n"),
            "scenarios/x.yaml:4:10: params.bytes: a byte size cannot be negative, got '-4K'");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nparams:\n  bytes: 99999999999T\n"),
            "scenarios/x.yaml:4:10: params.bytes: byte size '99999999999T' is too large (the "
            "limit is 2^63-1 bytes)");
}

TEST_F(LoaderTest, ValuesOutsideBounds) {
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nparams:\n  bytes: [1K, 2G]\n"),
            "scenarios/x.yaml:4:15: params.bytes[1]: 2G is above the maximum 1G");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nparams:\n  bytes: 0\n"),
            "scenarios/x.yaml:4:10: params.bytes: 0 is below the minimum 1");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nparams:\n  iters: 101\n"),
            "scenarios/x.yaml:4:10: params.iters: 101 is above the maximum 100");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nparams:\n  scale: -0.5\n"),
            "scenarios/x.yaml:4:10: params.scale: -0.5 is below the minimum 0");
}

TEST_F(LoaderTest, EmptyAxis) {
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nparams:\n  dtype: []\n"),
            "scenarios/x.yaml:4:10: params.dtype: an axis needs at least one value, got an empty "
            "list");
}

TEST_F(LoaderTest, DuplicateValueInAxisComparesFormattedValues) {
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nparams:\n  bytes: [4K, 1M, 4096]\n"),
            "scenarios/x.yaml:4:19: params.bytes[2]: duplicate value 4K (also at params.bytes[0])");
}

TEST_F(LoaderTest, RankErrors) {
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nranks: {min: 4, max: 2}\n"),
            "scenarios/x.yaml:3:8: ranks: min 4 is greater than max 2");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nranks: 0\n"),
            "scenarios/x.yaml:3:8: ranks: must be at least 1, got 0");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nranks: {min: 0}\n"),
            "scenarios/x.yaml:3:14: ranks.min: must be at least 1, got 0");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nranks: 99999999999\n"),
            "scenarios/x.yaml:3:8: ranks: must be between 1 and 2147483647, got 99999999999");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nranks: {least: 2}\n"),
            "scenarios/x.yaml:3:9: ranks.least: unknown key (allowed here: max, min)");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nranks: many\n"),
            "scenarios/x.yaml:3:8: ranks: expected an integer, got 'many'");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nranks: [2, 4]\n"),
            "scenarios/x.yaml:3:8: ranks: expected a rank count or {min: N, max: M}, got a list");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nranks: {min: 16}\n"),
            "scenarios/x.yaml:3:8: ranks: the scenario asks for >=16 ranks but kind 'fake_ring' "
            "runs with 1..8");
  EXPECT_EQ(ErrorOf("name: a\nkind: solo\nranks: 2\n"),
            "scenarios/x.yaml:3:8: ranks: the scenario asks for 2 ranks but kind 'solo' runs with 1");
}

TEST_F(LoaderTest, CountsOutOfRange) {
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\ntrials: 0\n"),
            "scenarios/x.yaml:3:9: trials: must be between 1 and 10000, got 0");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\ntrials: 10001\n"),
            "scenarios/x.yaml:3:9: trials: must be between 1 and 10000, got 10001");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nwarmup: -1\n"),
            "scenarios/x.yaml:3:9: warmup: must be between 0 and 1000000, got -1");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\niterations: 0\n"),
            "scenarios/x.yaml:3:13: iterations: must be between 1 and 1000000, got 0");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\niterations: 99999999999999999999\n"),
            "scenarios/x.yaml:3:13: iterations: expected an integer, got '99999999999999999999'");
}

TEST_F(LoaderTest, TimeoutErrors) {
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\ntimeout: soon\n"),
            "scenarios/x.yaml:3:10: timeout: expected a duration such as 90s, 10m or 1h, got 'soon'");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\ntimeout: 0s\n"),
            "scenarios/x.yaml:3:10: timeout: must be more than 0 and at most 24h, got '0s'");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\ntimeout: 25h\n"),
            "scenarios/x.yaml:3:10: timeout: must be more than 0 and at most 24h, got '25h'");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\ntimeout: -1s\n"),
            "scenarios/x.yaml:3:10: timeout: must be more than 0 and at most 24h, got '-1s'");
  ScenarioSpec spec = LoadOne("name: a\nkind: fake_ring\ntimeout: 2m\n");
  EXPECT_EQ(spec.timeout, absl::Minutes(2));
}

// One duration grammar (duration_text.h): a bare number is seconds, as in a matrix.
TEST_F(LoaderTest, TimeoutBareNumberIsSeconds) {
  EXPECT_EQ(LoadOne("name: a\nkind: fake_ring\ntimeout: 60\n").timeout, absl::Seconds(60));
  EXPECT_EQ(LoadOne("name: a\nkind: fake_ring\ntimeout: 60s\n").timeout, absl::Seconds(60));
  EXPECT_EQ(LoadOne("name: a\nkind: fake_ring\ntimeout: 1.5\n").timeout, absl::Milliseconds(1500));
  EXPECT_EQ(LoadOne("name: a\nkind: fake_ring\ntimeout: 1h30m\n").timeout, absl::Minutes(90));
}

TEST_F(LoaderTest, TimeoutNanInfAndNegativeAreLocatedErrors) {
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\ntimeout: nan\n"),
            "scenarios/x.yaml:3:10: timeout: expected a duration such as 90s, 10m or 1h, got 'nan'");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\ntimeout: inf\n"),
            "scenarios/x.yaml:3:10: timeout: expected a duration such as 90s, 10m or 1h, got 'inf'");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\ntimeout: -5\n"),
            "scenarios/x.yaml:3:10: timeout: must be more than 0 and at most 24h, got '-5'");
}

// A mistyped key is named first, with the closest allowed key, before what it hides.
TEST_F(LoaderTest, UnknownKeysSuggestTheClosest) {
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nexpect: {outcome: fail, reasn: x}\n"),
            "scenarios/x.yaml:3:25: expect.reasn: unknown key; did you mean reason?");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nexpect: [{otcome: fail}]\n"),
            "scenarios/x.yaml:3:11: expect[0].otcome: unknown key; did you mean outcome?");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nparams:\n  valeus: 1\n"),
            "scenarios/x.yaml:4:3: params.valeus: unknown parameter of kind 'fake_ring' (its "
            "parameters: bytes, dtype, transport, iters, scale, check)");
}

TEST_F(LoaderTest, ExpectErrors) {
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nexpect: broken\n"),
            "scenarios/x.yaml:3:9: expect: unknown outcome 'broken' (expected one of pass, skip, "
            "fail, error, timeout, crash)");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nexpect: {outcome: error, signature: \"Cuda(\"}\n"),
            "scenarios/x.yaml:3:37: expect.signature: invalid regular expression 'Cuda(': "
            "missing ): Cuda(");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nexpect: {signature: x}\n"),
            "scenarios/x.yaml:3:9: expect.outcome: missing required key");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nexpect: {outcome: fail, because: x}\n"),
            "scenarios/x.yaml:3:25: expect.because: unknown key (allowed here: known, outcome, reason, "
            "signature, when)");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nexpect: []\n"),
            "scenarios/x.yaml:3:9: expect: expected at least one rule, got an empty list");
}

TEST_F(LoaderTest, WhenErrors) {
  const std::string head = "name: a\nkind: fake_ring\nparams:\n  bytes: [4K, 1M]\nexpect:\n";
  ::gh::testing::ExpectExactErrors(
      [this](const std::string& text) { return ErrorOf(text); }, head,
      {{"  - {when: {size: 4K}, outcome: fail}\n",
        "scenarios/x.yaml:6:13: expect[0].when.size: not a parameter of kind 'fake_ring' nor "
        "a fact (parameters: bytes, dtype, transport, iters, scale, check; facts: backend, "
        "nranks, nccl, env, gpu_shared, gpu)"},
       {"  - pass\n  - {when: {bytes: [4K, 2M]}, outcome: fail}\n",
        "scenarios/x.yaml:7:25: expect[1].when.bytes[1]: 2M is not a value the bytes axis "
        "takes (its values: 4K, 1M)"},
       {"  - {when: {dtype: bf16}, outcome: fail}\n",
        "scenarios/x.yaml:6:20: expect[0].when.dtype: bf16 is not a value the dtype axis "
        "takes (its values: f32)"},
       {"  - {when: {bytes: lots}, outcome: fail}\n",
        "scenarios/x.yaml:6:20: expect[0].when.bytes: expected a byte size such as 4K or 1M, "
        "got 'lots'"},
       {"  - {when: {backend: rocm}, outcome: fail}\n",
        "scenarios/x.yaml:6:22: expect[0].when.backend: expected host or cuda, got 'rocm'"},
       {"  - {when: {nranks: [2, 0]}, outcome: fail}\n",
        "scenarios/x.yaml:6:25: expect[0].when.nranks[1]: must be at least 1, got 0"},
       {"  - {when: [bytes], outcome: fail}\n",
        "scenarios/x.yaml:6:12: expect[0].when: expected a map of parameters (or backend, "
        "nranks) to values, got a list"},
       {"  - {when: {bytes: []}, outcome: fail}\n",
        "scenarios/x.yaml:6:20: expect[0].when.bytes: expected at least one value, got an "
        "empty list"}});
}

TEST_F(LoaderTest, AbsurdPointCountNamesTheAxes) {
  std::string many_bytes = "[";
  for (int i = 1; i <= 400; ++i) many_bytes += std::to_string(i) + (i < 400 ? ", " : "]");
  std::string many_iters = "[";
  for (int i = 1; i <= 100; ++i) many_iters += std::to_string(i) + (i < 100 ? ", " : "]");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nparams:\n  bytes: " + many_bytes +
                    "\n  dtype: [f32, i32, bf16]\n  iters: " + many_iters + "\n"),
            "scenarios/x.yaml:4:3: params: the axes make 120000 points per rank count (bytes 400 "
            "x dtype 3 x iters 100), more than the limit of 100000");
}

TEST_F(LoaderTest, DuplicateScenarioNamesInAFile) {
  EXPECT_EQ(ErrorOf("name: a\nkind: solo\n---\nname: b\nkind: solo\n---\nname: a\nkind: fake_ring\n"),
            "scenarios/x.yaml:7:1: name: duplicate scenario name 'a' (first at scenarios/x.yaml:1:1)");
}

TEST_F(LoaderTest, UnreadableFile) {
  absl::StatusOr<std::vector<ScenarioSpec>> specs =
      LoadScenarioFile("/nonexistent/dir/x.yaml", registry_);
  ASSERT_FALSE(specs.ok());
  EXPECT_EQ(specs.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(specs.status().message(), "/nonexistent/dir/x.yaml: cannot read: No such file or directory");
}

TEST_F(LoaderTest, LoadsFromAFileNamingItInErrors) {
  testing::ScopedTempDir dir;
  ASSERT_FALSE(dir.path().empty());
  const std::string path = dir.path() + "/s.yaml";
  {
    std::ofstream out(path);
    out << "name: a\nkind: fake_ring\nparams:\n  dtype: [f32, f32]\n";
  }
  absl::StatusOr<std::vector<ScenarioSpec>> specs = LoadScenarioFile(path, registry_);
  ASSERT_FALSE(specs.ok());
  EXPECT_EQ(specs.status().message(),
            path + ":4:16: params.dtype[1]: duplicate value f32 (also at params.dtype[0])");
  {
    std::ofstream out(path);
    out << "name: a\nkind: fake_ring\n";
  }
  specs = LoadScenarioFile(path, registry_);
  ASSERT_TRUE(specs.ok()) << specs.status();
  EXPECT_EQ((*specs)[0].loc.file, path);
}

}  // namespace
}  // namespace gh
