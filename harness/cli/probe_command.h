// What `gpuharness bisect` and `gpuharness minimize` share: their flags naming MATRIX.yaml, what
// to run and where, the hunted failure, the SPRT deciding each probe, and the jobs' resources and
// limits; and running the session once the command line is parsed.
#ifndef GPUHARNESS_CLI_PROBE_COMMAND_H_
#define GPUHARNESS_CLI_PROBE_COMMAND_H_

#include <cstdio>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/cli/commands.h"
#include "harness/cli/flag_parser.h"
#include "harness/core/outcome.h"
#include "harness/bisect/bisect_session.h"
#include "harness/driver/clock.h"
#include "harness/bisect/probe.h"
#include "harness/driver/process_runner.h"
#include "harness/driver/resource_pool.h"

namespace gh {

// A flag whose value must not be empty: "--out: needs a value".
inline void AddProbeStringFlags(FlagParser& flags,
                                std::initializer_list<std::pair<const char*, std::string*>> targets) {
  for (const auto& [name, target] : targets) flags.String(name, target, "$0: needs a value", /*reject_empty=*/true);
}

// A count of at least one: "--jobs: expected an integer >= 1, got '0'".
inline void AddProbeCountFlag(FlagParser& flags, const char* name, int* target) {
  flags.Int(name, target, 1, "$0: expected an integer >= 1, got '$1'");
}

// --gpus and --slots (default: detected).
struct ProbeResources {
  std::optional<int> gpus, slots;
};

// `Options`: BisectOptions or MinimizeOptions.
template <typename Options>
void AddProbeFlags(FlagParser& flags, Options& options, ProbeResources& resources) {
  flags.Positional(&options.matrix_path);
  AddProbeStringFlags(flags, {{"--out", &options.out_dir},
                              {"--scenario", &options.scenario_path},
                              {"--points", &options.points},
                              {"--program", &options.program}});
  HuntSpec* hunt = &options.hunt;
  flags.Custom("--hunt-outcome", "$0: needs an outcome", [hunt](const std::string& v) {
    absl::StatusOr<Outcome> outcome = ParseOutcome(v);
    if (!outcome.ok() || *outcome == Outcome::kPass || *outcome == Outcome::kSkip) {
      return absl::InvalidArgumentError(absl::StrCat("expected fail, error, timeout or crash, got '", v, "'"));
    }
    hunt->outcome = *outcome;
    return absl::OkStatus();
  });
  flags.Custom("--hunt-signature", "$0: needs a regex", [hunt](const std::string& v) {
    hunt->signature = v;
    return absl::OkStatus();
  });
  flags.Bool("--other-as-bad", &hunt->other_as_bad);
  AddProbeCountFlag(flags, "--min-trials", &options.sprt.min_trials);
  AddProbeCountFlag(flags, "--max-trials", &options.sprt.max_trials);
  for (const auto& [name, target] : std::initializer_list<std::pair<const char*, double*>>{
           {"--p-good", &options.sprt.p_good},
           {"--p-bad", &options.sprt.p_bad},
           {"--alpha", &options.sprt.alpha},
           {"--beta", &options.sprt.beta}}) {
    flags.Double(name, target, "$0: expected a number, got '$1'");
  }
  flags.Int("--gpus", &resources.gpus, 0, "$0: needs a count (--gpus >= 0, --slots >= 1), got '$1'");
  flags.Int("--slots", &resources.slots, 1, "$0: needs a count (--gpus >= 0, --slots >= 1), got '$1'");
  flags.Duration("--kill-grace", &options.kill_grace, "$0: needs a duration");
  flags.Duration("--setup-timeout", &options.setup_timeout, "$0: needs a duration");
}

// After the command line is parsed: checks MATRIX.yaml and the SPRT (bad input is reported as by
// flags.BadArgument), then runs `session` (RunBisectSession or RunMinimizeSession) on `options`
// with real processes and clock, this machine's resources and environment, and progress on
// stdout. A failed session is reported as "gpuharness <command>: <message>" (exit 2 for bad input,
// 3 otherwise); a finished one is passed to `report` and its exit status returned.
template <typename Options, typename Session, typename Report>
int RunProbeSession(const FlagParser& flags, Options& options, const ProbeResources& resources,
                    Session session, Report report) {
  if (options.matrix_path.empty()) return flags.BadArgument("missing MATRIX.yaml");
  if (absl::Status st = options.sprt.Validate(); !st.ok()) return flags.BadArgument(std::string(st.message()));
  if (options.program.empty()) options.program = ThisProgram();

  driver::PosixProcessRunner runner;
  driver::RealClock clock;
  BisectSessionEnv env;
  env.runner = &runner;
  env.clock = &clock;
  env.resources = driver::DetectResources(resources.gpus, resources.slots);
  env.base_env = driver::CurrentEnvironment();
  env.progress = stdout;
  auto result = session(options, env);
  if (!result.ok()) {
    std::fprintf(stderr, "gpuharness %s: %s\n", flags.command().c_str(), std::string(result.status().message()).c_str());
    return absl::IsInvalidArgument(result.status()) ? kExitBadInput : kExitInfrastructure;
  }
  report(*result);
  return result->exit_status;
}

}  // namespace gh

#endif  // GPUHARNESS_CLI_PROBE_COMMAND_H_
