// The gpuharness command line as a user types it: every subcommand takes `--out=DIR` as
// `--out DIR`, words an unknown flag one way with a suggestion (exit 2), prints the same help
// for `help CMD` and `CMD --help`; `--version` (and the same facts in environment.json and
// `doctor --json`), an unknown command, `list --json`, a shipped scenario by name.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "nlohmann/json.hpp"
#include "tests/common/harness_run.h"
#include "tests/common/shell_run.h"

namespace gh::testing {
namespace {

using ::testing::HasSubstr;

HarnessRun Gpuharness(const std::string& args) { return RunHarness(ArgsOptions(1, args, "")); }

std::string Src(const std::string& path) { return std::string(GH_SOURCE_DIR) + "/" + path; }

const char* const kCommands[] = {"run", "list", "sweep", "report", "bisect", "minimize", "repro", "doctor"};

TEST(CliTest, HelpCmdIsCmdHelp) {
  for (const char* command : kCommands) {
    const HarnessRun help = Gpuharness(std::string("help ") + command);
    const HarnessRun flag = Gpuharness(std::string(command) + " --help");
    EXPECT_EQ(help.exit_code, 0) << command;
    EXPECT_EQ(flag.exit_code, 0) << command;
    EXPECT_EQ(help.console, flag.console) << command;
    EXPECT_THAT(help.console, HasSubstr(std::string("usage: gpuharness ") + command + " ")) << command;
    EXPECT_THAT(help.console, HasSubstr("-h, --help")) << command;
  }
}

TEST(CliTest, TopLevelHelpListsEveryCommandAndVersion) {
  const HarnessRun help = Gpuharness("--help");
  EXPECT_EQ(help.exit_code, 0);
  for (const char* command : kCommands) EXPECT_THAT(help.console, HasSubstr(std::string("\n  ") + command + " "));
  EXPECT_THAT(help.console, HasSubstr("--version"));
  EXPECT_EQ(Gpuharness("help").console, help.console);
  const HarnessRun version = Gpuharness("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_THAT(version.console, ::testing::StartsWith(std::string("gpuharness ") + GH_VERSION + "\n"));
}

// --version names what the binary was built from and with; every environment.json and doctor's
// JSON carry the same facts.
TEST(CliTest, VersionFactsAreTheEnvironmentJsonsAndDoctors) {
  const HarnessRun version = Gpuharness("--version");
  ASSERT_EQ(version.exit_code, 0);
  EXPECT_THAT(version.console,
              ::testing::MatchesRegex("gpuharness [0-9.]+\n"
                                      "commit:             (unknown|[0-9a-f]{12}(-dirty)?)\n"
                                      "build type:         [A-Za-z]+\n"
                                      "cuda:               ([0-9.]+|none \\(CPU-only build\\))\n"
                                      "nccl:               ([0-9.]+|none)\n"
                                      "cuda architectures: ([0-9,]+|none)\n"
                                      "mpi:                (Open MPI|MPICH) [0-9.]+ \\(MPI [0-9.]+\\)\n"
                                      "compiler:           .+ \\(Linux .+\\)\n"));
  const HarnessRun run = RunHarness(1, "scenarios/selftest/ring_shift_host.yaml", "host");
  const nlohmann::json env = nlohmann::json::parse(ReadWholeFile(run.out_dir + "/environment.json"), nullptr, false);
  ASSERT_TRUE(env.is_object()) << run.console;
  const nlohmann::json& build = env["build"];
  auto line = [&](const std::string& name, const std::string& value) {
    EXPECT_THAT(version.console, HasSubstr("\n" + name + value + "\n")) << build.dump();
  };
  line("commit:             ", build["commit"]);
  line("build type:         ", build["build_type"]);
  line("mpi:                ", build["mpi"]);
  line("cuda:               ", build["cuda"] == "" ? "none (CPU-only build)" : build["cuda"].get<std::string>());
  line("nccl:               ", build["nccl"] == "" ? "none" : build["nccl"].get<std::string>());
  line("cuda architectures: ", build["cuda_architectures"] == "" ? "none" : build["cuda_architectures"].get<std::string>());
  EXPECT_EQ(env["harness_version"], GH_VERSION);
  EXPECT_EQ(build["version"], GH_VERSION);

  const HarnessRun doctor = Gpuharness("doctor --json --results-root " + run.out_dir);
  EXPECT_TRUE(doctor.exit_code == 0 || doctor.exit_code == 1) << doctor.console;
  const nlohmann::json findings = nlohmann::json::parse(doctor.console, nullptr, false);
  ASSERT_TRUE(findings.is_object()) << doctor.console;
  EXPECT_EQ(findings["build"], build);
  EXPECT_EQ(findings["failed"] == 0, doctor.exit_code == 0);
}

// A scenario named without a path is the shipped one, beside the binary (core/shipped_data.h).
TEST(CliTest, AShippedScenarioRunsByName) {
  const HarnessRun run = Gpuharness("run selftest/ring_shift_host --backend host --out {out}");
  EXPECT_EQ(run.exit_code, 0) << run.console;
  const std::string records = ReadWholeFile(run.out_dir + "/records.jsonl");
  EXPECT_THAT(records, HasSubstr("/share/gpuharness/scenarios/selftest/ring_shift_host.yaml\""));
  const HarnessRun missing = Gpuharness("run no_such_scenario --out {out}");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.console, HasSubstr("no_such_scenario"));
}

TEST(CliTest, UnknownCommandSuggests) {
  const HarnessRun run = Gpuharness("sweap x.yaml");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.console, HasSubstr("gpuharness: unknown command 'sweap'; did you mean sweep?\n"));
  const HarnessRun help = Gpuharness("help bisekt");
  EXPECT_EQ(help.exit_code, 2);
  EXPECT_THAT(help.console, HasSubstr("gpuharness: unknown command 'bisekt'; did you mean bisect?\n"));
  const HarnessRun flag = Gpuharness("--verison");
  EXPECT_EQ(flag.exit_code, 2);
  EXPECT_THAT(flag.console, HasSubstr("gpuharness: unknown flag --verison; did you mean --version?\n"));
}

TEST(CliTest, UnknownFlagOneWordingEverywhere) {
  for (const char* command : kCommands) {
    const bool lists = std::string(command) == "list" || std::string(command) == "doctor";
    const HarnessRun run = Gpuharness(std::string(command) + (lists ? " --jsno" : " x --ot y"));
    EXPECT_EQ(run.exit_code, 2) << command;
    EXPECT_THAT(run.console, HasSubstr(std::string("gpuharness ") + command +
                                       (lists ? ": unknown flag --jsno; did you mean --json?\n"
                                              : ": unknown flag --ot; did you mean --out?\n")))
        << command;
  }
}

// `cmd` with "{OUT}" as `--out=P` and as `--out P`: the same exit status and, where
// `same_console`, the same console.
void ExpectOutSpellingsAlike(const std::string& cmd, const std::string& path, bool same_console = true) {
  auto with = [&](const std::string& out) {
    std::string args = cmd;
    args.replace(args.find("{OUT}"), 5, out);
    return Gpuharness(args);
  };
  std::filesystem::remove_all(path);
  const HarnessRun joined = with("--out=" + path);
  std::filesystem::remove_all(path);
  const HarnessRun spaced = with("--out " + path);
  EXPECT_EQ(joined.exit_code, spaced.exit_code) << cmd;
  if (same_console) {
    EXPECT_EQ(joined.console, spaced.console) << cmd;
  }
  EXPECT_THAT(joined.console, ::testing::Not(HasSubstr("unknown flag"))) << cmd;
}

TEST(CliTest, OutEqualsIsOutSpace) {
  const std::string tmp = ::testing::TempDir() + "gh_cli_out";
  const std::string report_data = Src("harness/report/testdata/cli/pass");
  // report writes its files into --out.
  ExpectOutSpellingsAlike("report " + report_data + " {OUT}", tmp + "/report");
  EXPECT_TRUE(std::filesystem::exists(tmp + "/report/summary.md"));
  // sweep --dry-run prints the jobs' command lines, --out among them.
  ExpectOutSpellingsAlike("sweep " + Src("matrices/demo.yaml") + " --dry-run {OUT}", tmp + "/sweep");
  EXPECT_THAT(Gpuharness("sweep " + Src("matrices/demo.yaml") + " --dry-run --out=" + tmp + "/sweep").console,
              HasSubstr(tmp + "/sweep"));
  // bisect and minimize check --out before --good and --failing.
  const HarnessRun bisect = Gpuharness("bisect " + Src("matrices/demo.yaml") + " --out=" + tmp + "/b");
  EXPECT_EQ(bisect.exit_code, 2);
  EXPECT_THAT(bisect.console, HasSubstr("--good: missing the known good version"));
  ExpectOutSpellingsAlike("bisect " + Src("matrices/demo.yaml") + " {OUT}", tmp + "/b");
  const HarnessRun minimize = Gpuharness("minimize " + Src("matrices/demo.yaml") + " --out=" + tmp + "/m");
  EXPECT_EQ(minimize.exit_code, 2);
  EXPECT_THAT(minimize.console, HasSubstr("--failing: missing the failing cell's labels"));
  ExpectOutSpellingsAlike("minimize " + Src("matrices/demo.yaml") + " {OUT}", tmp + "/m");
  // repro: the point is looked up before the script is written; a missing one is the same error.
  ExpectOutSpellingsAlike("repro " + report_data + " no/such/point {OUT}", tmp + "/repro.sh");
  // run: the scenario runs and writes its records into --out (its console holds timings).
  ExpectOutSpellingsAlike("run " + Src("scenarios/selftest/ring_shift_host.yaml") +
                              " --filter '*bytes=4K*' --backend host {OUT}",
                          tmp + "/run", /*same_console=*/false);
  EXPECT_TRUE(std::filesystem::exists(tmp + "/run/records.jsonl"));
}

TEST(CliTest, MissingValueAndBadNumbersNameTheFlag) {
  EXPECT_THAT(Gpuharness("sweep m.yaml --out").console, HasSubstr("gpuharness sweep: --out needs a directory\n"));
  EXPECT_THAT(Gpuharness("bisect m.yaml --jobs=0").console,
              HasSubstr("gpuharness bisect: --jobs: expected an integer >= 1, got '0'\n"));
  const HarnessRun grace = Gpuharness("minimize m.yaml --kill-grace soon");
  EXPECT_EQ(grace.exit_code, 2);
  EXPECT_THAT(grace.console,
              HasSubstr("gpuharness minimize: --kill-grace: expected a duration such as 90s, 10m or 1h, got 'soon'\n"));
}

TEST(CliTest, ListJsonDescribesTheKinds) {
  const HarnessRun list = Gpuharness("list --json ring_shift");
  ASSERT_EQ(list.exit_code, 0);
  const nlohmann::json listing = nlohmann::json::parse(list.console);
  ASSERT_EQ(listing["kinds"].size(), 1u);
  const nlohmann::json& kind = listing["kinds"][0];
  EXPECT_EQ(kind["name"], "ring_shift");
  EXPECT_EQ(kind["backends"][0], "host");
  std::vector<std::string> names;
  for (const nlohmann::json& param : kind["params"]) names.push_back(param["name"]);
  EXPECT_THAT(names, ::testing::ElementsAre("bytes", "dtype", "transport", "fault", "fault_rank",
                                                 "graph_replays", "allocator"));
  EXPECT_EQ(kind["params"][0], nlohmann::json::parse(R"({"name": "bytes", "type": "bytes", "default": 1048576,
      "choices": [], "min": 4, "max": 17179869184,
      "help": "per-rank block size, rounded down to whole elements"})"));
  EXPECT_EQ(kind["params"][1]["choices"], nlohmann::json::parse(R"(["f32", "bf16", "i32", "f64"])"));
  EXPECT_EQ(kind["params"][1]["default"], "f32");
  EXPECT_EQ(kind["params"][5]["type"], "int");
  EXPECT_EQ(kind["params"][5]["default"], 0);
  EXPECT_EQ(kind["params"][5]["min"], 0);
  EXPECT_EQ(kind["params"][5]["max"], 1000);
  EXPECT_EQ(kind["params"][6]["choices"], nlohmann::json::parse(
      R"(["malloc", "arena", "cuda_malloc", "cuda_malloc_async", "nccl_mem_alloc", "vmm"])"));
  EXPECT_EQ(kind["params"][6]["default"], "cuda_malloc");
  const HarnessRun all = Gpuharness("list --json");
  ASSERT_EQ(all.exit_code, 0);
  EXPECT_GE(nlohmann::json::parse(all.console)["kinds"].size(), 5u);
}

}  // namespace
}  // namespace gh::testing
