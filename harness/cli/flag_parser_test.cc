#include "harness/cli/flag_parser.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gh {
namespace {

constexpr char kUsage[] = "usage: gpuharness demo FILE [options]\n";

// A parser with one flag of every kind, messages in the styles the subcommands use.
struct Demo {
  std::string file, out, name;
  std::vector<std::string> tags;
  int jobs = 1;
  std::optional<int> gpus;
  double rate = 0.5;
  absl::Duration grace = absl::Seconds(10);
  bool dry_run = false;
  std::string mode;
  FlagParser flags{"demo", kUsage};

  Demo(const Demo&) = delete;  // the flags point into this one
  Demo() {
    flags.Positional(&file)
        .String("--out", &out, "$0 needs a directory")
        .String("--name", &name, "$0: needs a value", /*reject_empty=*/true)
        .Strings("--tag", &tags, "$0: needs a tag")
        .Int("--jobs", &jobs, 1, "$0: expected an integer >= 1, got '$1'")
        .Int("--gpus", &gpus, 0, "$0 needs a count (--gpus >= 0, --slots >= 1)")
        .Double("--rate", &rate, "$0: expected a number, got '$1'")
        .Duration("--grace", &grace, "$0: needs a duration")
        .Bool("--dry-run", &dry_run)
        .Custom("--mode", "$0: needs a mode", [this](const std::string& v) {
          if (v != "fast" && v != "slow") return absl::InvalidArgumentError("expected fast or slow, got '" + v + "'");
          mode = v;
          return absl::OkStatus();
        });
  }

  // The error message of parsing `args`, or "" when they parse.
  std::string Error(const std::vector<std::string>& args) {
    absl::StatusOr<FlagParser::Result> result = flags.ParseArgs(args);
    if (result.ok()) return "";
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(result.status().message());
  }
};

TEST(FlagParserTest, SetsEveryKindOfValue) {
  Demo d;
  absl::StatusOr<FlagParser::Result> result =
      d.flags.ParseArgs({"--out", "o", "m.yaml", "--name", "n", "--tag", "a", "--jobs", "3", "--gpus", "0",
                         "--rate", "0.25", "--grace", "90s", "--dry-run", "--mode", "slow"});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(*result, FlagParser::Result::kParsed);
  EXPECT_EQ(d.file, "m.yaml");
  EXPECT_EQ(d.out, "o");
  EXPECT_EQ(d.name, "n");
  EXPECT_THAT(d.tags, testing::ElementsAre("a"));
  EXPECT_EQ(d.jobs, 3);
  EXPECT_EQ(d.gpus, 0);
  EXPECT_EQ(d.rate, 0.25);
  EXPECT_EQ(d.grace, absl::Seconds(90));
  EXPECT_TRUE(d.dry_run);
  EXPECT_EQ(d.mode, "slow");
}

TEST(FlagParserTest, NothingGivenLeavesTheDefaults) {
  Demo d;
  EXPECT_EQ(d.Error({}), "");
  EXPECT_EQ(d.file, "");
  EXPECT_EQ(d.jobs, 1);
  EXPECT_EQ(d.gpus, std::nullopt);
  EXPECT_EQ(d.grace, absl::Seconds(10));
  EXPECT_FALSE(d.dry_run);
}

TEST(FlagParserTest, AValueIsTheNextArgumentWhateverItIs) {
  Demo d;
  EXPECT_EQ(d.Error({"--out", "--help"}), "");
  EXPECT_EQ(d.out, "--help");
  EXPECT_EQ(d.Error({"--out", "-x", "--name", "--dry-run"}), "");
  EXPECT_EQ(d.out, "-x");
  EXPECT_EQ(d.name, "--dry-run");
  EXPECT_FALSE(d.dry_run);
}

TEST(FlagParserTest, MissingValue) {
  const std::pair<const char*, const char*> cases[] = {
      {"--out", "--out needs a directory"},
      {"--name", "--name: needs a value"},
      {"--tag", "--tag: needs a tag"},
      {"--jobs", "--jobs: expected an integer >= 1, got ''"},
      {"--gpus", "--gpus needs a count (--gpus >= 0, --slots >= 1)"},
      {"--rate", "--rate: expected a number, got ''"},
      {"--grace", "--grace: needs a duration"},
      {"--mode", "--mode: needs a mode"},
  };
  for (const auto& [flag, message] : cases) EXPECT_EQ(Demo().Error({"m.yaml", flag}), message);
}

TEST(FlagParserTest, EmptyValueRejectedOnlyWhereDeclared) {
  Demo d;
  EXPECT_EQ(d.Error({"--out", ""}), "");
  EXPECT_EQ(d.Error({"--tag", ""}), "");
  EXPECT_THAT(d.tags, testing::ElementsAre(""));
  EXPECT_EQ(d.Error({"--name", ""}), "--name: needs a value");
}

TEST(FlagParserTest, UnknownFlagsAndExtraArgumentsAreUnexpected) {
  EXPECT_EQ(Demo().Error({"m.yaml", "--bogus"}), "unexpected argument '--bogus'");
  EXPECT_EQ(Demo().Error({"-x"}), "unexpected argument '-x'");
  EXPECT_EQ(Demo().Error({"-"}), "unexpected argument '-'");
  EXPECT_EQ(Demo().Error({""}), "unexpected argument ''");
  EXPECT_EQ(Demo().Error({"--out=o"}), "unexpected argument '--out=o'");
  EXPECT_EQ(Demo().Error({"m.yaml", "extra"}), "unexpected argument 'extra'");
}

TEST(FlagParserTest, PositionalsFillInOrder) {
  std::string dir, point;
  FlagParser flags("demo", kUsage);
  flags.Positional(&dir).Positional(&point);
  ASSERT_TRUE(flags.ParseArgs({"d", "p"}).ok());
  EXPECT_EQ(dir, "d");
  EXPECT_EQ(point, "p");
  EXPECT_EQ(flags.ParseArgs({"d", "p", "q"}).status().message(), "unexpected argument 'q'");
  FlagParser none("demo", kUsage);
  EXPECT_EQ(none.ParseArgs({"d"}).status().message(), "unexpected argument 'd'");
}

TEST(FlagParserTest, RepeatedFlags) {
  Demo d;
  EXPECT_EQ(d.Error({"--out", "a", "--out", "b", "--jobs", "2", "--jobs", "4", "--dry-run", "--dry-run"}), "");
  EXPECT_EQ(d.out, "b");
  EXPECT_EQ(d.jobs, 4);
  EXPECT_TRUE(d.dry_run);
  EXPECT_EQ(d.Error({"--tag", "x", "--tag", "y", "--tag", "x"}), "");
  EXPECT_THAT(d.tags, testing::ElementsAre("x", "y", "x"));
  // The first bad one is reported, however many good ones came before.
  EXPECT_EQ(Demo().Error({"--jobs", "2", "--jobs", "0", "--jobs", "x"}), "--jobs: expected an integer >= 1, got '0'");
}

TEST(FlagParserTest, BadIntegers) {
  EXPECT_EQ(Demo().Error({"--jobs", "zero"}), "--jobs: expected an integer >= 1, got 'zero'");
  EXPECT_EQ(Demo().Error({"--jobs", "0"}), "--jobs: expected an integer >= 1, got '0'");
  EXPECT_EQ(Demo().Error({"--jobs", "1.5"}), "--jobs: expected an integer >= 1, got '1.5'");
  EXPECT_EQ(Demo().Error({"--jobs", "99999999999"}), "--jobs: expected an integer >= 1, got '99999999999'");
  EXPECT_EQ(Demo().Error({"--jobs", ""}), "--jobs: expected an integer >= 1, got ''");
  EXPECT_EQ(Demo().Error({"--gpus", "-1"}), "--gpus needs a count (--gpus >= 0, --slots >= 1)");
  EXPECT_EQ(Demo().Error({"--gpus", "2x"}), "--gpus needs a count (--gpus >= 0, --slots >= 1)");
  // The value is quoted as given: no template expansion inside it.
  EXPECT_EQ(Demo().Error({"--jobs", "$0$1"}), "--jobs: expected an integer >= 1, got '$0$1'");
  Demo d;
  EXPECT_EQ(d.Error({"--jobs", "x"}), "--jobs: expected an integer >= 1, got 'x'");
  EXPECT_EQ(d.jobs, 1);  // a bad value is not stored
}

TEST(FlagParserTest, BadNumbers) {
  EXPECT_EQ(Demo().Error({"--rate", "x"}), "--rate: expected a number, got 'x'");
  EXPECT_EQ(Demo().Error({"--rate", "1e"}), "--rate: expected a number, got '1e'");
}

TEST(FlagParserTest, BadDurations) {
  EXPECT_EQ(Demo().Error({"--grace", "abc"}), "--grace: expected a duration such as 90s, 10m or 1h, got 'abc'");
  EXPECT_EQ(Demo().Error({"--grace", ""}), "--grace: expected a duration such as 90s, 10m or 1h, got ''");
  EXPECT_EQ(Demo().Error({"--grace", "-3s"}), "--grace: a duration must be positive");
  Demo d;
  EXPECT_EQ(d.Error({"--grace", "5"}), "");
  EXPECT_EQ(d.grace, absl::Seconds(5));
}

TEST(FlagParserTest, CustomErrorsNameTheFlag) {
  EXPECT_EQ(Demo().Error({"--mode", "medium"}), "--mode: expected fast or slow, got 'medium'");
}

TEST(FlagParserTest, HelpOrErrorWhicheverComesFirst) {
  for (const char* help : {"--help", "-h"}) {
    Demo d;
    absl::StatusOr<FlagParser::Result> result = d.flags.ParseArgs({"m.yaml", help, "--jobs", "0"});
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(*result, FlagParser::Result::kHelp);
    EXPECT_EQ(Demo().Error({"--jobs", "0", help}), "--jobs: expected an integer >= 1, got '0'");
    EXPECT_EQ(Demo().Error({"--bogus", help}), "unexpected argument '--bogus'");
  }
}

// FlagParser::Parse on argv = `args` (the subcommand's name first).
std::optional<int> ParseArgv(const FlagParser& flags, std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return flags.Parse(static_cast<int>(argv.size()), argv.data());
}

TEST(FlagParserTest, ParseReportsWithTheUsage) {
  std::optional<int> exit_status;
  {
    Demo d;
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    exit_status = ParseArgv(d.flags, {"demo", "m.yaml", "--jobs", "2"});
    EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
    EXPECT_EQ(exit_status, std::nullopt);
    EXPECT_EQ(d.jobs, 2);
  }
  {
    Demo d;
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    exit_status = ParseArgv(d.flags, {"demo", "-h"});
    EXPECT_EQ(testing::internal::GetCapturedStdout(), kUsage);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
    EXPECT_EQ(exit_status, 0);
  }
  {
    Demo d;
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    exit_status = ParseArgv(d.flags, {"demo", "--jobs", "zero"});
    EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
    EXPECT_EQ(testing::internal::GetCapturedStderr(),
              "gpuharness demo: --jobs: expected an integer >= 1, got 'zero'\n"
              "usage: gpuharness demo FILE [options]\n");
    EXPECT_EQ(exit_status, 2);
  }
}

TEST(FlagParserTest, BadArgumentPrintsTheUsage) {
  Demo d;
  testing::internal::CaptureStderr();
  EXPECT_EQ(d.flags.BadArgument("missing FILE"), 2);
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "gpuharness demo: missing FILE\nusage: gpuharness demo FILE [options]\n");
}

TEST(FlagParserTest, ThisProgramIsThisBinary) {
  const std::string program = ThisProgram();
  EXPECT_THAT(program, testing::EndsWith("gh_cli_test"));
}

}  // namespace
}  // namespace gh
