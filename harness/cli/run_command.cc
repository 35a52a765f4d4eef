// `gpuharness run`: checks the command line and loads every scenario before MPI starts or
// anything is written, then hands the job to the runtime.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "harness/cli/commands.h"
#include "harness/cli/run_flags.h"
#include "harness/core/file_util.h"
#include "harness/core/job_reporter.h"
#include "harness/core/scenario_loader.h"
#include "harness/core/comparison.h"
#include "harness/report/console_table.h"
#include "harness/report/console_style.h"
#include "harness/report/failure_lines.h"
#include "harness/report/junit.h"
#include "harness/runtime/job_runner.h"
#include "harness/runtime/mpi_world.h"

namespace gh {
namespace {

// What a run leaves besides its records and environment: junit.xml and, on stdout, the verdict
// of each point run several times, a FAILED line per unmet expectation (each point already had
// its live line), the tally (or, verbose, the table of every point) and where the results are.
class RunReports : public JobReporter {
 public:
  explicit RunReports(bool verbose) : verbose_(verbose) {}
  absl::Status WriteReports(const std::string& out_dir, const std::vector<Record>& records) override {
    const absl::Status junit =
        WriteFileAtomically(out_dir + "/junit.xml", RenderJUnit(records, "gpuharness"));
    const std::string failed = RenderFailureLines(
        ComparisonFailureLines(CompareResults(records, nullptr), nullptr, /*verbose=*/false),
        ConsoleStyle{});  // plain: under mpirun stdout is the launcher's pty, not the user's terminal
    // Verbose: the whole table (its trial verdicts and tally included), then the FAILED lines.
    const std::string end = verbose_ ? absl::StrCat(RenderConsoleTable(records), failed.empty() ? "" : "\n", failed)
                                     : absl::StrCat(RenderTrialVerdicts(records), failed, RenderConsoleTally(records));
    std::printf("\n%s\n", end.c_str());
    std::printf("results: %s/records.jsonl (%zu records), %s/junit.xml, %s/environment.json\n",
                out_dir.c_str(), records.size(), out_dir.c_str(), out_dir.c_str());
    std::fflush(stdout);
    return junit;
  }

 private:
  bool verbose_;
};

}  // namespace

int RunCommand(int argc, char** argv) {
  RunFlags flags;
  // Bad input is the same on every rank; one message is enough.
  auto report = [](const std::string& text) {
    if (LauncherRank() == 0) {
      std::fputs(text.c_str(), stderr);
      std::fflush(stderr);
    }
    return kExitBadInput;
  };
  auto bad_input = [&report](const std::string& message) { return report("gpuharness run: " + message + "\n"); };
  absl::StatusOr<CommandLine::Result> parsed = flags.Parse(std::vector<std::string>(argv + 1, argv + argc));
  if (!parsed.ok()) return report(flags.command_line().ErrorText(std::string(parsed.status().message())));
  if (*parsed == CommandLine::Result::kHelp) {
    if (LauncherRank() == 0) std::fputs(flags.command_line().Help().c_str(), stdout);
    return kExitOk;
  }
  const RunOptions& options = flags.options();

  std::vector<LoadedScenario> scenarios;
  std::map<std::string, SourceLoc> first_definition;  // scenario name -> where
  for (const std::string& file : options.scenario_files) {
    absl::StatusOr<std::vector<ScenarioSpec>> specs = LoadScenarioFile(file);
    if (!specs.ok()) return bad_input(std::string(specs.status().message()));
    for (ScenarioSpec& spec : *specs) {
      // Point names start with the scenario's name: two files must not reuse one.
      auto [it, inserted] = first_definition.emplace(spec.name, spec.loc);
      if (!inserted) {
        return bad_input(absl::StrCat(spec.loc.ToString(), ": name: scenario '", spec.name,
                                      "' is already defined at ", it->second.ToString()));
      }
      scenarios.push_back(LoadedScenario{file, std::move(spec)});
    }
  }
  RunReports reports(flags.verbose());
  return RunJob(options, scenarios, reports, &argc, &argv);
}

}  // namespace gh
