// `gpuharness doctor`'s judgement: is this machine ready to run `ranks` ranks with `launcher` on
// `backend`? Each check reads MachineFacts (cli/doctor_probe.h) and the build's own facts and
// gives one Finding: ok, a warning (it runs, with a caveat), or a failure (it will not run as
// asked), each but ok with the exact fix. Pure: tests feed facts from scripted fakes.
#ifndef GPUHARNESS_CLI_DOCTOR_CHECKS_H_
#define GPUHARNESS_CLI_DOCTOR_CHECKS_H_

#include <optional>
#include <string>
#include <vector>

#include "harness/cli/doctor_probe.h"
#include "harness/core/build_info.h"
#include "harness/core/enum_names.h"
#include "nlohmann/json.hpp"

namespace gh {

enum class Verdict { kOk, kWarn, kFail };
GH_ENUM_NAMES(Verdict, {Verdict::kOk, "ok"}, {Verdict::kWarn, "warn"}, {Verdict::kFail, "fail"});

struct Finding {
  std::string area;     // build, data, launcher, slurm, gpu, cuda, nccl, results, python
  Verdict verdict = Verdict::kOk;
  std::string summary;  // what was found, one line
  std::string fix;      // the exact command or change; "" for ok
};

struct DoctorRequest {
  std::optional<int> ranks;  // unset: the GPUs seen, at least 1
  std::string launcher;      // mpirun, srun, direct; "": srun inside a Slurm job, else mpirun
  std::string backend = "auto";  // auto, host, cuda
};

// The request with its defaults filled from the facts.
DoctorRequest ResolveRequest(DoctorRequest request, const MachineFacts& facts);

std::vector<Finding> CheckMachine(const MachineFacts& facts, const DoctorRequest& request,
                                  const BuildInfo& build);

// The console report: a header naming the request, one line per finding (and its
// fix, indented), and the tally.
std::string RenderFindings(const std::vector<Finding>& findings, const DoctorRequest& request);

// {"schema_version": 1, "build": {...}, "request": {"ranks", "launcher", "backend"},
//  "findings": [{"area", "verdict": "ok"|"warn"|"fail", "summary", "fix"}],
//  "failed": N, "warnings": N, "ok": N}
nlohmann::json FindingsJson(const std::vector<Finding>& findings, const DoctorRequest& request,
                            const BuildInfo& build);

// 0 without a failure, 1 with one.
int DoctorExitStatus(const std::vector<Finding>& findings);

// One GPU as nvidia-smi's CSV line gives it (kNvidiaSmiQuery's fields).
struct SmiGpu {
  int index = -1;
  std::string name, driver;
  long memory_mib = 0;
  int sm_clock = 0, sm_clock_max = 0, mem_clock = 0, mem_clock_max = 0;
  std::string mig;  // "Enabled", "Disabled", "[N/A]"
};
std::vector<SmiGpu> ParseNvidiaSmi(const std::string& csv);

}  // namespace gh

#endif  // GPUHARNESS_CLI_DOCTOR_CHECKS_H_
