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
int RunScript(const Scratch& s, const std::string& script) {
  const std::string path = s.dir + "/repro.sh";
  EXPECT_TRUE(WriteFileAtomically(path, script).ok());
  const std::string command = absl::StrCat("GH_REPRO_OUT=", ShellQuote(s.dir + "/out"), " bash ", ShellQuote(path),
                                           " >", ShellQuote(s.dir + "/console"), " 2>&1");
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
