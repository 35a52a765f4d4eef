// `gpuharness bisect MATRIX.yaml --good V --bad V --out DIR [options]`: the first version in the
// matrix's version axis where a scenario's failure appears, with trials decided by a sequential
// test, K versions probed at once, resumable from DIR.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/cli/command_line.h"
#include "harness/core/perf_comparison.h"
#include "harness/core/timing_stats.h"
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
    "repro_last_good.sh, and probes/<version>/trial<k>/ (each job's records and log);\n"
    "--refine: the finer level's reports in DIR/refine/; --param: DIR/params/ (each value's scenario).\n"
    "ends with a FAILED line per probe, point and failure its trials showed.\n"
    "exit: 0 found, 1 an end is not what it was said to be, 2 bad input, 3 infrastructure\n"
    "(an end that could not run at all: its set-up failed, or its jobs on every attempt)\n";

// --hunt-metric makes each probe one trial decided by bisect/perf_probe.h, hunted as a fail
// "perf regression: ...".
std::optional<int> ApplyPerfHunt(const CommandLine& flags, const std::string& metric,
                                 const std::string& threshold, const std::string& direction,
                                 BisectOptions& options) {
  if (metric.empty()) {
    if (!threshold.empty()) return flags.BadArgument("--threshold needs --hunt-metric");
    if (!direction.empty()) return flags.BadArgument("--direction needs --hunt-metric");
    return std::nullopt;
  }
  if (options.hunt.outcome.has_value() || options.hunt.signature.has_value()) {
    return flags.BadArgument("--hunt-metric hunts a slowdown: leave out --hunt-outcome and --hunt-signature");
  }
  const std::vector<std::string>& known = SampledMetricNames();
  if (std::find(known.begin(), known.end(), metric) == known.end()) {  // refused before any trial runs
    return flags.BadArgument(absl::StrCat("--hunt-metric: '", metric,
                                          "' is no metric with samples; a perf bisect hunts one of ",
                                          absl::StrJoin(known, ", ")));
  }
  PerfHunt perf;
  perf.metric = metric;
  if (!threshold.empty()) {
    absl::StatusOr<double> fraction = ParsePercent(threshold);
    if (!fraction.ok()) return flags.BadArgument(absl::StrCat("--threshold: ", fraction.status().message()));
    perf.threshold = *fraction;
  }
  if (!direction.empty()) {
    absl::StatusOr<bool> lower_is_worse = ParseDirection(direction);
    if (!lower_is_worse.ok()) return flags.BadArgument(std::string(lower_is_worse.status().message()));
    perf.lower_is_worse = *lower_is_worse;
  }
  options.perf = perf;
  options.hunt.outcome = Outcome::kFail;
  options.hunt.signature = kPerfHuntSignature;
  options.sprt.min_trials = options.sprt.max_trials = 1;  // the perf probe decides in one
  return std::nullopt;
}

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
  std::string hunt_metric, threshold, direction;
  flags.String("--hunt-metric", {"NAME", "a metric"}, &hunt_metric,
               "a perf bisect: hunt the version where metric NAME (with samples,\n"
               "e.g. time_median_us) got worse by --threshold")
      .String("--threshold", {"PCT", "a percentage"}, &threshold,
              "with --hunt-metric: how much worse the bad end must be, with its %\n"
              "sign (default 5%)")
      .String("--direction", {"D", "lower-is-worse or higher-is-worse"}, &direction,
              "with --hunt-metric: which way is worse (default: by the metric's unit)");
  std::string param;
  bool numeric = false;
  std::optional<int> step;
  flags.Bool("--refine", &options.refine,
             "once the version axis answers, bisect its versions.refine axis between\n"
             "the answer's two ends (e.g. the commits between two tags)")
      .String("--param", {"NAME", "a parameter"}, &param,
              "a boundary search: --good and --bad are values of the scenario's\n"
              "parameter NAME, searched in one cell (--cell fixes the version too)")
      .Bool("--numeric", &numeric, "with --param: every integer between --good and --bad, not only the listed values")
      .Int("--step", {"N", "an integer"}, 1, &step, "with --numeric: the values' spacing (default 1)");
  if (std::optional<int> exit_status = flags.Parse(argc, argv)) return *exit_status;
  if (param.empty() && numeric) return flags.BadArgument("--numeric needs --param NAME");
  if (!numeric && step.has_value()) return flags.BadArgument("--step needs --numeric");
  if (!param.empty()) options.param = ParamSearch{param, options.good, options.bad, numeric, step.value_or(1)};
  absl::StatusOr<BisectFind> parsed_find = ParseBisectFind(find);
  if (!parsed_find.ok()) return flags.BadArgument(std::string(parsed_find.status().message()));
  options.find = *parsed_find;
  if (std::optional<int> exit_status = ApplyPerfHunt(flags, hunt_metric, threshold, direction, options)) {
    return *exit_status;
  }
  return RunProbeSession(flags, options, resources, RunBisectSession, [](const BisectSessionResult& result) {
    std::fputs(RenderFailureLines(result.failures, ConsoleStyle::Detect(stdout)).c_str(), stdout);
    std::printf("%s\n", result.headline.c_str());
  });
}

}  // namespace gh
