// A repro script says "reproduced" only for a failure of the recorded family, and sets a version
// up again when its activation is incomplete. These tests run the scripts under bash.
#include "harness/bisect/repro_script_checks.h"

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/file_util.h"
#include "harness/core/record.h"
#include "harness/core/shell_quote.h"

namespace gh {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

bool EreMatches(const std::string& re, const std::string& line) {
  return std::regex_search(line, std::regex(re, std::regex::extended));
}

TEST(FamilyLineRegexTest, MatchesTheFamilyInOtherWordsAndNoOtherException) {
  const FailureFamily f = FailureFamilyOf(
      Outcome::kError, "AttributeError: module 'jax.sharding' has no attribute 'PositionalSharding' [ranks 0,1]", "");
  const std::string re = absl::StrCat("^", FamilyLineRegex(f), "$");
  EXPECT_EQ(FamilyLineRegex(f), "AttributeError:[[:space:]]*module[[:space:]]+'.*'[[:space:]]+has[[:space:]]+no"
                                "[[:space:]]+attribute[[:space:]]+'.*'");
  EXPECT_TRUE(EreMatches(re, "AttributeError: module 'jax.sharding' has no attribute 'PositionalSharding'"));
  EXPECT_TRUE(EreMatches(re, "AttributeError: module 'fakelib.sharding'  has no attribute 'Sharding'"));
  EXPECT_FALSE(EreMatches(re, "ModuleNotFoundError: No module named 'jax'"));
  EXPECT_FALSE(EreMatches(re, "AttributeError: 'NoneType' object has no attribute 'x'"));
  // Regex characters of the message are literal; numbers and versions are open.
  const FailureFamily g = FailureFamilyOf(Outcome::kError, "ValueError: shape (8, 2) * 3 != 41 in v0.6.0", "");
  EXPECT_TRUE(EreMatches(absl::StrCat("^", FamilyLineRegex(g), "$"), "ValueError: shape (16, 4) * 3 != 7 in v0.7.1"));
  EXPECT_FALSE(EreMatches(absl::StrCat("^", FamilyLineRegex(g), "$"), "ValueError: shape 16, 4 * 3 != 7 in v0.7.1"));
}

TEST(ActivationPathsTest, ThePathsUnderTheVersionDirectoryThatTheArmUses) {
  ReproArm arm;
  arm.version_dir = "/d/versions/v4";
  arm.env = {{"PATH", "/d/versions/v4/venv/bin:/usr/bin"},
             {"VIRTUAL_ENV", "/d/versions/v4/venv"},
             {"LD_PRELOAD", "/d/versions/v4/lib/a.so:/usr/lib/b.so"},
             {"OTHER", "/d/versions/v40/bin"}};
  ReproRank rank;
  rank.argv = {"/d/versions/v4/venv/bin/python", "prog.py"};
  rank.env = {{"PYTHONPATH", "/d/versions/v4/prefix/python"}};
  arm.ranks = {rank};
  EXPECT_EQ(ActivationPaths(arm),
            (std::vector<std::string>{"/d/versions/v4/lib/a.so", "/d/versions/v4/prefix/python",
                                      "/d/versions/v4/venv", "/d/versions/v4/venv/bin",
                                      "/d/versions/v4/venv/bin/python"}));
  arm.version_dir = "";
  EXPECT_TRUE(ActivationPaths(arm).empty());
}

struct Scratch {
  std::string dir;
};

Scratch MakeScratch(const std::string& name) {
  fs::path dir = fs::path(::testing::TempDir()) / "repro_script_checks_test" / (name + " it's");
  fs::remove_all(dir);
  fs::create_directories(dir);
  return {dir.string()};
}

// Runs the script under bash; its exit status, the console in `console`.
int RunScript(const Scratch& s, const std::string& script, std::string& console, const std::string& args = "") {
  const std::string path = s.dir + "/repro.sh";
  EXPECT_TRUE(WriteFileAtomically(path, script).ok());
  fs::remove_all(s.dir + "/out");
  const std::string command = absl::StrCat("GH_REPRO_OUT=", ShellQuote(s.dir + "/out"), " bash ", ShellQuote(path),
                                           args, " >", ShellQuote(s.dir + "/console"), " 2>&1");
  const int status = std::system(command.c_str());
  console = ReadFileToString(s.dir + "/console").value_or("");
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// An exec arm of 2 ranks running `prog` from the version's bin/ (on PATH, as a version's
// activation puts it); the version's set-up writes `prog` with `body` as rank 1's failure.
ReproArm VersionArm(const Scratch& s, const std::string& body) {
  ReproArm arm;
  arm.title = "version=v4 (first bad)";
  arm.version = "v4";
  arm.version_dir = s.dir + "/versions/v4";
  arm.env = {{"PATH", absl::StrCat(arm.version_dir, "/bin:/usr/bin:/bin")}};
  arm.setup = absl::StrCat("mkdir -p bin && printf '%s\\n' '#!/bin/sh' '[ \"$1\" = 1 ] || exit 0' ",
                           ShellQuote(body), " > bin/prog && chmod +x bin/prog");
  for (int r = 0; r < 2; ++r) {
    ReproRank rank;
    rank.argv = {"prog", absl::StrCat(r)};
    arm.ranks.push_back(rank);
  }
  return arm;
}

constexpr char kTraceback[] =
    "echo 'Traceback (most recent call last):'; echo '  File \"prog.py\", line 7, in <module>'; "
    "echo '    s = lib.sharding.Sharding(devices)'; ";

TEST(ReproScriptFamilyTest, AFailureOfAnotherFamilyIsNotReproduced) {
  const Scratch s = MakeScratch("differently");
  ReproArm arm = VersionArm(s, absl::StrCat(kTraceback, "echo \"ModuleNotFoundError: No module named 'lib'\"; exit 1"));
  arm.family = FailureFamilyOf(Outcome::kError, "AttributeError: module 'lib.sharding' has no attribute 'Sharding'",
                               "prog.py: s = lib.sharding.Sharding(devices)");
  std::string console;
  EXPECT_EQ(RunScript(s, RenderReproScript("p", "here", arm, std::nullopt), console), 1) << console;
  EXPECT_THAT(console, HasSubstr("   failed differently: ModuleNotFoundError: No module named 'lib'\n"));
  EXPECT_THAT(console, HasSubstr("failing arm: failed 1 of 1 runs\n   1 of them failed differently (recorded: "
                                 "AttributeError: module 'lib.sharding' has no attribute 'Sharding')\n"));
  EXPECT_THAT(console, HasSubstr("not reproduced: failed differently: ModuleNotFoundError: No module named 'lib' "
                                 "(recorded: AttributeError: module 'lib.sharding' has no attribute 'Sharding')\n"));
  EXPECT_THAT(console, Not(HasSubstr("reproduced: the failing arm fails")));
  // With a workaround arm too.
  ReproArm working = VersionArm(s, "exit 0");
  working.title = "version=v3 (last good)";
  EXPECT_EQ(RunScript(s, RenderReproScript("p", "here", arm, working), console), 1) << console;
  EXPECT_THAT(console, HasSubstr("not reproduced: failed differently: ModuleNotFoundError"));
}

TEST(ReproScriptFamilyTest, TheFamilyInOtherWordsOrAtTheSameLineIsReproduced) {
  const Scratch s = MakeScratch("reworded");
  const FailureFamily family =
      FailureFamilyOf(Outcome::kError, "AttributeError: lib.sharding.Sharding was removed in lib 5.0",
                      "prog.py: s = lib.sharding.Sharding(devices)");
  // The same line of the user's program, the message worded otherwise.
  ReproArm arm = VersionArm(s, absl::StrCat(kTraceback, "echo \"AttributeError: module 'lib.sharding' has no "
                                                         "attribute 'Sharding'\"; exit 1"));
  arm.family = family;
  std::string console;
  EXPECT_EQ(RunScript(s, RenderReproScript("p", "here", arm, std::nullopt), console), 0) << console;
  EXPECT_THAT(console, HasSubstr("reproduced: the failing arm fails\n"));
  // The same words with other numbers, no traceback.
  fs::remove_all(s.dir + "/versions");
  arm = VersionArm(s, "echo 'lib.errors.AttributeError: lib.sharding.Sharding was removed in lib 6.1'; exit 1");
  arm.family = family;
  EXPECT_EQ(RunScript(s, RenderReproScript("p", "here", arm, std::nullopt), console), 0) << console;
  // The exception's type alone, elsewhere: another family.
  fs::remove_all(s.dir + "/versions");
  arm = VersionArm(s, "echo \"AttributeError: 'NoneType' object has no attribute 'x'\"; exit 1");
  arm.family = family;
  EXPECT_EQ(RunScript(s, RenderReproScript("p", "here", arm, std::nullopt), console), 1) << console;
  EXPECT_THAT(console, HasSubstr("not reproduced: failed differently: AttributeError: 'NoneType' object"));
}

TEST(ReproScriptFamilyTest, ACrashIsComparedByItsSignal) {
  const Scratch s = MakeScratch("crash");
  ReproArm arm = VersionArm(s, "kill -SEGV $$");
  arm.family = FailureFamilyOf(Outcome::kCrash, "crash: SIGSEGV in step 'exec'", "");
  std::string console;
  EXPECT_EQ(RunScript(s, RenderReproScript("p", "here", arm, std::nullopt), console), 0) << console;
  fs::remove_all(s.dir + "/versions");
  arm = VersionArm(s, "kill -ABRT $$");
  arm.family = FailureFamilyOf(Outcome::kCrash, "crash: SIGSEGV in step 'exec'", "");
  EXPECT_EQ(RunScript(s, RenderReproScript("p", "here", arm, std::nullopt), console), 1) << console;
  EXPECT_THAT(console, HasSubstr("not reproduced: failed differently: crash: SIGABRT (exit status 134)"));
}

TEST(ReproScriptFamilyTest, AJobArmIsComparedByItsRecord) {
  const Scratch s = MakeScratch("job");
  auto job_arm = [](const std::string& record) {
    ReproArm arm;
    arm.title = "nccl=2.30.3";
    arm.argv = {"/bin/sh", "-c",
                absl::StrCat("mkdir -p \"$2\" && printf '%s\\n' ", ShellQuote(record), " > \"$2/records.jsonl\"; exit 1"),
                "sh", "--out", "records", "--filter", "p"};
    arm.family = FailureFamilyOf(Outcome::kFail, "3 of 1024 elements wrong, first at 0 [ranks 1]", "");
    return arm;
  };
  // A record as a job writes it: its expectation (pass) and a passing rank also say "outcome".
  auto record_of = [](Outcome outcome, const std::string& signature) {
    Record r;
    r.point = "p";
    r.nranks = 2;
    r.result.outcome = outcome;
    r.result.signature = signature;
    r.result.ranks.resize(2);
    r.result.ranks[0].outcome = outcome;
    r.result.ranks[0].signature = "the rank's own words";
    r.result.ranks[1].rank = 1;
    return RecordToJson(r).dump();
  };
  std::string console;
  EXPECT_EQ(RunScript(s, RenderReproScript("p", "here",
                                           job_arm(record_of(Outcome::kFail, "7 of 1024 elements wrong, first at 12 [ranks 0,1]")),
                                           std::nullopt),
                      console),
            0)
      << console;
  EXPECT_EQ(RunScript(s, RenderReproScript("p", "here",
                                           job_arm(record_of(Outcome::kError, "NCCL failure 'unhandled cuda error' [ranks 0]")),
                                           std::nullopt),
                      console),
            1)
      << console;
  EXPECT_THAT(console, HasSubstr("not reproduced: failed differently: error: NCCL failure 'unhandled cuda error'"));
}

TEST(ReproScriptActivationTest, AVersionWhoseActivationIsIncompleteIsSetUpAgain) {
  const Scratch s = MakeScratch("activation");
  ReproArm arm = VersionArm(s, absl::StrCat(kTraceback, "echo 'ValueError: the answer is 41, not 42'; exit 1"));
  arm.family = FailureFamilyOf(Outcome::kError, "ValueError: the answer is 41, not 42", "");
  const std::string script = RenderReproScript("p", "here", arm, std::nullopt);
  std::string console;
  EXPECT_EQ(RunScript(s, script, console), 0) << console;
  EXPECT_THAT(console, HasSubstr(absl::StrCat("version v4: setting it up (", arm.version_dir, " is missing)")));
  // Set up and complete: not again.
  EXPECT_EQ(RunScript(s, script, console), 0) << console;
  EXPECT_THAT(console, Not(HasSubstr("setting it up")));
  // The directory is there, what the activation puts on PATH is not: without the check `prog`
  // would not be found (exit 127), a failure of its own.
  fs::remove_all(arm.version_dir + "/bin");
  EXPECT_EQ(RunScript(s, script, console), 0) << console;
  EXPECT_THAT(console, HasSubstr(absl::StrCat("version v4: setting it up (", arm.version_dir, "/bin is missing)")));
  EXPECT_THAT(console, HasSubstr("reproduced: the failing arm fails"));
  // A directory a set-up never finished in (no setup.json, no record of the script's set-up).
  fs::remove(arm.version_dir + "/.repro-setup-done");
  EXPECT_EQ(RunScript(s, script, console), 0) << console;
  EXPECT_THAT(console, HasSubstr("its set-up never finished in"));
  // A set-up that leaves the activation incomplete is a set-up failure (exit 3), never a run.
  fs::remove_all(arm.version_dir);
  arm.setup = "true";
  EXPECT_EQ(RunScript(s, RenderReproScript("p", "here", arm, std::nullopt), console), 3) << console;
  EXPECT_THAT(console, HasSubstr(absl::StrCat("set-up of version v4 left its activation incomplete: ", arm.version_dir,
                                              "/bin is missing")));
  EXPECT_THAT(console, Not(HasSubstr("== failing arm")));
}

}  // namespace
}  // namespace gh
