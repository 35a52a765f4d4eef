// `gpuharness doctor [--ranks N] [--launcher L] [--backend B] [--results-root DIR] [--json]`:
// is this machine ready? Probes it once (cli/doctor_probe.h), judges (cli/doctor_checks.h),
// prints every finding with its fix; exit 0 when nothing fails, 1 when something does.
#include <cstdio>
#include <optional>
#include <string>

#include "harness/cli/command_line.h"
#include "harness/cli/commands.h"
#include "harness/cli/doctor_checks.h"
#include "harness/cli/doctor_probe.h"
#include "harness/core/build_info.h"

namespace gh {
namespace {

constexpr char kDoctorAbout[] =
    "  Checks what a run here needs: the launcher (mpirun or srun found, the MPI it is, running\n"
    "  as root, slots for the ranks), the GPUs (driver, count, model, clocks, MIG), the NCCL that\n"
    "  loads against the one compiled in, the CUDA driver against the runtime, Slurm and PMIx, a\n"
    "  writable results root, Python and py-spy. Each finding that is not ok comes with its fix.\n";
constexpr char kDoctorEpilog[] = "exit: 0 nothing failed (warnings allowed), 1 something failed, 2 bad input\n";

}  // namespace

int DoctorCommand(int argc, char** argv) {
  DoctorRequest request;
  std::optional<int> ranks;
  std::string launcher = "auto";
  std::string results_root = "results";
  bool json = false;
  CommandLine flags("doctor", "[options]", kDoctorAbout, kDoctorEpilog);
  flags.Int("--ranks", kCountValue, 1, &ranks, "the ranks a job here will run (default: the GPUs seen, at least 1)")
      .Choice("--launcher", {"auto", "mpirun", "srun", "direct"}, &launcher,
              "the launcher to check (default auto: srun inside a Slurm job, else mpirun)")
      .Choice("--backend", {"auto", "host", "cuda"}, &request.backend,
              "the backend to check (cuda: a missing GPU is a failure, not a warning)")
      .String("--results-root", kDirValue, &results_root, "where results will be written (default: results)")
      .Bool("--json", &json, "print the findings as JSON");
  if (std::optional<int> exit_status = flags.Parse(argc, argv)) return *exit_status;
  request.ranks = ranks;
  if (launcher != "auto") request.launcher = launcher;

  ProbeOptions probe;
  probe.env = CurrentEnvironmentMap();
  probe.results_root = results_root;
  const MachineFacts facts = ProbeMachine(probe);
  request = ResolveRequest(request, facts);
  const std::vector<Finding> findings = CheckMachine(facts, request, ThisBuild());
  if (json) {
    std::printf("%s\n", FindingsJson(findings, request, ThisBuild()).dump(2).c_str());
  } else {
    std::fputs(RenderFindings(findings, request).c_str(), stdout);
  }
  return DoctorExitStatus(findings);
}

}  // namespace gh
