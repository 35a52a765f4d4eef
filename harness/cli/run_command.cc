// `gpuharness run`: checks the command line and loads every scenario before MPI starts or
// anything is written, then hands the job to the runtime.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "harness/cli/commands.h"
#include "harness/core/file_util.h"
#include "harness/core/job_reporter.h"
#include "harness/core/scenario_loader.h"
#include "harness/report/console_table.h"
#include "harness/report/junit.h"
#include "harness/runtime/job_runner.h"
#include "harness/runtime/mpi_world.h"
#include "harness/runtime/run_options.h"

namespace gh {
namespace {

// Bad input is the same on every rank; one message is enough.
int BadInput(const std::string& message) {
  if (LauncherRank() == 0) {
    std::fprintf(stderr, "gpuharness run: %s\n", message.c_str());
    std::fflush(stderr);
  }
  return kExitBadInput;
}

// What a run leaves besides its records and environment: junit.xml and, on stdout, the
// console table and where the results are.
class RunReports : public JobReporter {
 public:
  absl::Status WriteReports(const std::string& out_dir, const std::vector<Record>& records) override {
    const absl::Status junit =
        WriteFileAtomically(out_dir + "/junit.xml", RenderJUnit(records, "gpuharness"));
    std::printf("\n%s\n", RenderConsoleTable(records).c_str());
    std::printf("results: %s/records.jsonl (%zu records), %s/junit.xml, %s/environment.json\n",
                out_dir.c_str(), records.size(), out_dir.c_str(), out_dir.c_str());
    std::fflush(stdout);
    return junit;
  }
};

}  // namespace

int RunCommand(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  absl::StatusOr<RunOptions> options = ParseRunOptions(args);
  if (!options.ok()) return BadInput(std::string(options.status().message()));
  if (options->help) {
    if (LauncherRank() == 0) std::fputs(RunUsage(), stdout);
    return kExitOk;
  }

  std::vector<LoadedScenario> scenarios;
  std::map<std::string, SourceLoc> first_definition;  // scenario name -> where
  for (const std::string& file : options->scenario_files) {
    absl::StatusOr<std::vector<ScenarioSpec>> specs = LoadScenarioFile(file);
    if (!specs.ok()) return BadInput(std::string(specs.status().message()));
    for (ScenarioSpec& spec : *specs) {
      // Point names start with the scenario's name: two files must not reuse one.
      auto [it, inserted] = first_definition.emplace(spec.name, spec.loc);
      if (!inserted) {
        return BadInput(absl::StrCat(spec.loc.ToString(), ": name: scenario '", spec.name,
                                     "' is already defined at ", it->second.ToString()));
      }
      scenarios.push_back(LoadedScenario{file, std::move(spec)});
    }
  }
  RunReports reports;
  return RunJob(*options, scenarios, reports, &argc, &argv);
}

}  // namespace gh
