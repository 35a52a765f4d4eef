// `gpuharness bisect MATRIX.yaml --good V --bad V --out DIR [options]`: the first version in the
// matrix's version axis where a scenario's failure appears, with trials decided by a sequential
// test, K versions probed at once, resumable from DIR.
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <optional>
#include <string>

#include "absl/strings/numbers.h"
#include "harness/cli/commands.h"
#include "harness/driver/bisect_session.h"
#include "harness/driver/clock.h"
#include "harness/driver/process_runner.h"
#include "harness/driver/resource_pool.h"
#include "harness/driver/yaml_fields.h"

namespace gh {
namespace {

constexpr char kBisectUsage[] =
    "usage: gpuharness bisect MATRIX.yaml --good V --bad V --out DIR [options]\n"
    "  Finds the first version of the matrix's version axis where the hunted failure appears.\n"
    "  Both ends are checked first. Each probe runs trials until a sequential test (SPRT)\n"
    "  decides good or bad; a version whose set-up fails, or that shows another failure, is\n"
    "  skipped and a neighbour probed. Rerunning the same command resumes from DIR.\n"
    "options:\n"
    "  --scenario FILE       the scenario file to run (default: the matrix's scenarios)\n"
    "  --points GLOB         only the points matching GLOB\n"
    "  --cell AXIS=LABEL,..  fix the matrix's flag axes (needed when it has several cells)\n"
    "  --hunt-outcome O      fail, error, timeout or crash (default: the bad end's)\n"
    "  --hunt-signature RE   regex searched in the signature (default: the bad end's, literally)\n"
    "  --other-as-bad        count other failures as bad (default: skip them like set-up failures)\n"
    "  --jobs K              probe K versions at once (K-ary search; default 1)\n"
    "  --min-trials N        trials before any verdict (default 1)\n"
    "  --max-trials N        trial cap per probe; the SPRT is truncated there (default 20;\n"
    "                        1 for a deterministic failure)\n"
    "  --p-good P --p-bad P  failure rates the SPRT tells apart (default 0.01 and 0.3)\n"
    "  --alpha A --beta B    its error rates (default 0.01 each)\n"
    "  --gpus N --slots N    resources for the jobs (default: detected)\n"
    "  --kill-grace T        SIGTERM to SIGKILL delay for a timed-out job (default 10s)\n"
    "  --setup-timeout T     limit for a version's set-up command (default 30m)\n"
    "  --program PATH        the gpuharness binary the jobs run (default: this one)\n"
    "writes DIR/summary.md, summary.json, bisect_state.json, repro_first_bad.sh,\n"
    "repro_last_good.sh, and probes/<version>/trial<k>/ (each job's records and log).\n"
    "exit: 0 found, 1 an end is not what it was said to be, 2 bad input, 3 infrastructure\n";

int BadArgument(const std::string& message) {
  std::fprintf(stderr, "gpuharness bisect: %s\n%s", message.c_str(), kBisectUsage);
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

int BisectCommand(int argc, char** argv) {
  BisectOptions options;
  std::optional<int> gpus, slots;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    std::string v;
    auto value = [&]() {
      if (i + 1 >= argc) return false;
      v = argv[++i];
      return true;
    };
    auto int_flag = [&](int min, int* out) {
      return value() && absl::SimpleAtoi(v, out) && *out >= min;
    };
    auto double_flag = [&](double* out) { return value() && absl::SimpleAtod(v, out); };
    if (arg == "--help" || arg == "-h") {
      std::fputs(kBisectUsage, stdout);
      return kExitOk;
    } else if (arg == "--out" || arg == "--scenario" || arg == "--points" || arg == "--cell" ||
               arg == "--good" || arg == "--bad" || arg == "--program") {
      if (!value() || v.empty()) return BadArgument(arg + ": needs a value");
      std::string* target = arg == "--out"        ? &options.out_dir
                            : arg == "--scenario" ? &options.scenario_path
                            : arg == "--points"   ? &options.points
                            : arg == "--cell"     ? &options.cell
                            : arg == "--good"     ? &options.good
                            : arg == "--bad"      ? &options.bad
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
    } else if (arg == "--jobs") {
      if (!int_flag(1, &options.jobs)) return BadArgument("--jobs: expected an integer >= 1, got '" + v + "'");
    } else if (arg == "--min-trials") {
      if (!int_flag(1, &options.sprt.min_trials)) return BadArgument("--min-trials: expected an integer >= 1, got '" + v + "'");
    } else if (arg == "--max-trials") {
      if (!int_flag(1, &options.sprt.max_trials)) return BadArgument("--max-trials: expected an integer >= 1, got '" + v + "'");
    } else if (arg == "--p-good" || arg == "--p-bad" || arg == "--alpha" || arg == "--beta") {
      double* target = arg == "--p-good" ? &options.sprt.p_good
                       : arg == "--p-bad" ? &options.sprt.p_bad
                       : arg == "--alpha" ? &options.sprt.alpha
                                          : &options.sprt.beta;
      if (!double_flag(target)) return BadArgument(arg + ": expected a number, got '" + v + "'");
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
  if (absl::Status st = options.sprt.Validate(); !st.ok()) {
    return BadArgument(std::string(st.message()));
  }
  if (options.program.empty()) options.program = SelfExe();

  driver::PosixProcessRunner runner;
  driver::RealClock clock;
  BisectSessionEnv env;
  env.runner = &runner;
  env.clock = &clock;
  env.resources = driver::DetectResources(gpus, slots);
  env.base_env = driver::CurrentEnvironment();
  env.progress = stdout;
  absl::StatusOr<BisectSessionResult> result = RunBisectSession(options, env);
  if (!result.ok()) {
    std::fprintf(stderr, "gpuharness bisect: %s\n", std::string(result.status().message()).c_str());
    return absl::IsInvalidArgument(result.status()) ? kExitBadInput : kExitInfrastructure;
  }
  std::printf("%s\n", result->headline.c_str());
  return result->exit_status;
}

}  // namespace gh
