// `gpuharness sweep MATRIX.yaml --out DIR [--baseline DIR] [-k FILTER] [--rerun-failed |
// --fresh] [--processes N] [--maxfail N | -x] [--collect-only] [-v] ...`: runs the matrix's cells as separate jobs, resumable, writes the reports
// into DIR and ends with the FAILED lines, the headline and the cell counts.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "harness/cli/commands.h"
#include "harness/cli/command_line.h"
#include "harness/cli/perf_flags.h"
#include "harness/core/shipped_data.h"
#include "harness/driver/clock.h"
#include "harness/driver/process_runner.h"
#include "harness/driver/resource_pool.h"
#include "harness/driver/slurm_submit.h"
#include "harness/driver/sweep_runner.h"
#include "harness/driver/sweep_progress.h"
#include "harness/driver/stop_signals.h"
#include "harness/report/console_style.h"
#include "harness/report/failure_lines.h"
#include "harness/report/run_logs.h"

namespace gh {
namespace {

constexpr char kSweepAbout[] =
    "  Runs every cell of the matrix (flag axes x versions) as its own job, packed onto the\n"
    "  GPUs (or CPU slots), and writes DIR/records.jsonl, junit.xml, summary.md, report.html.\n"
    "  Rerunning the same command resumes: done cells are kept, the others rerun.\n"
    "  It ends with a FAILED line per unmet expectation or regression, most important first.\n";
constexpr char kSweepEpilog[] =
    "exit: 0 all met, 1 an unmet expectation or a regression, 2 bad input, 3 infrastructure\n";

constexpr ValueKind kSbatchArgsValue{"ARGS", "sbatch arguments"};

// The console's end of a sweep: a FAILED line per unmet point (each failing rank's log linked
// under it), the headline, the cell counts and why it stopped early; returns the exit status.
int PrintSweepEnd(const driver::SweepOptions& options, const driver::SweepResult& result, bool verbose,
                  const ConsoleStyle& style) {
  // Counted from every record in DIR (a resumed cell's too), as the headline is.
  const RunLogs logs(options.out_dir, &result.sweep);
  std::fputs(RenderFailureLines(ComparisonFailureLines(result.comparison, &result.sweep, verbose, &logs), style).c_str(),
             stdout);
  std::printf("%s\n", result.headline.c_str());
  const std::string rerun =
      options.rerun_failed ? absl::StrCat(" (", result.cells_rerun, " for their failed points)") : "";
  std::printf("cells: %d run%s, %d resumed, %d set-up failed, %d with failures; results in %s\n", result.cells_run,
              rerun.c_str(), result.cells_resumed, result.cells_setup_failed, result.cells_failed,
              options.out_dir.c_str());
  if (result.stopped_at_max_fail) {
    std::printf("stopped after %d unmet point%s (--maxfail %d): %d cell%s not run; rerun the same command "
                "without it to run them\n",
                result.unmet_at_stop, result.unmet_at_stop == 1 ? "" : "s", options.max_fail, result.cells_not_run,
                result.cells_not_run == 1 ? "" : "s");
  }
  if (result.interrupted) {
    std::fprintf(stderr, "gpuharness sweep: interrupted; the outputs hold the finished cells. %s\n",
                 driver::kResumeHint);
    return kExitInfrastructure;
  }
  return result.exit_status;
}

}  // namespace

int SweepCommand(int argc, char** argv) {
  driver::SweepOptions options;
  std::optional<int> gpus, slots;
  std::vector<std::string> ignore_axes;
  bool verbose = false;
  bool exit_first = false;
  std::string slurm_args;
  PerfFlags perf;
  CommandLine flags("sweep", "MATRIX.yaml --out DIR [options]", kSweepAbout, kSweepEpilog);
  flags.Positional("MATRIX.yaml", &options.matrix_path, /*required=*/true)
      .String("--out", kDirValue, &options.out_dir, "the results directory (not needed with --dry-run)")
      .String("--baseline", kDirValue, &options.baseline_dir,
              "compare with an earlier results directory (regressions exit 1)")
      .Strings("--baseline-ignore", kAxisValue, &ignore_axes,
               "match cells with the baseline's without this axis, e.g. a version\n"
               "axis whose label changes from run to run (repeatable)")
      .Int("--gpus", kCountValue, 0, &gpus, "GPUs to pack cells onto (default: detected; 0 = CPU slots)")
      .Int("--slots", kCountValue, 1, &slots, "CPU slots when there is no GPU (default: nproc)")
      .Duration("--kill-grace", &options.kill_grace, "SIGTERM to SIGKILL delay for a timed-out job (default 10s)")
      .Duration("--setup-timeout", &options.setup_timeout, "limit for a version's set-up command (default 30m)")
      .Int("--setup-jobs", kCountValue, 1, &options.setup_jobs,
           "version set-ups run at once, each just before its version's first cell (default 1)")
      .String("--program", kPathValue, &options.program, "the gpuharness binary the jobs run (default: this one)")
      .Bool("--dry-run", &options.dry_run, "print the cells and their command lines; run and write nothing")
      .Bool("--collect-only", &options.collect_only,
            "print the cells and the points each would run (after --filter); run\nand write nothing")
      .Int("--maxfail", kCountValue, 1, &options.max_fail,
           "stop once N points were unmet: the running jobs are ended, no cell\n"
           "starts; the reports hold the finished cells, and rerunning resumes")
      .Bool("-x, --exitfirst", &exit_first, "stop at the first unmet point (--maxfail 1)")
      .Filter("-k, --filter", &options.filter,
              "only the points whose name matches: a glob (* and ?), or globs joined\n"
              "by and, or, not and parentheses ('*np=2 or *np=4'), for the whole\n"
              "sweep: jobs, resume and reports (a done cell resumes under the same filter)")
      .Bool("--rerun-failed", &options.rerun_failed,
            "rerun only the points of DIR's done cells whose last result was an\n"
            "unmet expectation or a regression against --baseline; keep the rest")
      .Bool("--fresh", &options.fresh, "start over: remove what an earlier sweep left in DIR first")
      .Int("--processes", kCountValue, 1, &options.processes,
           "run each cell's jobs N times, each time in new processes, process k of\n"
           "every cell before process k+1 of any; a baseline comparison then tests\n"
           "the processes' medians (default 1; a cell is done when all N ran)")
      .Duration("--heartbeat", &options.heartbeat,
                "off a terminal, a progress line at least this often (default 60s)")
      .Bool("-v, --verbose", &verbose, "also list every point that met its expectation (PASSED, ...)")
      .String("--slurm", kSbatchArgsValue, &slurm_args,
              "submit the sweep as one Slurm batch job (sbatch --wait ARGS) and wait;\n"
              "its cells run as job steps across the job's nodes; DIR must be shared");
  perf.Add(flags);
  if (std::optional<int> exit_status = flags.Parse(argc, argv)) return *exit_status;
  if (std::optional<int> exit_status = perf.Apply(flags, options.perf)) return *exit_status;
  if (exit_first) options.max_fail = 1;
  if (options.out_dir.empty() && !options.dry_run && !options.collect_only) {
    return flags.BadArgument("missing --out DIR");
  }
  if (options.program.empty()) options.program = ThisProgram();
  options.matrix_path = ResolveShippedFile(ShippedKind::kMatrix, options.matrix_path);
  if (!slurm_args.empty()) {
    return driver::SubmitSweepBatch(slurm_args, driver::WithoutSlurmFlag(argc, argv, ThisProgram()),
                                    options.out_dir, stdout);
  }
  driver::InstallStopSignalHandlers();  // before the matrix is read: its list.command stops too
  options.baseline_ignore_axes.insert(ignore_axes.begin(), ignore_axes.end());

  driver::PosixProcessRunner runner;
  driver::RealClock clock;
  driver::DriverEnv env;
  env.runner = &runner;
  env.clock = &clock;
  absl::StatusOr<driver::Resources> resources = driver::DetectResourcesWithAllocation(gpus, slots);
  if (!resources.ok()) {
    std::fprintf(stderr, "gpuharness sweep: %s\n", std::string(resources.status().message()).c_str());
    return kExitBadInput;
  }
  env.resources = *std::move(resources);
  env.base_env = driver::CurrentEnvironment();
  env.progress = stdout;
  env.style = ConsoleStyle::Detect(stdout);
  env.stop = &driver::StopFlag();

  absl::StatusOr<driver::SweepResult> result = driver::RunSweep(options, env);
  if (!result.ok()) {
    std::fprintf(stderr, "gpuharness sweep: %s%s%s\n", std::string(result.status().message()).c_str(),
                 absl::IsCancelled(result.status()) ? ". " : "",
                 absl::IsCancelled(result.status()) ? driver::kResumeHint : "");
    return absl::IsInvalidArgument(result.status()) ? kExitBadInput : kExitInfrastructure;
  }
  if (options.dry_run || options.collect_only) return kExitOk;
  return PrintSweepEnd(options, *result, verbose, env.style);
}

}  // namespace gh
