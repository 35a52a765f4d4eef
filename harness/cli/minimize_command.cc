// `gpuharness minimize MATRIX.yaml --failing LABELS --passing LABELS --out DIR`: delta debugging
// over the environment variables and flags two cells differ in, reported as the smallest change
// that flips the result ("with NCCL_CUMEM_ENABLE=0 every rank passes"), verified by a probe.
#include <cstdio>
#include <optional>
#include <string>

#include "harness/cli/command_line.h"
#include "harness/cli/probe_command.h"
#include "harness/report/console_style.h"
#include "harness/report/failure_lines.h"
#include "harness/bisect/bisect_minimize_session.h"

namespace gh {
namespace {

constexpr char kMinimizeAbout[] =
    "  Finds the smallest subset of the environment variables and flags (XLA_FLAGS-style flags one\n"
    "  by one) that the two cells differ in which, applied to the passing cell, makes it fail\n"
    "  (ddmin); then checks the workaround: the failing cell with that change reverted.\n";
constexpr char kMinimizeEpilog[] =
    "writes DIR/summary.md, summary.json, repro.sh and probes/<configuration>/trial<k>/.\n"
    "ends with a FAILED line per probe, point and failure its trials showed.\n"
    "exit: 0 minimal change found and verified, 1 otherwise, 2 bad input, 3 infrastructure\n";

}  // namespace

int MinimizeCommand(int argc, char** argv) {
  MinimizeOptions options;
  ProbeResources resources;
  CommandLine flags("minimize", "MATRIX.yaml --failing AXIS=LABEL,.. --passing AXIS=LABEL,.. --out DIR",
                    kMinimizeAbout, kMinimizeEpilog);
  flags.String("--failing", {"AXIS=LABEL,..", "labels"}, &options.failing, "the cell that fails")
      .String("--passing", {"AXIS=LABEL,..", "labels"}, &options.passing, "the cell that passes");
  AddProbeFlags(flags, options, resources);
  if (std::optional<int> exit_status = flags.Parse(argc, argv)) return *exit_status;
  return RunProbeSession(flags, options, resources, RunMinimizeSession, [&](const MinimizeSessionResult& result) {
    std::fputs(RenderFailureLines(result.failures, ConsoleStyle::Detect(stdout)).c_str(), stdout);
    std::printf("%s; see %s/summary.md\n", result.headline.c_str(), options.out_dir.c_str());
  });
}

}  // namespace gh
