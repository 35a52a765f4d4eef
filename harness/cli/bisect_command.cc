// `gpuharness bisect MATRIX.yaml --good V --bad V --out DIR [options]`: the first version in the
// matrix's version axis where a scenario's failure appears, with trials decided by a sequential
// test, K versions probed at once, resumable from DIR.
#include <cstdio>
#include <optional>
#include <string>

#include "harness/cli/flag_parser.h"
#include "harness/cli/probe_command.h"
#include "harness/bisect/bisect_session.h"

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

}  // namespace

int BisectCommand(int argc, char** argv) {
  BisectOptions options;
  ProbeResources resources;
  FlagParser flags("bisect", kBisectUsage);
  AddProbeFlags(flags, options, resources);
  AddProbeStringFlags(flags, {{"--cell", &options.cell}, {"--good", &options.good}, {"--bad", &options.bad}});
  AddProbeCountFlag(flags, "--jobs", &options.jobs);
  if (std::optional<int> exit_status = flags.Parse(argc, argv)) return *exit_status;
  return RunProbeSession(flags, options, resources, RunBisectSession, [](const BisectSessionResult& result) {
    std::printf("%s\n", result.headline.c_str());
  });
}

}  // namespace gh
