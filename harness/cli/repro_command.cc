// `gpuharness repro DIR POINT [--out script.sh | --bundle OUTDIR]`: a standalone shell script that
// reproduces one recorded point without the driver, from a sweep's, bisect's or minimize's
// results directory; with --bundle, a directory that carries it to another machine.
#include <sys/stat.h>

#include <cstdio>
#include <optional>
#include <string>

#include "absl/strings/str_join.h"
#include "harness/cli/commands.h"
#include "harness/cli/command_line.h"
#include "harness/core/file_util.h"
#include "harness/bisect/repro_bundle.h"
#include "harness/bisect/repro_finder.h"

namespace gh {
namespace {

constexpr char kReproAbout[] =
    "  Writes a shell script that reruns POINT as recorded in DIR (a sweep, bisect or minimize\n"
    "  results directory): the exact launcher command, environment and version set-up, as a\n"
    "  failing arm and, where a passing configuration is known, a workaround arm.\n"
    "  --bundle OUTDIR writes a directory that reproduces POINT with neither DIR nor the scenario's\n"
    "  checkout at hand: OUTDIR/run.sh, the scenario file, the files its command names, and the\n"
    "  variables in force at the recorded run (XLA_*, JAX_*, NCCL_*, CUDA_*, PYTHONPATH, the\n"
    "  version's activation), every path relative to OUTDIR; run.sh finds gpuharness on PATH\n"
    "  or in $GPUHARNESS.\n";
constexpr char kReproEpilog[] =
    "exit: 0 written, 2 bad input (no such DIR or POINT, both --out and --bundle, OUTDIR not\n"
    "  empty), 3 the script or bundle could not be written\n";

}  // namespace

int ReproCommand(int argc, char** argv) {
  std::string dir, point, out, bundle;
  CommandLine flags("repro", "DIR POINT [--out SCRIPT | --bundle OUTDIR]", kReproAbout, kReproEpilog);
  flags.Positional("DIR", &dir, /*required=*/true)
      .Positional("POINT", &point, /*required=*/true)
      .String("--out", {"SCRIPT", "a file name"}, &out, "write the script there (default: stdout)")
      .String("--bundle", {"OUTDIR", "a directory"}, &bundle,
              "write a self-contained bundle there (OUTDIR/run.sh and what it runs)");
  if (std::optional<int> exit_status = flags.Parse(argc, argv)) return *exit_status;
  if (!out.empty() && !bundle.empty()) {
    std::fprintf(stderr, "gpuharness repro: --out and --bundle: give one (the bundle's script is OUTDIR/run.sh)\n");
    return kExitBadInput;
  }
  absl::StatusOr<ReproArms> arms = FindReproArms(dir, point);
  if (!arms.ok()) {
    std::fprintf(stderr, "gpuharness repro: %s\n", std::string(arms.status().message()).c_str());
    return absl::IsInvalidArgument(arms.status()) ? kExitBadInput : kExitInfrastructure;
  }
  if (!arms->other_cells.empty()) {
    // On stderr: stdout may be the script.
    std::fprintf(stderr, "gpuharness repro: %s is recorded in %zu cells; this script reproduces %s (%s); the others: %s\n",
                 point.c_str(), arms->other_cells.size() + 1, arms->failing.title.c_str(),
                 arms->failing.observed.c_str(), absl::StrJoin(arms->other_cells, ", ").c_str());
  }
  if (!bundle.empty()) {
    absl::StatusOr<std::vector<std::string>> contents = WriteReproBundle(dir, point, *arms, bundle);
    if (!contents.ok()) {
      std::fprintf(stderr, "gpuharness repro: %s\n", std::string(contents.status().message()).c_str());
      return absl::IsInvalidArgument(contents.status()) ? kExitBadInput : kExitInfrastructure;
    }
    std::fprintf(stderr, "wrote %s: %s; run it with: %s/run.sh\n", bundle.c_str(), absl::StrJoin(*contents, ", ").c_str(),
                 bundle.c_str());
    return kExitOk;
  }
  const std::string script = RenderReproScript(point, arms->source, arms->failing, arms->workaround);
  if (out.empty()) {
    std::fputs(script.c_str(), stdout);
    return kExitOk;
  }
  if (absl::Status st = WriteFileAtomically(out, script); !st.ok()) {
    std::fprintf(stderr, "gpuharness repro: %s\n", std::string(st.message()).c_str());
    return kExitInfrastructure;
  }
  ::chmod(out.c_str(), 0755);
  std::fprintf(stderr, "wrote %s: failing arm %s%s\n", out.c_str(), arms->failing.title.c_str(),
               arms->workaround ? (", workaround arm " + arms->workaround->title).c_str() : "");
  return kExitOk;
}

}  // namespace gh
