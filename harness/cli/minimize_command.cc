// `gpuharness minimize MATRIX.yaml --failing LABELS --passing LABELS --out DIR`: delta debugging
// over the environment variables and flags two cells differ in, reported as the smallest change
// that flips the result ("with NCCL_CUMEM_ENABLE=0 every rank passes"), verified by a probe.
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <optional>
#include <string>

#include "absl/strings/numbers.h"
#include "harness/cli/commands.h"
#include "harness/driver/bisect_minimize_session.h"
#include "harness/driver/clock.h"
#include "harness/driver/process_runner.h"
#include "harness/driver/resource_pool.h"
#include "harness/driver/yaml_fields.h"

namespace gh {
namespace {

constexpr char kMinimizeUsage[] =
    "usage: gpuharness minimize MATRIX.yaml --failing AXIS=LABEL,.. --passing AXIS=LABEL,.. --out DIR\n"
    "  Finds the smallest subset of the environment variables and flags (XLA_FLAGS-style flags one\n"
    "  by one) that the two cells differ in which, applied to the passing cell, makes it fail\n"
    "  (ddmin); then checks the workaround: the failing cell with that change reverted.\n"
    "options:\n"
    "  --scenario FILE --points GLOB   what to run (default: the matrix's scenarios)\n"
    "  --hunt-outcome O --hunt-signature RE --other-as-bad\n"
    "                                  the failure (default: the failing cell's), as for bisect\n"
    "  --min-trials N --max-trials N --p-good P --p-bad P --alpha A --beta B\n"
    "                                  the SPRT deciding each probe, as for bisect\n"
    "  --gpus N --slots N --kill-grace T --setup-timeout T --program PATH\n"
    "writes DIR/summary.md, summary.json, repro.sh and probes/<configuration>/trial<k>/.\n"
    "exit: 0 minimal change found and verified, 1 otherwise, 2 bad input, 3 infrastructure\n";

int BadArgument(const std::string& message) {
  std::fprintf(stderr, "gpuharness minimize: %s\n%s", message.c_str(), kMinimizeUsage);
  return kExitBadInput;
}

std::string SelfExe() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "gpuharness";
  buf[n] = '\0';
  return buf;
}

}  // namespace

int MinimizeCommand(int argc, char** argv) {
  MinimizeOptions options;
  std::optional<int> gpus, slots;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string v;
    auto value = [&]() {
      if (i + 1 >= argc) return false;
      v = argv[++i];
      return true;
    };
    auto int_flag = [&](int min, int* out) { return value() && absl::SimpleAtoi(v, out) && *out >= min; };
    if (arg == "--help" || arg == "-h") {
      std::fputs(kMinimizeUsage, stdout);
      return kExitOk;
    } else if (arg == "--out" || arg == "--scenario" || arg == "--points" || arg == "--failing" ||
               arg == "--passing" || arg == "--program") {
      if (!value() || v.empty()) return BadArgument(arg + ": needs a value");
      std::string* target = arg == "--out"        ? &options.out_dir
                            : arg == "--scenario" ? &options.scenario_path
                            : arg == "--points"   ? &options.points
                            : arg == "--failing"  ? &options.failing
                            : arg == "--passing"  ? &options.passing
                                                  : &options.program;
      *target = v;
    } else if (arg == "--hunt-outcome") {
      if (!value()) return BadArgument("--hunt-outcome: needs an outcome");
      absl::StatusOr<Outcome> outcome = ParseOutcome(v);
      if (!outcome.ok() || *outcome == Outcome::kPass || *outcome == Outcome::kSkip) {
        return BadArgument("--hunt-outcome: expected fail, error, timeout or crash, got '" + v + "'");
      }
      options.hunt.outcome = *outcome;
    } else if (arg == "--hunt-signature") {
      if (!value()) return BadArgument("--hunt-signature: needs a regex");
      options.hunt.signature = v;
    } else if (arg == "--other-as-bad") {
      options.hunt.other_as_bad = true;
    } else if (arg == "--min-trials" || arg == "--max-trials") {
      int* target = arg == "--min-trials" ? &options.sprt.min_trials : &options.sprt.max_trials;
      if (!int_flag(1, target)) return BadArgument(arg + ": expected an integer >= 1, got '" + v + "'");
    } else if (arg == "--p-good" || arg == "--p-bad" || arg == "--alpha" || arg == "--beta") {
      double* target = arg == "--p-good" ? &options.sprt.p_good
                       : arg == "--p-bad" ? &options.sprt.p_bad
                       : arg == "--alpha" ? &options.sprt.alpha
                                          : &options.sprt.beta;
      if (!value() || !absl::SimpleAtod(v, target)) return BadArgument(arg + ": expected a number, got '" + v + "'");
    } else if (arg == "--gpus" || arg == "--slots") {
      int n = 0;
      if (!int_flag(arg == "--gpus" ? 0 : 1, &n)) {
        return BadArgument(arg + ": needs a count (--gpus >= 0, --slots >= 1), got '" + v + "'");
      }
      (arg == "--gpus" ? gpus : slots) = n;
    } else if (arg == "--kill-grace" || arg == "--setup-timeout") {
      if (!value()) return BadArgument(arg + ": needs a duration");
      absl::StatusOr<absl::Duration> d = driver::ParseDurationText(v);
      if (!d.ok()) return BadArgument(arg + ": " + std::string(d.status().message()));
      (arg == "--kill-grace" ? options.kill_grace : options.setup_timeout) = *d;
    } else if (!arg.empty() && arg[0] != '-' && options.matrix_path.empty()) {
      options.matrix_path = arg;
    } else {
      return BadArgument("unexpected argument '" + arg + "'");
    }
  }
  if (options.matrix_path.empty()) return BadArgument("missing MATRIX.yaml");
  if (absl::Status st = options.sprt.Validate(); !st.ok()) return BadArgument(std::string(st.message()));
  if (options.program.empty()) options.program = SelfExe();

  driver::PosixProcessRunner runner;
  driver::RealClock clock;
  BisectSessionEnv env;
  env.runner = &runner;
  env.clock = &clock;
  env.resources = driver::DetectResources(gpus, slots);
  env.base_env = driver::CurrentEnvironment();
  env.progress = stdout;
  absl::StatusOr<MinimizeSessionResult> result = RunMinimizeSession(options, env);
  if (!result.ok()) {
    std::fprintf(stderr, "gpuharness minimize: %s\n", std::string(result.status().message()).c_str());
    return absl::IsInvalidArgument(result.status()) ? kExitBadInput : kExitInfrastructure;
  }
  std::printf("%s; see %s/summary.md\n", result->headline.c_str(), options.out_dir.c_str());
  return result->exit_status;
}

}  // namespace gh
