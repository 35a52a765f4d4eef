// Whole-binary tests of `gpuharness bisect` over the synthetic version range in
// tests/bisect_versions (v00..v02 crash with SIGSEGV, v03..v07 pass, v07 cannot be set up,
// v08..v11 fail with wrong data), every probe a real mpirun job on the host backend. They
// assert the answer, every probe's verdict and counts, resume, the repro script and bad input.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "harness/core/testdata/temp_dir.h"
#include "tests/common/shell_run.h"

namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using gh::testing::CommandRun;
using gh::testing::ReadWholeFile;
using gh::testing::ShellWord;

// Runs a shell command line with the synthetic range's environment; stdout+stderr captured.
CommandRun Shell(const std::string& command) {
  return gh::testing::RunShellWith(
      {{"GH_BISECT_TESTDATA", GH_BISECT_TESTDATA_DIR}, {"GH_BISECT_FAKE_LIB", GH_BISECT_FAKE_LIB_PATH}}, command);
}

CommandRun Bisect(const std::vector<std::string>& args) {
  std::string command = ShellWord(GH_GPUHARNESS_BIN) + " bisect " +
                        ShellWord(std::string(GH_BISECT_TESTDATA_DIR) + "/versions.yaml");
  for (const std::string& a : args) command += " " + ShellWord(a);
  return Shell(command);
}

std::string FreshDir(const std::string& name) { return gh::testing::FreshNamedTempDir("gh_bisect_e2e_" + name); }

// A command that must refuse its input: exit 2, `message` in its console.
void ExpectRefused(const CommandRun& run, const std::string& message) {
  EXPECT_EQ(run.exit_code, 2) << run.console;
  EXPECT_THAT(run.console, HasSubstr(message));
}

// Runs a repro script with its arms' results under `arms`: it says it reproduced, the failing
// arm's records fail and the workaround arm's pass.
void ExpectReproduces(const std::string& script, const std::string& arms) {
  CommandRun replay = Shell("GH_REPRO_OUT=" + ShellWord(arms) + " bash " + ShellWord(script));
  EXPECT_EQ(replay.exit_code, 0) << replay.console;
  EXPECT_THAT(replay.console, HasSubstr("reproduced: the failing arm fails, the workaround arm passes"));
  EXPECT_THAT(ReadWholeFile(arms + "/failing/records.jsonl"), HasSubstr("\"outcome\":\"fail\""));
  EXPECT_THAT(ReadWholeFile(arms + "/workaround/records.jsonl"), HasSubstr("\"outcome\":\"pass\""));
}

nlohmann::json Summary(const std::string& dir) {
  nlohmann::json j = nlohmann::json::parse(ReadWholeFile(dir + "/summary.json"), nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << dir << "/summary.json";
  return j;
}

// version -> "verdict trials/passes/hunted/others/skips"
std::map<std::string, std::string> Probes(const nlohmann::json& summary) {
  std::map<std::string, std::string> out;
  for (const auto& p : summary["probes"]) {
    out[p["version"].get<std::string>()] =
        p["verdict"].get<std::string>() + " " + std::to_string(p["trials"].get<int>()) + "/" +
        std::to_string(p["passes"].get<int>()) + "/" + std::to_string(p["hunted"].get<int>()) + "/" +
        std::to_string(p["others"].get<int>()) + "/" + std::to_string(p["skips"].get<int>());
  }
  return out;
}

const std::vector<std::string> kHuntWrongData = {"--hunt-outcome", "fail", "--hunt-signature",
                                                 "elements wrong", "--max-trials", "2"};

std::vector<std::string> With(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST(BisectE2eTest, FindsTheFirstBadVersionAcrossASetUpFailureAndResumes) {
  const std::string out = FreshDir("found");
  CommandRun run = Bisect(With(kHuntWrongData, {"--good", "v03", "--bad", "v11", "--out", out}));
  ASSERT_EQ(run.exit_code, 0) << run.console;
  EXPECT_THAT(run.console, HasSubstr("first bad: v08, last good: v06, unclassified between: v07;"));
  nlohmann::json summary = Summary(out);
  EXPECT_EQ(summary["status"], "found");
  EXPECT_EQ(summary["answer"]["first_bad"], "v08");
  EXPECT_EQ(summary["answer"]["last_good"], "v06");
  EXPECT_EQ(summary["answer"]["unclassified"], nlohmann::json::array({"v07"}));
  EXPECT_EQ(summary["hunt"]["outcome"], "fail");
  EXPECT_EQ(summary["hunt"]["signature"], "elements wrong");
  // Ends (the bad end fails both its trials: deterministic), then v07 (the middle of v04..v10)
  // cannot be set up, so its neighbour v06 is probed, then v09 and v08, one trial each; the
  // answer's pair then takes a second trial each, the cap of 2.
  std::map<std::string, std::string> probes = Probes(summary);
  EXPECT_EQ(probes, (std::map<std::string, std::string>{{"v03", "good 1/1/0/0/0"},
                                                        {"v06", "good 2/2/0/0/0"},
                                                        {"v07", "skip 0/0/0/0/0"},
                                                        {"v08", "bad 2/0/2/0/0"},
                                                        {"v09", "bad 1/0/1/0/0"},
                                                        {"v11", "bad 2/0/2/0/0"}}));
  for (const auto& p : summary["probes"]) {
    if (p["version"] == "v07") {
      EXPECT_THAT(p["setup_failure"].get<std::string>(), HasSubstr("v07 does not build"));
    }
    if (p["verdict"] == "bad") {
      EXPECT_EQ(p["signatures"], nlohmann::json({{"fail: 1 of 1024 elements wrong, first at 0 [ranks 1]",
                                                  p["trials"]}}));
    }
  }
  EXPECT_EQ(summary["total_trials"], 8);
  EXPECT_EQ(summary["economy"]["risk_note"], "the pair is at the trial cap (2 per version)");
  const std::string md = ReadWholeFile(out + "/summary.md");
  EXPECT_THAT(md, HasSubstr("**First bad: `v08`** · last good: `v06` · between them could not be tested: `v07` "
                            "(`set-up failed: setup exit 1 (log "));
  EXPECT_THAT(md, HasSubstr("- Could not be tested between them: `v07` (`set-up failed: setup exit 1 (log "
                            "<DIR>/versions/v07/setup.log): error: v07 does not build (planted set-up failure)`)"));
  EXPECT_THAT(md, HasSubstr("| v08 | 2/2 failed (fail: 1 of 1024 elements wrong, first at 0 [ranks 1]) | bad · **first bad** |"));

  // Resume: the same command runs no job; every trial comes from the state file.
  std::filesystem::remove_all(out + "/probes");
  CommandRun again = Bisect(With(kHuntWrongData, {"--good", "v03", "--bad", "v11", "--out", out}));
  ASSERT_EQ(again.exit_code, 0) << again.console;
  EXPECT_THAT(again.console, HasSubstr("first bad: v08, last good: v06, unclassified between: v07; 6 probes, "
                                       "8 trials (8 from the state file)"));
  EXPECT_FALSE(std::filesystem::exists(out + "/probes/v08"));
  // v07's set-up failure is not cached: it was retried.
  EXPECT_THAT(again.console, HasSubstr("version v07: set-up FAILED"));
}

TEST(BisectE2eTest, ADeterministicFailureTakesOneTrialPerProbeThenConfirmsThePair) {
  // The default test (up to 20 trials): the bad end's 2 trials both fail, so each probe takes one
  // trial, as git bisect; the first bad then fails again and the last good passes until the risk
  // a flaky failure would have given these trials is at most 1 % (the plain test took 14 passes
  // per good probe, the 8-trial estimate 18 trials here).
  const std::string out = FreshDir("economy");
  CommandRun run = Bisect({"--hunt-outcome", "fail", "--hunt-signature", "elements wrong", "--good", "v03", "--bad",
                           "v11", "--out", out});
  ASSERT_EQ(run.exit_code, 0) << run.console;
  EXPECT_THAT(run.console, HasSubstr("first bad: v08, last good: v06, unclassified between: v07;"));
  nlohmann::json summary = Summary(out);
  EXPECT_EQ(summary["economy"]["deterministic"], true);
  EXPECT_EQ(summary["economy"]["one_trial_per_probe"], true);
  EXPECT_EQ(summary["economy"]["bad_end_runs"], 2);
  EXPECT_EQ(summary["economy"]["bad_end_hunted"], 2);
  EXPECT_LE(summary["economy"]["risk"].get<double>(), 0.01);
  EXPECT_EQ(summary["economy"]["confirmation"], "first bad v08 failed 2 of 2 runs, last good v06 passed 4 of 4 runs");
  std::map<std::string, std::string> probes = Probes(summary);
  EXPECT_EQ(probes, (std::map<std::string, std::string>{{"v03", "good 1/1/0/0/0"},
                                                        {"v06", "good 4/4/0/0/0"},
                                                        {"v07", "skip 0/0/0/0/0"},
                                                        {"v08", "bad 2/0/2/0/0"},
                                                        {"v09", "bad 1/0/1/0/0"},
                                                        {"v11", "bad 2/0/2/0/0"}}));
  EXPECT_EQ(summary["total_trials"], 10);
  EXPECT_THAT(ReadWholeFile(out + "/summary.md"),
              HasSubstr("- Trial economy: the bad end failed 2 of 2 trials: deterministic; one trial per probe (as git "
                        "bisect); the answer's pair: first bad v08 failed 2 of 2 runs, last good v06 passed 4 "
                        "of 4 runs. Risk taken: were the failure flaky (failing 30% of runs or more) rather than "
                        "deterministic, trials like these would come from a change elsewhere with probability at most "));
}

TEST(BisectE2eTest, ReproScriptReplaysTheFirstBadAndLastGoodVersions) {
  const std::string out = FreshDir("repro");
  CommandRun run = Bisect(With(kHuntWrongData, {"--good", "v05", "--bad", "v09", "--out", out}));
  ASSERT_EQ(run.exit_code, 0) << run.console;
  EXPECT_THAT(run.console, HasSubstr("first bad: v08, last good: v06"));
  const std::string script = ReadWholeFile(out + "/repro_first_bad.sh");
  EXPECT_THAT(script, HasSubstr("#   failing arm:    version=v08 (first bad) -> fail: 1 of 1024 elements wrong"));
  EXPECT_THAT(script, HasSubstr("#   workaround arm: version=v06 (last good) -> pass"));
  EXPECT_THAT(script, HasSubstr("export LD_PRELOAD=" + out + "/versions/v08/libfake_version.so"));
  EXPECT_THAT(script, HasSubstr("--filter bisect_probe/bytes=4K/dtype=i32/transport=mpi_p2p/np=2"));
  const std::string repro_out = FreshDir("repro_arms");
  ExpectReproduces(out + "/repro_first_bad.sh", repro_out);
  CommandRun last_good = Shell("GH_REPRO_OUT=" + ShellWord(repro_out + "_good") + " bash " + ShellWord(out + "/repro_last_good.sh"));
  EXPECT_EQ(last_good.exit_code, 0) << last_good.console;
  EXPECT_THAT(last_good.console, HasSubstr("as recorded: the arm passes"));
}

TEST(BisectE2eTest, ThreeJobsProbeThreeVersionsPerRound) {
  const std::string out = FreshDir("kary");
  CommandRun run = Bisect(With(kHuntWrongData, {"--good", "v03", "--bad", "v11", "--jobs", "3", "--out", out}));
  ASSERT_EQ(run.exit_code, 0) << run.console;
  nlohmann::json summary = Summary(out);
  EXPECT_EQ(summary["answer"]["first_bad"], "v08");
  EXPECT_EQ(summary["answer"]["last_good"], "v06");
  EXPECT_EQ(summary["answer"]["unclassified"], nlohmann::json::array({"v07"}));
  // Candidates v04..v10: v07 (the middle) and both of its halves' middles, v05 and v09, start
  // at once (round 1); v07 cannot be set up, so the slot it frees takes v06 at once, and the
  // next slot v08 or, when v09 is decided before v05, v04 (round 2). No round waits for its
  // slowest probe, so which of the two comes first depends on the jobs' timing.
  std::map<int, std::vector<std::string>> rounds;
  for (const auto& p : summary["probes"]) rounds[p["round"].get<int>()].push_back(p["version"]);
  for (auto& [round, versions] : rounds) std::sort(versions.begin(), versions.end());
  EXPECT_THAT(rounds[0], ElementsAre("v03", "v11"));
  EXPECT_THAT(rounds[1], ElementsAre("v05", "v07", "v09"));
  EXPECT_THAT(rounds[2], ::testing::IsSupersetOf({"v06", "v08"}));
  EXPECT_EQ(summary["rounds"], 2);
}

TEST(BisectE2eTest, FindFixNamesTheFirstGoodVersionAfterBadOnes) {
  // v00..v02 crash with SIGSEGV, v03.. pass: when did the crash go away? The list is not
  // reversed: --bad is the early failing version, --good a later passing one.
  const std::string out = FreshDir("fix");
  CommandRun run = Bisect({"--find", "fix", "--bad", "v00", "--good", "v06", "--hunt-outcome", "crash",
                           "--max-trials", "2", "--out", out});
  ASSERT_EQ(run.exit_code, 0) << run.console;
  EXPECT_THAT(run.console, HasSubstr("first good (the fix): v03, last bad: v02;"));
  nlohmann::json summary = Summary(out);
  EXPECT_EQ(summary["find"], "fix");
  EXPECT_EQ(summary["answer"]["first_good"], "v03");
  EXPECT_EQ(summary["answer"]["last_bad"], "v02");
  EXPECT_FALSE(summary["answer"].contains("first_bad"));
  std::map<std::string, std::string> probes = Probes(summary);
  EXPECT_EQ(probes["v00"], "bad 2/0/2/0/0");
  EXPECT_EQ(probes["v06"], "good 1/1/0/0/0");  // one trial per probe, the pair confirmed
  EXPECT_EQ(probes["v02"], "bad 2/0/2/0/0");
  EXPECT_EQ(probes["v03"], "good 2/2/0/0/0");
  const std::string md = ReadWholeFile(out + "/summary.md");
  EXPECT_THAT(md, HasSubstr("**First good (the fix): `v03`** · last bad: `v02`"));
  const std::string script = ReadWholeFile(out + "/repro_first_bad.sh");
  EXPECT_THAT(script, HasSubstr("#   failing arm:    version=v02 (last bad) -> crash: "));
  EXPECT_THAT(script, HasSubstr("#   workaround arm: version=v03 (first good, the fix) -> pass"));

  ExpectRefused(Bisect({"--find", "fix", "--bad", "v06", "--good", "v00", "--out", FreshDir("fix_order")}),
                "--bad: 'v06' must come before --good 'v00' in the version order");
  ExpectRefused(Bisect({"--find", "fixed", "--bad", "v00", "--good", "v06", "--out", FreshDir("fix_word")}),
                "--find: expected bug or fix, got 'fixed'");
}

TEST(BisectE2eTest, CrashingGoodEndStopsWithTheOtherFailure) {
  const std::string out = FreshDir("crash_end");
  CommandRun run = Bisect(With(kHuntWrongData, {"--good", "v01", "--bad", "v11", "--out", out}));
  EXPECT_EQ(run.exit_code, 1) << run.console;
  nlohmann::json summary = Summary(out);
  EXPECT_EQ(summary["status"], "good_end_not_good");
  const std::string message = summary["message"];
  EXPECT_THAT(message, HasSubstr("the good end 'v01' failed differently (1 trial: 1 other; most recent: "));
  EXPECT_THAT(message, HasSubstr("SIGSEGV"));
  EXPECT_THAT(message, HasSubstr("when hunting fail ~ /elements wrong/"));
  EXPECT_THAT(run.console, HasSubstr("no answer: the good end 'v01' failed differently"));
}

TEST(BisectE2eTest, PassingBadEndStops) {
  const std::string out = FreshDir("pass_end");
  CommandRun run = Bisect(With(kHuntWrongData, {"--good", "v03", "--bad", "v05", "--out", out}));
  EXPECT_EQ(run.exit_code, 1) << run.console;
  nlohmann::json summary = Summary(out);
  EXPECT_EQ(summary["status"], "bad_end_not_bad");
  EXPECT_THAT(summary["message"].get<std::string>(),
              HasSubstr("the bad end 'v05' is good (2 trials: 2 pass) when hunting fail ~ /elements wrong/"));
}

TEST(BisectE2eTest, BadInputExitsTwoAndWritesNothing) {
  const std::string out = FreshDir("bad_input");
  ExpectRefused(Bisect({"--good", "v99", "--bad", "v11", "--out", out}),
                "--good: 'v99' is not a version of axis 'version' (versions: v00, v01, ");
  ExpectRefused(Bisect({"--good", "v09", "--bad", "v03", "--out", out}),
                "--good: 'v09' must come before --bad 'v03' in the version order");
  ExpectRefused(Bisect({"--good", "v03", "--bad", "v11", "--hunt-signature", "([", "--out", out}),
                "--hunt-signature: bad regex '(['");
  ExpectRefused(Bisect({"--good", "v03", "--bad", "v11", "--jobs", "zero", "--out", out}),
                "--jobs: expected an integer >= 1, got 'zero'");
  ExpectRefused(Bisect({"--good", "v03", "--bad", "v11", "--points", "nothing/*", "--out", out}),
                "--points: 'nothing/*' matches no point of ");
  EXPECT_FALSE(std::filesystem::exists(out));

  // A bad matrix: file:line:col and the key.
  const std::string bad_matrix = FreshDir("bad_matrix_file") + ".yaml";
  std::ofstream(bad_matrix) << "name: m\nscenarios:\n  - file: " << GH_BISECT_TESTDATA_DIR
                            << "/probe.yaml\nversions:\n  values:\n    - {label: a, colour: red}\n";
  CommandRun matrix = Shell(ShellWord(GH_GPUHARNESS_BIN) + " bisect " + ShellWord(bad_matrix) +
                     " --good a --bad a --out " + ShellWord(out));
  EXPECT_EQ(matrix.exit_code, 2);
  EXPECT_THAT(matrix.console, HasSubstr(bad_matrix + ":6:"));
  EXPECT_THAT(matrix.console, HasSubstr("colour"));
  EXPECT_FALSE(std::filesystem::exists(out));
}

// minimize over tests/bisect_versions/minimize.yaml: the failing cell (cumem=on, proto=ll) and
// the passing one (cumem=off, proto=simple) differ in GH_FAKE_BEHAVIOUR, GH_FAKE_PROTO and two
// GH_FAKE_FLAGS flags; only GH_FAKE_BEHAVIOUR=corrupt makes the fake library corrupt data.
CommandRun Driver(const std::string& subcommand, const std::vector<std::string>& args) {
  std::string command = ShellWord(GH_GPUHARNESS_BIN) + " " + subcommand;
  for (const std::string& a : args) command += " " + ShellWord(a);
  return Shell(command);
}

const std::string kMinimizeMatrix = std::string(GH_BISECT_TESTDATA_DIR) + "/minimize.yaml";
const std::string kProbePoint = "bisect_probe/bytes=4K/dtype=i32/transport=mpi_p2p/np=2";

TEST(MinimizeE2eTest, FindsTheOneVariableThatFlipsTheResultAndItsReproReproduces) {
  const std::string out = FreshDir("minimize");
  CommandRun run = Driver("minimize", {kMinimizeMatrix, "--failing", "cumem=on,proto=ll", "--passing",
                                       "cumem=off,proto=simple", "--max-trials", "2", "--out", out});
  ASSERT_EQ(run.exit_code, 0) << run.console;
  nlohmann::json summary = Summary(out);
  EXPECT_EQ(summary["kind"], "minimize");
  EXPECT_EQ(summary["status"], "found") << summary.dump(2);
  EXPECT_EQ(summary["minimal_change"], "GH_FAKE_BEHAVIOUR=corrupt");
  EXPECT_EQ(summary["workaround"], "GH_FAKE_BEHAVIOUR=pass");
  EXPECT_EQ(summary["workaround_verified"], true);
  EXPECT_EQ(summary["headline"],
            "with GH_FAKE_BEHAVIOUR=pass every rank passes (the minimal change: GH_FAKE_BEHAVIOUR=corrupt)");
  EXPECT_THAT(run.console, HasSubstr("with GH_FAKE_BEHAVIOUR=pass every rank passes"));
  // Exactly one difference is in the minimal change.
  int minimal = 0;
  for (const auto& c : summary["changes"]) minimal += c["minimal"].get<bool>() ? 1 : 0;
  EXPECT_EQ(minimal, 1) << summary["changes"].dump(2);
  std::vector<std::string> failing_side;
  for (const auto& c : summary["changes"]) failing_side.push_back(c["failing"]);
  EXPECT_THAT(failing_side, ElementsAre("GH_FAKE_BEHAVIOUR=corrupt", "GH_FAKE_FLAGS += --chunk=4",
                                        "GH_FAKE_FLAGS += --fast", "GH_FAKE_PROTO=LL"));
  for (const auto& p : summary["probes"]) {
    if (p["configuration"] == "failing") {
      EXPECT_EQ(p["verdict"], "bad");
      EXPECT_EQ(p["signatures"], nlohmann::json({{"fail: 1 of 1024 elements wrong, first at 0 [ranks 1]", 2}}));
    }
    if (p["configuration"] == "passing") {
      EXPECT_EQ(p["verdict"], "good");
    }
  }
  EXPECT_EQ(summary["repro_scripts"], nlohmann::json::array({"repro.sh"}));
  const std::string script = ReadWholeFile(out + "/repro.sh");
  EXPECT_THAT(script, HasSubstr("export GH_FAKE_BEHAVIOUR=corrupt"));
  EXPECT_THAT(script, HasSubstr("export GH_FAKE_BEHAVIOUR=pass"));
  const std::string arms = FreshDir("minimize_arms");
  ExpectReproduces(out + "/repro.sh", arms);

  // `gpuharness repro` over the minimize's directory writes the same two arms.
  const std::string again = out + "/again.sh";
  CommandRun repro = Driver("repro", {out, kProbePoint, "--out", again});
  ASSERT_EQ(repro.exit_code, 0) << repro.console;
  CommandRun replay_again = Shell("GH_REPRO_OUT=" + ShellWord(arms + "_again") + " bash " + ShellWord(again));
  EXPECT_EQ(replay_again.exit_code, 0) << replay_again.console;
  EXPECT_THAT(replay_again.console, HasSubstr("reproduced: the failing arm fails, the workaround arm passes"));
}

TEST(MinimizeE2eTest, BadInputExitsTwoAndWritesNothing) {
  const std::string out = FreshDir("minimize_bad");
  ExpectRefused(Driver("minimize", {kMinimizeMatrix, "--failing", "cumem=on,proto=ll", "--passing",
                                   "cumem=on,proto=ll", "--out", out}),
                "set the same environment; there is nothing to minimize");
  ExpectRefused(Driver("minimize", {kMinimizeMatrix, "--failing", "cumem=on", "--passing",
                                   "cumem=off,proto=simple", "--out", out}),
                "--failing: 'cumem=on' matches 2 cells");
  EXPECT_FALSE(std::filesystem::exists(out));
}

// `gpuharness repro` over a sweep of the same matrix: two of its four cells fail (cumem=on); the
// script's failing arm is one of them, its workaround arm the passing cell one label away.
TEST(ReproE2eTest, SweepReproScriptFailsInTheFailingArmAndPassesInTheWorkaround) {
  const std::string out = FreshDir("repro_sweep");
  CommandRun sweep = Driver("sweep", {kMinimizeMatrix, "--out", out});
  ASSERT_EQ(sweep.exit_code, 1) << sweep.console;  // the cumem=on cells fail, no expectations say so
  const std::string script_path = out + "_repro.sh";
  std::filesystem::remove(script_path);
  CommandRun repro = Driver("repro", {out, kProbePoint, "--out", script_path});
  ASSERT_EQ(repro.exit_code, 0) << repro.console;
  const std::string script = ReadWholeFile(script_path);
  std::smatch failing, workaround;
  const std::string failing_re = R"(#   failing arm: +cumem=on,proto=(ll|simple),version=v05 -> fail: 1 of 1024 elements wrong)";
  ASSERT_TRUE(std::regex_search(script, failing, std::regex(failing_re))) << script;
  const std::string workaround_re = "#   workaround arm: cumem=off,proto=" + failing[1].str() + ",version=v05 -> pass";
  EXPECT_THAT(script, HasSubstr(workaround_re)) << script;
  EXPECT_THAT(script, HasSubstr("export GH_FAKE_BEHAVIOUR=corrupt"));
  EXPECT_THAT(script, HasSubstr("export LD_PRELOAD=" + out + "/versions/v05/libfake_version.so"));
  EXPECT_THAT(script, HasSubstr("--filter " + kProbePoint));
  const std::string arms = FreshDir("repro_sweep_arms");
  ExpectReproduces(script_path, arms);

  // Bad input: a point that never failed, a directory that holds no results.
  ExpectRefused(Driver("repro", {out, "nothing/here"}),
                "POINT: no record of 'nothing/here' in " + out + "/records.jsonl");
  ExpectRefused(Driver("repro", {out + "/no_such_dir", kProbePoint}),
                "not a results directory (no such directory)");
}

}  // namespace
