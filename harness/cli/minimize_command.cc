// `gpuharness minimize MATRIX.yaml --failing LABELS --passing LABELS --out DIR`: delta debugging
// over the environment variables and flags two cells differ in, reported as the smallest change
// that flips the result ("with NCCL_CUMEM_ENABLE=0 every rank passes"), verified by a probe.
#include <cstdio>
#include <optional>
#include <string>

#include "harness/cli/flag_parser.h"
#include "harness/cli/probe_command.h"
#include "harness/bisect/bisect_minimize_session.h"

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

}  // namespace

int MinimizeCommand(int argc, char** argv) {
  MinimizeOptions options;
  ProbeResources resources;
  FlagParser flags("minimize", kMinimizeUsage);
  AddProbeFlags(flags, options, resources);
  AddProbeStringFlags(flags, {{"--failing", &options.failing}, {"--passing", &options.passing}});
  if (std::optional<int> exit_status = flags.Parse(argc, argv)) return *exit_status;
  return RunProbeSession(flags, options, resources, RunMinimizeSession, [&](const MinimizeSessionResult& result) {
    std::printf("%s; see %s/summary.md\n", result.headline.c_str(), options.out_dir.c_str());
  });
}

}  // namespace gh
