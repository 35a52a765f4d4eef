// `gpuharness report DIR [--baseline DIR | --no-baseline] [--out DIR2] [-v]`: summary.md,
// report.html and junit.xml for a results directory, compared with expectations and with the
// baseline given, else with the one DIR/comparison.json recorded (the sweep's).
#include <cstdio>
#include <string>
#include <optional>
#include <vector>

#include "harness/cli/command_line.h"
#include "harness/cli/perf_flags.h"
#include "harness/cli/commands.h"
#include "harness/core/run_list.h"
#include "harness/report/console_style.h"
#include "harness/report/failure_lines.h"
#include "harness/report/report_writer.h"
#include "harness/report/run_logs.h"

namespace gh {
namespace {

constexpr char kReportAbout[] =
    "  Reads DIR/records.jsonl (and sweep.json, environment.json, cells/*/environment.json when\n"
    "  present) and writes summary.md, report.html and junit.xml into DIR, or DIR2 with --out.\n"
    "  Without --baseline it compares as DIR/comparison.json recorded (a sweep records its\n"
    "  --baseline there), so it writes what the sweep wrote, and says so when that baseline\n"
    "  is gone or holds other records. It ends with a FAILED line per unmet expectation or\n"
    "  regression, each with its failing ranks' last lines and logs.\n";
constexpr char kReportEpilog[] =
    "exit: 0 all expectations met and no regression, 1 otherwise, 2 bad input,\n"
    "3 a point ended infra or a report could not be written (DIR not writable)\n";

}  // namespace

int ReportCommand(int argc, char** argv) {
  ReportOptions options;
  std::vector<std::string> ignore_axes;
  PerfFlags perf;
  bool verbose = false;
  CommandLine flags("report", "DIR [--baseline DIR [--baseline-ignore AXIS]... | --no-baseline] [--out DIR2] [-v]",
                    kReportAbout, kReportEpilog);
  flags.Positional("DIR", &options.dir, /*required=*/true)
      .String("--baseline", kDirValue, &options.baseline_dir,
              "compare with this earlier results directory (default: the one\n"
              "DIR/comparison.json recorded): regressions, fixes, changed\n"
              "signatures, new and vanished points")
      .Strings("--baseline-ignore", kAxisValue, &ignore_axes,
               "match cells with the baseline's without this axis, e.g. a\n"
               "version axis whose label changes from run to run (repeatable)")
      .Bool("--no-baseline", &options.no_baseline,
            "compare with the expectations only, whatever DIR/comparison.json recorded")
      .String("--out", {"DIR2", "a directory"}, &options.out_dir, "write the reports there instead of DIR")
      .Bool("-v, --verbose", &verbose, "more of each failing rank's last lines; PASSED, SKIPPED, XFAIL lines");
  perf.Add(flags);
  if (std::optional<int> exit_status = flags.Parse(argc, argv)) return *exit_status;
  if (std::optional<int> exit_status = perf.Apply(flags, options.perf)) return *exit_status;
  if (options.no_baseline && !options.baseline_dir.empty()) {
    return flags.BadArgument("--no-baseline and --baseline: give one");
  }
  options.baseline_ignore_axes.insert(ignore_axes.begin(), ignore_axes.end());
  options.perf_given = !perf.threshold.empty() || perf.warn_only;

  absl::StatusOr<ReportResult> result = WriteReports(options);
  if (!result.ok()) {
    std::fprintf(stderr, "gpuharness report: %s\n", std::string(result.status().message()).c_str());
    return result.status().code() == absl::StatusCode::kInvalidArgument ? kExitBadInput : kExitInfrastructure;
  }
  if (result->torn_lines > 0) {
    std::fprintf(stderr, "gpuharness report: %s/records.jsonl: skipped %d partial last line(s)\n",
                 options.dir.c_str(), result->torn_lines);
  }
  if (!result->baseline_problem.empty()) {
    // The sweep's verdicts against its baseline cannot be written again: say so, loudly.
    std::fprintf(stderr,
                 "gpuharness report: the baseline in %s/comparison.json: %s; these reports compare with the "
                 "expectations only (--baseline DIR compares again)\n",
                 options.dir.c_str(), result->baseline_problem.c_str());
  }
  const RunLogs logs(options.dir, result->sweep ? &*result->sweep : nullptr);
  std::fputs(RenderFailureLines(ComparisonFailureLines(result->comparison, result->sweep ? &*result->sweep : nullptr,
                                                       verbose, &logs),
                                ConsoleStyle::Detect(stdout))
                 .c_str(),
             stdout);
  std::printf("%s\n", result->headline.c_str());
  if (!result->facts.Line().empty()) std::printf("%s\n", result->facts.Line().c_str());
  if (!result->baseline.empty() && result->baseline_problem.empty()) {
    std::printf("compared with %s%s\n", result->baseline.c_str(),
                result->baseline_recorded ? " (as recorded in comparison.json)" : "");
  }
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
