#include "harness/cli/command_line.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gh {
namespace {

using ::testing::ElementsAre;

// A command line with one flag of every kind.
struct Demo {
  std::string file, out, mode;
  std::vector<std::string> tags;
  int jobs = 1;
  std::optional<int> gpus;
  double rate = 0.5;
  absl::Duration grace = absl::Seconds(10);
  bool dry_run = false;
  std::string backend = "auto";
  CommandLine flags{"demo", "FILE [options]", "  Does a demo.\n", "exit: 0 always\n"};

  Demo() {
    flags.Positional("FILE", &file, /*required=*/false)
        .String("--out", kDirValue, &out, "where")
        .Strings("--tag", {"TAG", "a tag"}, &tags, "a tag\n(repeatable)")
        .Int("--jobs", kCountValue, 1, &jobs, "jobs")
        .Int("--gpus", kCountValue, 0, &gpus, "gpus")
        .Double("--rate", kNumberValue, &rate, "rate")
        .Duration("--grace", &grace, "grace")
        .Bool("--dry-run", &dry_run, "dry")
        .Choice("--backend", {"auto", "host", "cuda"}, &backend, "backend")
        .Custom("--mode", {"M", "a mode"}, [this](const std::string& v) {
          if (v != "fast" && v != "slow") return absl::InvalidArgumentError("expected fast or slow, got '" + v + "'");
          mode = v;
          return absl::OkStatus();
        }, "mode");
  }

  // The error message of parsing `args`, or "" when they parse.
  std::string Error(const std::vector<std::string>& args) {
    absl::StatusOr<CommandLine::Result> result = flags.ParseArgs(args);
    if (result.ok()) return "";
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(result.status().message());
  }
};

std::string ErrorOf(const std::vector<std::string>& args) { return Demo().Error(args); }

TEST(CommandLineTest, SetsEveryKindOfValue) {
  Demo d;
  ASSERT_EQ(d.Error({"--out", "o", "m.yaml", "--tag", "a", "--jobs", "3", "--gpus", "0", "--rate", "0.25",
                     "--grace", "90s", "--dry-run", "--mode", "slow", "--backend", "cuda"}),
            "");
  EXPECT_EQ(d.file, "m.yaml");
  EXPECT_EQ(d.out, "o");
  EXPECT_THAT(d.tags, ElementsAre("a"));
  EXPECT_EQ(d.jobs, 3);
  EXPECT_EQ(d.gpus, 0);
  EXPECT_EQ(d.rate, 0.25);
  EXPECT_EQ(d.grace, absl::Seconds(90));
  EXPECT_TRUE(d.dry_run);
  EXPECT_EQ(d.mode, "slow");
  EXPECT_EQ(d.backend, "cuda");
}

TEST(CommandLineTest, EqualsAndSpaceSpellingsAreAlike) {
  Demo spaced, joined;
  ASSERT_EQ(spaced.Error({"--out", "o", "--jobs", "2", "--grace", "1h30m", "--tag", "x", "--backend", "host", "f"}),
            "");
  ASSERT_EQ(joined.Error({"--out=o", "--jobs=2", "--grace=1h30m", "--tag=x", "--backend=host", "f"}), "");
  EXPECT_EQ(joined.out, spaced.out);
  EXPECT_EQ(joined.jobs, spaced.jobs);
  EXPECT_EQ(joined.grace, absl::Minutes(90));
  EXPECT_EQ(joined.grace, spaced.grace);
  EXPECT_EQ(joined.tags, spaced.tags);
  EXPECT_EQ(joined.backend, "host");
  EXPECT_EQ(joined.file, "f");
  // A value may hold '=' and look like a list or a flag.
  Demo odd;
  ASSERT_EQ(odd.Error({"--out=a=b", "--tag", "[x,y]", "--tag", "--dry-run"}), "");
  EXPECT_EQ(odd.out, "a=b");
  EXPECT_THAT(odd.tags, ElementsAre("[x,y]", "--dry-run"));
  EXPECT_FALSE(odd.dry_run);
}

TEST(CommandLineTest, NothingGivenLeavesTheDefaults) {
  Demo d;
  EXPECT_EQ(d.Error({}), "");
  EXPECT_EQ(d.file, "");
  EXPECT_EQ(d.jobs, 1);
  EXPECT_EQ(d.gpus, std::nullopt);
  EXPECT_EQ(d.grace, absl::Seconds(10));
  EXPECT_EQ(d.backend, "auto");
  EXPECT_FALSE(d.dry_run);
}

TEST(CommandLineTest, UnknownFlagsHaveOneWordingWithASuggestion) {
  EXPECT_EQ(ErrorOf({"m.yaml", "--ot", "x"}), "unknown flag --ot; did you mean --out?");
  EXPECT_EQ(ErrorOf({"--ot=x"}), "unknown flag --ot; did you mean --out?");
  EXPECT_EQ(ErrorOf({"--dryrun"}), "unknown flag --dryrun; did you mean --dry-run?");
  EXPECT_EQ(ErrorOf({"--hlep"}), "unknown flag --hlep; did you mean --help?");
  EXPECT_EQ(ErrorOf({"--frobnicate"}), "unknown flag --frobnicate");
  EXPECT_EQ(ErrorOf({"-x"}), "unknown flag -x");
  // Reported before a bad value or an extra argument.
  EXPECT_EQ(ErrorOf({"--jobs", "0", "a", "b", "--bogus"}), "unknown flag --bogus");
}

TEST(CommandLineTest, ExtraPositionalsAreUnexpected) {
  EXPECT_EQ(ErrorOf({"m.yaml", "extra"}), "unexpected argument 'extra'");
  std::string dir, point;
  std::vector<std::string> rest;
  CommandLine two("demo", "DIR POINT", "");
  two.Positional("DIR", &dir, true).Positional("POINT", &point, true);
  EXPECT_EQ(two.ParseArgs({"d"}).status().message(), "missing POINT");
  EXPECT_EQ(two.ParseArgs({"d", "p", "q"}).status().message(), "unexpected argument 'q'");
  ASSERT_TRUE(two.ParseArgs({"d", "p"}).ok());
  EXPECT_EQ(dir, "d");
  EXPECT_EQ(point, "p");
  CommandLine many("demo", "FILE...", "");
  many.Positionals("FILE", &rest);
  ASSERT_TRUE(many.ParseArgs({"a", "b", "-", "c"}).ok());
  EXPECT_THAT(rest, ElementsAre("a", "b", "-", "c"));
}

TEST(CommandLineTest, MissingOrEmptyValueNamesTheFlag) {
  const std::pair<const char*, const char*> cases[] = {
      {"--out", "--out needs a directory"},  {"--tag", "--tag needs a tag"},
      {"--jobs", "--jobs needs an integer"}, {"--rate", "--rate needs a number"},
      {"--grace", "--grace needs a duration"}, {"--mode", "--mode needs a mode"},
      {"--backend", "--backend needs a value"},
  };
  for (const auto& [flag, message] : cases) {
    EXPECT_EQ(ErrorOf({"m.yaml", flag}), message);
    EXPECT_EQ(ErrorOf({"m.yaml", std::string(flag) + "="}), message);
    EXPECT_EQ(ErrorOf({std::string(flag) + "=", "m.yaml"}), message) << "an empty value, not the next argument";
    EXPECT_EQ(ErrorOf({flag, ""}), message);
  }
}

TEST(CommandLineTest, BadIntegersAndNumbers) {
  EXPECT_EQ(ErrorOf({"--jobs", "zero"}), "--jobs: expected an integer >= 1, got 'zero'");
  EXPECT_EQ(ErrorOf({"--jobs", "0"}), "--jobs: expected an integer >= 1, got '0'");
  EXPECT_EQ(ErrorOf({"--jobs=1.5"}), "--jobs: expected an integer >= 1, got '1.5'");
  EXPECT_EQ(ErrorOf({"--jobs", "99999999999"}), "--jobs: expected an integer >= 1, got '99999999999'");
  EXPECT_EQ(ErrorOf({"--gpus", "-1"}), "--gpus: expected an integer >= 0, got '-1'");
  EXPECT_EQ(ErrorOf({"--rate", "1e"}), "--rate: expected a number, got '1e'");
  EXPECT_EQ(ErrorOf({"--rate", "nan"}), "--rate: expected a number, got 'nan'");
  EXPECT_EQ(ErrorOf({"--rate=inf"}), "--rate: expected a number, got 'inf'");
  Demo d;
  EXPECT_EQ(d.Error({"--rate", "-0.5"}), "");
  EXPECT_EQ(d.rate, -0.5);
  EXPECT_EQ(ErrorOf({"--backend", "tpu"}), "--backend: expected auto, host or cuda, got 'tpu'");
  EXPECT_EQ(ErrorOf({"--mode", "medium"}), "--mode: expected fast or slow, got 'medium'");
}

TEST(CommandLineTest, DurationsUseTheYamlGrammar) {
  for (const auto& [text, expected] : std::vector<std::pair<std::string, absl::Duration>>{
           {"5", absl::Seconds(5)},     {"0.5", absl::Milliseconds(500)}, {"500ms", absl::Milliseconds(500)},
           {"90s", absl::Seconds(90)}, {"10m", absl::Minutes(10)},       {"1h30m", absl::Minutes(90)}}) {
    Demo d;
    EXPECT_EQ(d.Error({"--grace", text}), "") << text;
    EXPECT_EQ(d.grace, expected) << text;
  }
  EXPECT_EQ(ErrorOf({"--grace", "abc"}), "--grace: expected a duration such as 90s, 10m or 1h, got 'abc'");
  EXPECT_EQ(ErrorOf({"--grace", "-3s"}), "--grace: a duration must be positive");
  EXPECT_EQ(ErrorOf({"--grace", "-3"}), "--grace: a duration must be positive");
}

TEST(CommandLineTest, BoolFlagsTakeNoValue) {
  EXPECT_EQ(ErrorOf({"--dry-run=yes"}), "--dry-run takes no value");
  Demo d;
  EXPECT_EQ(d.Error({"--dry-run", "--dry-run"}), "");
  EXPECT_TRUE(d.dry_run);
}

TEST(CommandLineTest, RepeatedFlagsLastWinsOrAppend) {
  Demo d;
  EXPECT_EQ(d.Error({"--out", "a", "--out=b", "--jobs", "2", "--jobs", "4", "--tag", "x", "--tag=y", "--tag", "x"}),
            "");
  EXPECT_EQ(d.out, "b");
  EXPECT_EQ(d.jobs, 4);
  EXPECT_THAT(d.tags, ElementsAre("x", "y", "x"));
  // The first bad value in the order given is reported.
  EXPECT_EQ(ErrorOf({"--rate", "x", "--jobs", "0"}), "--rate: expected a number, got 'x'");
  EXPECT_EQ(ErrorOf({"--jobs", "2", "--jobs", "0", "--jobs", "x"}), "--jobs: expected an integer >= 1, got '0'");
}

TEST(CommandLineTest, HelpWinsOverBadValues) {
  for (const char* help : {"--help", "-h"}) {
    Demo d;
    absl::StatusOr<CommandLine::Result> result = d.flags.ParseArgs({"m.yaml", "--jobs", "0", "--bogus", help});
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(*result, CommandLine::Result::kHelp);
  }
}

TEST(CommandLineTest, HelpListsEveryFlagFromItsDeclaration) {
  EXPECT_EQ(Demo().flags.Help(),
            "usage: gpuharness demo FILE [options]\n"
            "  Does a demo.\n"
            "options:\n"
            "  --out DIR             where\n"
            "  --tag TAG             a tag\n"
            "                        (repeatable)\n"
            "  --jobs N              jobs\n"
            "  --gpus N              gpus\n"
            "  --rate P              rate\n"
            "  --grace T             grace\n"
            "  --dry-run             dry\n"
            "  --backend auto|host|cuda\n"
            "                        backend\n"
            "  --mode M              mode\n"
            "  -h, --help            print this help\n"
            "exit: 0 always\n");
}

// CommandLine::Parse on argv = `args` (the subcommand's name first).
std::optional<int> ParseArgv(CommandLine& flags, std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return flags.Parse(static_cast<int>(argv.size()), argv.data());
}

TEST(CommandLineTest, ParseReports) {
  {
    Demo d;
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    EXPECT_EQ(ParseArgv(d.flags, {"demo", "m.yaml", "--jobs=2"}), std::nullopt);
    EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
    EXPECT_EQ(d.jobs, 2);
  }
  {
    Demo d;
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    EXPECT_EQ(ParseArgv(d.flags, {"demo", "-h"}), 0);
    EXPECT_EQ(testing::internal::GetCapturedStdout(), d.flags.Help());
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  }
  {
    Demo d;
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    EXPECT_EQ(ParseArgv(d.flags, {"demo", "--ot", "x"}), 2);
    EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
    EXPECT_EQ(testing::internal::GetCapturedStderr(),
              "gpuharness demo: unknown flag --ot; did you mean --out?\n"
              "usage: gpuharness demo FILE [options] (gpuharness help demo for more)\n");
  }
}

TEST(CommandLineTest, ThisProgramIsThisBinary) { EXPECT_THAT(ThisProgram(), testing::EndsWith("gh_cli_test")); }

}  // namespace
}  // namespace gh

namespace gh {
namespace {

// A flag with a short and a long name ("-v, --verbose"): both set it, help shows both, and a
// misspelling is pointed at the long name.
TEST(CommandLineTest, ShortAndLongNamesOfOneFlag) {
  for (const char* spelling : {"-v", "--verbose"}) {
    bool verbose = false;
    CommandLine flags("demo", "[options]", "");
    flags.Bool("-v, --verbose", &verbose, "more");
    ASSERT_TRUE(flags.ParseArgs({spelling}).ok()) << spelling;
    EXPECT_TRUE(verbose) << spelling;
  }
  bool verbose = false;
  CommandLine flags("demo", "[options]", "");
  flags.Bool("-v, --verbose", &verbose, "more");
  EXPECT_THAT(flags.Help(), ::testing::HasSubstr("  -v, --verbose         more\n"));
  absl::StatusOr<CommandLine::Result> typo = flags.ParseArgs({"--verbos"});
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.status().message(), "unknown flag --verbos; did you mean --verbose?");
}

}  // namespace
}  // namespace gh
