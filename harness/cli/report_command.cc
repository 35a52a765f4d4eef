// `gpuharness report DIR [--baseline DIR] [--out DIR2]`: summary.md, report.html and junit.xml
// for a results directory, compared with expectations and optionally a baseline.
#include <cstdio>
#include <string>
#include <optional>
#include <vector>

#include "harness/cli/command_line.h"
#include "harness/cli/perf_flags.h"
#include "harness/cli/commands.h"
#include "harness/core/run_list.h"
#include "harness/report/report_writer.h"

namespace gh {
namespace {

constexpr char kReportAbout[] =
    "  Reads DIR/records.jsonl (and sweep.json, environment.json, cells/*/environment.json when\n"
    "  present) and writes summary.md, report.html and junit.xml into DIR, or DIR2 with --out.\n";
constexpr char kReportEpilog[] =
    "exit: 0 all expectations met and no regression, 1 otherwise, 2 bad input,\n"
    "3 a point ended infra or a report could not be written (DIR not writable)\n";

}  // namespace

int ReportCommand(int argc, char** argv) {
  ReportOptions options;
  std::vector<std::string> ignore_axes;
  PerfFlags perf;
  CommandLine flags("report", "DIR [--baseline DIR [--baseline-ignore AXIS]...] [--out DIR2]", kReportAbout,
                    kReportEpilog);
  flags.Positional("DIR", &options.dir, /*required=*/true)
      .String("--baseline", kDirValue, &options.baseline_dir,
              "also compare with an earlier results directory: regressions, fixes,\n"
              "changed signatures, new and vanished points")
      .Strings("--baseline-ignore", kAxisValue, &ignore_axes,
               "match cells with the baseline's without this axis, e.g. a\n"
               "version axis whose label changes from run to run (repeatable)")
      .String("--out", {"DIR2", "a directory"}, &options.out_dir, "write the reports there instead of DIR");
  perf.Add(flags);
  if (std::optional<int> exit_status = flags.Parse(argc, argv)) return *exit_status;
  if (std::optional<int> exit_status = perf.Apply(flags, options.perf)) return *exit_status;
  options.baseline_ignore_axes.insert(ignore_axes.begin(), ignore_axes.end());

  absl::StatusOr<ReportResult> result = WriteReports(options);
  if (!result.ok()) {
    std::fprintf(stderr, "gpuharness report: %s\n", std::string(result.status().message()).c_str());
    return result.status().code() == absl::StatusCode::kInvalidArgument ? kExitBadInput : kExitInfrastructure;
  }
  if (result->torn_lines > 0) {
    std::fprintf(stderr, "gpuharness report: %s/records.jsonl: skipped %d partial last line(s)\n",
                 options.dir.c_str(), result->torn_lines);
  }
  std::printf("%s\n", result->headline.c_str());
  if (result->unrecorded_runs > 0) {
    // The job was cut short (README "Exit status"): its verdicts cover only what it recorded.
    std::printf("%d of %d planned runs never ran (the job ended before them; the plan is %s/%s)\n",
                result->unrecorded_runs, result->planned_runs, options.dir.c_str(),
                std::string(kPlannedRunsFile).c_str());
  }
  for (const std::string& path : result->written) std::printf("wrote %s\n", path.c_str());
  return result->exit_status;
}

}  // namespace gh
