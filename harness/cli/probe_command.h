// What `gpuharness bisect` and `gpuharness minimize` share: their flags naming MATRIX.yaml, what
// to run and where, the hunted failure, the SPRT deciding each probe, and the jobs' resources and
// limits; and running the session once the command line is parsed.
#ifndef GPUHARNESS_CLI_PROBE_COMMAND_H_
#define GPUHARNESS_CLI_PROBE_COMMAND_H_

#include <cstdio>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/cli/commands.h"
#include "harness/cli/command_line.h"
#include "harness/core/outcome.h"
#include "harness/core/shipped_data.h"
#include "harness/bisect/bisect_session.h"
#include "harness/driver/clock.h"
#include "harness/bisect/probe.h"
#include "harness/driver/process_runner.h"
#include "harness/driver/resource_pool.h"
#include "harness/driver/stop_signals.h"

namespace gh {

// --gpus and --slots (default: detected).
struct ProbeResources {
  std::optional<int> gpus, slots;
};

// The flags bisect and minimize share, after the command's own. `Options`: BisectOptions or
// MinimizeOptions.
template <typename Options>
void AddProbeFlags(CommandLine& flags, Options& options, ProbeResources& resources) {
  flags.Positional("MATRIX.yaml", &options.matrix_path, /*required=*/true)
      .String("--out", kDirValue, &options.out_dir, "the results directory (resumed when rerun)")
      .String("--scenario", kFileValue, &options.scenario_path,
              "the scenario file to run (default: the matrix's scenarios)")
      .Filter("--points", &options.points, "only the points matching FILTER (as run -k)")
      .String("--program", kPathValue, &options.program, "the gpuharness binary the jobs run (default: this one)");
  HuntSpec* hunt = &options.hunt;
  flags.Custom("--hunt-outcome", {"O", "an outcome"}, [hunt](const std::string& v) {
    absl::StatusOr<Outcome> outcome = ParseOutcome(v);
    if (!outcome.ok() || *outcome == Outcome::kPass || *outcome == Outcome::kSkip ||
        *outcome == Outcome::kInfra) {
      return absl::InvalidArgumentError(absl::StrCat("expected fail, error, timeout or crash, got '", v, "'"));
    }
    hunt->outcome = *outcome;
    return absl::OkStatus();
  }, "fail, error, timeout or crash (default: the bad end's)");
  flags.Custom("--hunt-signature", {"RE", "a regex"}, [hunt](const std::string& v) {
    hunt->signature = v;
    return absl::OkStatus();
  }, "regex searched in the signature (default: the bad end's failure family,\nhowever a version words it)");
  flags.Bool("--other-as-bad", &hunt->other_as_bad,
             "count other failures as bad (default: skip them like set-up failures)")
      .Int("--min-trials", kCountValue, 1, &options.sprt.min_trials, "trials before any verdict (default 1)")
      .Int("--max-trials", kCountValue, 1, &options.sprt.max_trials,
           "trial cap per probe; the SPRT is truncated there (default 20)")
      .Double("--p-good", kNumberValue, &options.sprt.p_good, "failure rate of a good version (default 0.01)")
      .Double("--p-bad", kNumberValue, &options.sprt.p_bad, "failure rate of a bad version (default 0.3)")
      .Double("--alpha", {"A", "a number"}, &options.sprt.alpha, "the SPRT's false-bad rate (default 0.01)")
      .Double("--beta", {"B", "a number"}, &options.sprt.beta,
              "the SPRT's false-good rate, and the risk a deterministic bisect's\nanswer may take (default 0.01)")
      .Int("--gpus", kCountValue, 0, &resources.gpus, "GPUs for the jobs (default: detected; 0 = CPU slots)")
      .Int("--slots", kCountValue, 1, &resources.slots, "CPU slots when there is no GPU (default: nproc)")
      .Duration("--kill-grace", &options.kill_grace, "SIGTERM to SIGKILL delay for a timed-out job (default 10s)")
      .Duration("--setup-timeout", &options.setup_timeout, "limit for a version's set-up command (default 30m)");
}

// After the command line is parsed: checks the SPRT (bad input is reported as by
// flags.BadArgument), then runs `session` (RunBisectSession or RunMinimizeSession) on `options`
// with real processes and clock, this machine's resources and environment, and progress on
// stdout. A failed session is reported as "gpuharness <command>: <message>" (exit 2 for bad input,
// 3 otherwise); a finished one is passed to `report` and its exit status returned.
template <typename Options, typename Session, typename Report>
int RunProbeSession(const CommandLine& flags, Options& options, const ProbeResources& resources,
                    Session session, Report report) {
  if (absl::Status st = options.sprt.Validate(); !st.ok()) return flags.BadArgument(std::string(st.message()));
  if (options.program.empty()) options.program = ThisProgram();
  options.matrix_path = ResolveShippedFile(ShippedKind::kMatrix, options.matrix_path);
  if (!options.scenario_path.empty()) options.scenario_path = ResolveShippedFile(ShippedKind::kScenario, options.scenario_path);
  driver::InstallStopSignalHandlers();  // before the matrix is read: its list.command stops too

  driver::PosixProcessRunner runner;
  driver::RealClock clock;
  driver::DriverEnv env;
  env.runner = &runner;
  env.clock = &clock;
  // Inside a Slurm allocation (no --gpus/--slots) the probes are packed across its nodes.
  absl::StatusOr<driver::Resources> detected = driver::DetectResourcesWithAllocation(resources.gpus, resources.slots);
  if (!detected.ok()) {
    std::fprintf(stderr, "gpuharness %s: %s\n", flags.command().c_str(),
                 std::string(detected.status().message()).c_str());
    return kExitBadInput;
  }
  env.resources = *std::move(detected);
  env.base_env = driver::CurrentEnvironment();
  env.progress = stdout;
  env.stop = &driver::StopFlag();
  auto result = session(options, env);
  if (!result.ok()) {
    const bool stopped = absl::IsCancelled(result.status());
    std::fprintf(stderr, "gpuharness %s: %s%s%s\n", flags.command().c_str(),
                 std::string(result.status().message()).c_str(), stopped ? ". " : "",
                 stopped ? driver::kResumeHint : "");
    return absl::IsInvalidArgument(result.status()) ? kExitBadInput : kExitInfrastructure;
  }
  report(*result);
  return result->exit_status;
}

}  // namespace gh

#endif  // GPUHARNESS_CLI_PROBE_COMMAND_H_
