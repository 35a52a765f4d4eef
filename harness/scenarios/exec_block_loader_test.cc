// The `exec:` block as the scenario loader reads it through kind exec's block hook
// (KindInfo::read_block): located errors for every field, RE2 at load time, the one duration
// grammar, and the block kept for the kind alone.
#include "harness/scenarios/exec_block_loader.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "harness/core/scenario_loader.h"
#include "harness/core/testdata/error_cases.h"
#include "harness/core/testdata/fake_kinds.h"
#include "harness/scenarios/exec_block.h"

namespace gh {
namespace {

class ExecBlockLoaderTest : public ::testing::Test {
 protected:
  ExecBlockLoaderTest() {
    KindInfo exec;  // as kind exec registers itself, under a name of its own
    exec.name = "runs_exec";
    exec.params = {{"bytes", ParamType::kBytes, int64_t{1024}, "size", {}, 1.0, {}}};
    exec.ranks = {1, 8};
    exec.block_key = "exec";
    exec.read_block = ReadExecBlock;
    registry_.Register(exec);
  }
  absl::StatusOr<std::vector<ScenarioSpec>> Load(const std::string& yaml) {
    return LoadScenarioText(yaml, "scenarios/x.yaml", registry_);
  }
  std::string ErrorOf(const std::string& yaml) { return testing::InvalidArgumentMessage(Load(yaml)); }
  ScenarioRegistry registry_ = testing::MakeFakeRegistry();
};

TEST_F(ExecBlockLoaderTest, TheBlockIsTheKindsAndTimeoutTakesTheOneGrammar) {
  absl::StatusOr<std::vector<ScenarioSpec>> specs =
      Load("name: a\nkind: runs_exec\ntimeout: 60\nexec:\n  argv: [true, '{bytes}']\n  timeout: 30\n");
  ASSERT_TRUE(specs.ok()) << specs.status();
  ASSERT_NE((*specs)[0].block, nullptr);
  const ExecBlock& exec = static_cast<const ExecBlock&>(*(*specs)[0].block);
  EXPECT_EQ(exec.argv, (std::vector<std::string>{"true", "{bytes}"}));
  ASSERT_TRUE(exec.timeout.has_value());
  EXPECT_EQ(*exec.timeout, absl::Seconds(30));
  EXPECT_EQ(ErrorOf("name: a\nkind: runs_exec\nexec:\n  argv: [true]\n  timeout: nan\n"),
            "scenarios/x.yaml:5:12: exec.timeout: expected a duration such as 90s, 10m or 1h, got "
            "'nan'");
}

TEST_F(ExecBlockLoaderTest, TheBlockIsRequiredOfTheKindAndRefusedOfOthers) {
  EXPECT_EQ(ErrorOf("name: a\nkind: runs_exec\n"),
            "scenarios/x.yaml:1:1: exec: missing required key (kind 'runs_exec' runs the command it names)");
  EXPECT_EQ(ErrorOf("name: a\nkind: fake_ring\nexec:\n  argv: [true]\n"),
            "scenarios/x.yaml:3:1: exec: kind 'fake_ring' takes no exec block (only kind runs_exec does)");
}

// A mistyped key is named first, with the closest allowed key, before what it hides.
TEST_F(ExecBlockLoaderTest, UnknownKeysSuggestTheClosest) {
  EXPECT_EQ(ErrorOf("name: a\nkind: runs_exec\nexec:\n  argvs: [true]\n"),
            "scenarios/x.yaml:4:3: exec.argvs: unknown key; did you mean argv?");
  EXPECT_EQ(ErrorOf("name: a\nkind: runs_exec\nexec:\n  argv: [true]\n  signatures:\n"
                    "    - {name: x, regx: y}\n"),
            "scenarios/x.yaml:6:17: exec.signatures[0].regx: unknown key; did you mean regex?");
}

// Exec rules compile through RE2 at load time: a bad one names file:line:column and the key.
TEST_F(ExecBlockLoaderTest, BadExecRegexNamesTheKeyWithRe2sReason) {
  EXPECT_EQ(ErrorOf("name: a\nkind: runs_exec\nexec:\n  argv: [true]\n  skip: [\"a(b\"]\n"),
            "scenarios/x.yaml:5:10: exec.skip[0]: invalid regular expression 'a(b': missing ): a(b");
  EXPECT_EQ(ErrorOf("name: a\nkind: runs_exec\nexec:\n  argv: [true]\n  pass: \"(?<=x)y\"\n"),
            "scenarios/x.yaml:5:9: exec.pass: invalid regular expression '(?<=x)y': invalid perl "
            "operator: (?<");
}

}  // namespace
}  // namespace gh
