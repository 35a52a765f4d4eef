// Repro scripts carry user strings (labels, versions, signatures, env, paths): each goes through
// core/shell_quote. These tests run the scripts under bash with hostile strings and prove that
// nothing the strings spell ran.
#include "harness/bisect/repro_script.h"

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/file_util.h"
#include "harness/core/shell_quote.h"

namespace gh {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

struct Scratch {
  std::string dir;
  std::string marker;  // what every hostile string tries to create
};

Scratch MakeScratch(const std::string& name) {
  // A space and a quote in the path itself: the paths are user strings too.
  fs::path dir = fs::path(::testing::TempDir()) / "repro_script_test" / (name + " it's");
  fs::remove_all(dir);
  fs::create_directories(dir);
  return {dir.string(), (dir / "ran").string()};
}

std::string Touch(const std::string& marker) { return absl::StrCat("touch ", ShellQuote(marker)); }

// An arm whose command exits with `status`, carrying hostile strings everywhere a user's can go.
ReproArm HostileArm(const Scratch& s, int status) {
  const std::string t = Touch(s.marker);
  ReproArm arm;
  arm.title = absl::StrCat("nccl=\\$(", t, ") \"$(", t, ")\" `", t, "`");
  arm.observed = absl::StrCat("fail: wrong data\n", t, "\n# ");
  arm.argv = {"/bin/sh", "-c", absl::StrCat("exit ", status), "$(" + t + ")", "--out", "records", "--filter", "p"};
  arm.env = {{"GH_HOSTILE", absl::StrCat("'$(", t, ")'")}, {absl::StrCat("X$(", t, ")"), "v"}};
  arm.cwd = s.dir;
  arm.version = absl::StrCat("2.28$(", t, ")");
  arm.version_dir = s.dir + "/versions/v $(x)";
  arm.setup = "true";
  return arm;
}

// Runs the script under bash with $OUT in the scratch dir; its exit status.
int RunScript(const Scratch& s, const std::string& script, const std::string& args = "") {
  const std::string path = s.dir + "/repro.sh";
  EXPECT_TRUE(WriteFileAtomically(path, script).ok());
  const std::string command = absl::StrCat("GH_REPRO_OUT=", ShellQuote(s.dir + "/out"), " bash ", ShellQuote(path),
                                           args, " >", ShellQuote(s.dir + "/console"), " 2>&1");
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(ReproScript, HostileStringsRunNothing) {
  const Scratch s = MakeScratch("hostile");
  const std::string script = RenderReproScript(absl::StrCat("p/x=$(", Touch(s.marker), ")"),
                                               absl::StrCat("the sweep in ", s.dir, "\n", Touch(s.marker)),
                                               HostileArm(s, 1), HostileArm(s, 0));
  // The signature's newline stays inside its comment.
  EXPECT_THAT(script, HasSubstr("# recorded: fail: wrong data\\ntouch "));
  RunScript(s, script);
  EXPECT_FALSE(fs::exists(s.marker)) << script;
  absl::StatusOr<std::string> console = ReadFileToString(s.dir + "/console");
  ASSERT_TRUE(console.ok());
  // The titles are printed as written, not expanded.
  EXPECT_THAT(*console, HasSubstr(absl::StrCat("== failing arm: ", HostileArm(s, 1).title)));
}

TEST(ReproScript, TheArmsRunAndTheVerdictIsRight) {
  // Valid names only: an invalid one makes export fail (which is what it must do, and not run).
  const Scratch s = MakeScratch("verdict");
  ReproArm failing = HostileArm(s, 1), working = HostileArm(s, 0);
  failing.env.erase(absl::StrCat("X$(", Touch(s.marker), ")"));
  working.env.erase(absl::StrCat("X$(", Touch(s.marker), ")"));
  EXPECT_EQ(RunScript(s, RenderReproScript("p", "here", failing, working)), 0);
  absl::StatusOr<std::string> console = ReadFileToString(s.dir + "/console");
  ASSERT_TRUE(console.ok());
  EXPECT_THAT(*console, HasSubstr("reproduced: the failing arm fails, the workaround arm passes"));
  EXPECT_TRUE(fs::is_directory(s.dir + "/versions/v $(x)"));
  EXPECT_FALSE(fs::exists(s.marker));
}

TEST(ReproScript, AFailedSetUpPrintsTheVersionAsWritten) {
  const Scratch s = MakeScratch("setup");
  ReproArm arm = HostileArm(s, 1);
  arm.setup = "exit 1";
  EXPECT_EQ(RunScript(s, RenderReproScript("p", "here", arm, std::nullopt)), 3);
  EXPECT_FALSE(fs::exists(s.marker));
  absl::StatusOr<std::string> console = ReadFileToString(s.dir + "/console");
  ASSERT_TRUE(console.ok());
  EXPECT_THAT(*console, HasSubstr(absl::StrCat("set-up of version ", arm.version, " failed")));
}

// An exec arm: two ranks running their own command; rank 1 of the failing arm raises.
ReproArm ExecArm(const Scratch& s, bool failing) {
  const std::string t = Touch(s.marker);
  ReproArm arm;
  arm.title = failing ? "version=v4 (first bad)" : "version=v3 (last good)";
  arm.env = {{"GH_CELL", absl::StrCat("$(", t, ")")}};
  arm.seen_failed = failing ? 3 : 0;
  arm.seen_trials = 5;
  for (int r = 0; r < 2; ++r) {
    ReproRank rank;
    // $1 the coordinator, $2 the rank; the env value quotes a command that must not run.
    rank.argv = {"/bin/sh", "-c",
                 absl::StrCat("echo \"coordinator $1 rank $2 env $COORD $GH_CELL\"; ",
                              failing ? "[ \"$2\" = 1 ] && { echo 'ValueError: boom'; exit 1; }; " : "", "exit 0"),
                 "sh", "127.0.0.9:5555", absl::StrCat(r)};
    rank.env = {{"COORD", "tcp://127.0.0.9:5555/x"}};
    rank.workdir = s.dir;
    rank.coordinator = "127.0.0.9:5555";
    arm.ranks.push_back(rank);
  }
  return arm;
}

TEST(ReproScript, AnExecArmRunsEachRanksOwnCommandWithALocalCoordinator) {
  const Scratch s = MakeScratch("exec");
  const std::string script = RenderReproScript("p", "here", ExecArm(s, true), ExecArm(s, false));
  EXPECT_THAT(script, Not(HasSubstr("gpuharness run")));
  EXPECT_EQ(RunScript(s, script), 0);
  absl::StatusOr<std::string> console = ReadFileToString(s.dir + "/console");
  ASSERT_TRUE(console.ok());
  EXPECT_THAT(*console, HasSubstr("-- rank 1 of 2 exited 1; the last lines of "));
  EXPECT_THAT(*console, HasSubstr("\nValueError: boom\n"));
  EXPECT_THAT(*console, Not(HasSubstr("-- rank 0 of 2"))) << "rank 0 passed";
  EXPECT_THAT(*console, HasSubstr("reproduced: the failing arm fails, the workaround arm passes"));
  EXPECT_FALSE(fs::exists(s.marker));
  absl::StatusOr<std::string> rank1 = ReadFileToString(s.dir + "/out/failing/rank1.log");
  ASSERT_TRUE(rank1.ok());
  // The recorded coordinator gives way to a local one, in argv and env alike.
  EXPECT_THAT(*rank1, ::testing::MatchesRegex("coordinator 127\\.0\\.0\\.1:[0-9]+ rank 1 env "
                                              "tcp://127\\.0\\.0\\.1:[0-9]+/x \\$\\(touch [^\n]*\\)\n"
                                              "ValueError: boom\n"));
}

TEST(ReproScript, RepeatCountsTheRunsAndArmRunsOneArmAlone) {
  const Scratch s = MakeScratch("repeat");
  const std::string script = RenderReproScript("p", "here", ExecArm(s, true), ExecArm(s, false));
  EXPECT_EQ(RunScript(s, script, " --repeat 3"), 0);
  absl::StatusOr<std::string> console = ReadFileToString(s.dir + "/console");
  ASSERT_TRUE(console.ok());
  EXPECT_THAT(*console, HasSubstr("failing arm: failed 3 of 3 runs\n   the bisect saw this fail 3 of 5 times\n"));
  EXPECT_THAT(*console, HasSubstr("workaround arm: failed 0 of 3 runs\n   the bisect saw this fail 0 of 5 times\n"));
  EXPECT_TRUE(fs::exists(s.dir + "/out/failing.run3/rank1.log"));
  EXPECT_EQ(RunScript(s, script, " --arm failing"), 1);
  console = ReadFileToString(s.dir + "/console");
  ASSERT_TRUE(console.ok());
  EXPECT_THAT(*console, HasSubstr("ValueError: boom"));
  EXPECT_THAT(*console, Not(HasSubstr("workaround arm")));
  EXPECT_EQ(RunScript(s, script, " --arm workaround --repeat 2"), 0);
  EXPECT_EQ(RunScript(s, script, " --repeat 0"), 2);
  EXPECT_EQ(RunScript(s, script, " --arm other"), 2);
  EXPECT_EQ(RunScript(s, script, " --bogus"), 2);
  EXPECT_FALSE(fs::exists(s.marker));
}

TEST(ReadReproRanks, EveryRanksCommandOfThePointInRankOrderOrNone) {
  const Scratch s = MakeScratch("ranks");
  const std::string logs = s.dir + "/job/logs/exec_repro/np=2";
  fs::create_directories(logs);
  auto write = [&](const std::string& name, const nlohmann::json& j) {
    ASSERT_TRUE(WriteFileAtomically(logs + "/" + name, j.dump()).ok());
  };
  auto rank = [](int r, const std::string& point) {
    return nlohmann::json{{"point", point}, {"rank", r}, {"nranks", 2}, {"coordinator", "127.0.0.1:9"},
                          {"argv", {"prog", absl::StrCat(r)}}, {"env", nlohmann::json::array({nlohmann::json::array({"A", "1"})})}, {"workdir", "/w"},
                          {"exit_status", 0}};
  };
  write("rank1.log.command.json", rank(1, "exec_repro/np=2"));
  absl::StatusOr<std::vector<ReproRank>> ranks = ReadReproRanks(s.dir + "/job", "exec_repro/np=2");
  ASSERT_TRUE(ranks.ok()) << ranks.status();
  EXPECT_TRUE(ranks->empty()) << "rank 0's is missing: no standalone command";
  write("rank0.log.command.json", rank(0, "exec_repro/np=2"));
  write("rank0.trial1.log.command.json", rank(0, "other"));  // a later trial's: not read
  ranks = ReadReproRanks(s.dir + "/job", "exec_repro/np=2");
  ASSERT_TRUE(ranks.ok()) << ranks.status();
  ASSERT_EQ(ranks->size(), 2u);
  EXPECT_EQ((*ranks)[0].argv, (std::vector<std::string>{"prog", "0"}));
  EXPECT_EQ((*ranks)[1].argv, (std::vector<std::string>{"prog", "1"}));
  EXPECT_EQ((*ranks)[1].coordinator, "127.0.0.1:9");
  EXPECT_EQ((*ranks)[1].env, (std::vector<std::pair<std::string, std::string>>{{"A", "1"}}));
  EXPECT_TRUE(ReadReproRanks(s.dir + "/job", "another/point")->empty());
  EXPECT_TRUE(ReadReproRanks(s.dir + "/nothing", "exec_repro/np=2")->empty());
  nlohmann::json bad = rank(1, "exec_repro/np=2");
  bad["argv"] = "prog";
  write("rank1.log.command.json", bad);
  EXPECT_EQ(ReadReproRanks(s.dir + "/job", "exec_repro/np=2").status().message(),
            logs + "/rank1.log.command.json: argv: expected a list, got string");
}

TEST(ReproScript, AJobJsonWithABadEnvNameIsRefused) {
  nlohmann::json job = {{"argv", {"gpuharness", "run"}}, {"env", {{"A=B", "1"}}}};
  absl::StatusOr<ReproArm> arm = ReproArmFromJobJson(StateJson(job, "DIR/job.json"));
  EXPECT_TRUE(absl::IsInvalidArgument(arm.status()));
  EXPECT_THAT(arm.status().message(), HasSubstr("DIR/job.json: env.A=B: 'A=B' is not an environment variable name"));
  job = {{"argv", {"gpuharness", 7}}};
  EXPECT_EQ(ReproArmFromJobJson(StateJson(job, "DIR/job.json")).status().message(),
            "DIR/job.json: argv[1]: expected a string, got number");
}

}  // namespace
}  // namespace gh
