// `gpuharness bisect MATRIX.yaml --good V --bad V --out DIR [options]`: the first version in the
// matrix's version axis where a scenario's failure appears, with trials decided by a sequential
// test, K versions probed at once, resumable from DIR.
#include <cstdio>
#include <optional>
#include <string>

#include "harness/cli/command_line.h"
#include "harness/cli/probe_command.h"
#include "harness/report/console_style.h"
#include "harness/report/failure_lines.h"
#include "harness/bisect/bisect_session.h"

namespace gh {
namespace {

constexpr char kBisectAbout[] =
    "  Finds the first version of the matrix's version axis where the hunted failure appears.\n"
    "  Both ends are checked first. Each probe runs trials until a sequential test (SPRT)\n"
    "  decides good or bad; a version whose set-up fails, or that shows another failure, is\n"
    "  skipped and a neighbour probed. Rerunning the same command resumes from DIR.\n";
constexpr char kBisectEpilog[] =
    "writes DIR/summary.md, summary.json, bisect_state.json, repro_first_bad.sh,\n"
    "repro_last_good.sh, and probes/<version>/trial<k>/ (each job's records and log).\n"
    "ends with a FAILED line per probe, point and failure its trials showed.\n"
    "exit: 0 found, 1 an end is not what it was said to be, 2 bad input, 3 infrastructure\n";

}  // namespace

int BisectCommand(int argc, char** argv) {
  BisectOptions options;
  ProbeResources resources;
  std::string find = "bug";
  CommandLine flags("bisect", "MATRIX.yaml --good V --bad V --out DIR [options]", kBisectAbout, kBisectEpilog);
  flags.String("--good", {"V", "a version"}, &options.good, "a version label known to pass")
      .String("--bad", {"V", "a version"}, &options.bad, "a later version label known to fail")
      .String("--cell", {"AXIS=LABEL,..", "labels"}, &options.cell,
              "fix the matrix's flag axes (needed when it has several cells)")
      .Int("--jobs", {"K", "an integer"}, 1, &options.jobs,
           "run K trials at once; the next starts as soon as one ends (default 1)")
      .String("--find", {"bug|fix", "bug or fix"}, &find,
              "bug (default): the first bad version; fix: the first good version after bad ones "
              "(--bad comes before --good)")
      .Int("--estimate-trials", {"N", "an integer"}, 0, &options.estimate_trials,
           "trials of the bad end that measure its failure rate first (default 8; 0: none)");
  AddProbeFlags(flags, options, resources);
  if (std::optional<int> exit_status = flags.Parse(argc, argv)) return *exit_status;
  absl::StatusOr<BisectFind> parsed_find = ParseBisectFind(find);
  if (!parsed_find.ok()) return flags.BadArgument(std::string(parsed_find.status().message()));
  options.find = *parsed_find;
  return RunProbeSession(flags, options, resources, RunBisectSession, [](const BisectSessionResult& result) {
    std::fputs(RenderFailureLines(result.failures, ConsoleStyle::Detect(stdout)).c_str(), stdout);
    std::printf("%s\n", result.headline.c_str());
  });
}

}  // namespace gh
