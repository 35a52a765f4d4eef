// What `gpuharness doctor` reads from the machine, gathered in one pass and kept as plain data
// for the checks (cli/doctor_checks.h). Programs are found on the PATH of `env` (not of this
// process), so a test points PATH at scripted fakes; each runs through RunBoundedCommand
// (runtime/bounded_command.h), with its stderr and exit status kept.
#ifndef GPUHARNESS_CLI_DOCTOR_PROBE_H_
#define GPUHARNESS_CLI_DOCTOR_PROBE_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace gh {

// One program's answer: not found (path ""), or what it printed (stdout and stderr) and how it
// ended: exit 0..255, or -1 for "no answer" (killed at the bound, or could not start; `output`
// then says why).
struct ToolRun {
  std::string path;
  std::string output;
  int exit_code = -1;
  bool found() const { return !path.empty(); }
  bool ok() const { return found() && exit_code == 0; }
};

// The CUDA and NCCL this process loaded (its own libcudart and libnccl), asked through their C
// entry points. 0 / "" where the build has none or nothing answered.
struct LoadedLibraries {
  int cuda_driver = 0;        // cudaDriverGetVersion: 13000; 0 = no driver
  int cuda_runtime = 0;       // cudaRuntimeGetVersion
  std::string cuda_runtime_path;
  int nccl = 0;               // ncclGetVersion: 22809
  std::string nccl_path;
  bool nvml_loads = false;    // dlopen("libnvidia-ml.so.1") and nvmlInit worked
  std::string nvml_error;
};

struct MachineFacts {
  std::map<std::string, std::string> env;
  int uid = -1;
  int cores = 0;                  // cores this process may run on, hyperthreads counted once:
                                  // Open MPI's default slots
  ToolRun mpirun;                 // mpirun --version
  ToolRun srun;                   // srun --version
  ToolRun srun_mpi_list;          // srun --mpi=list
  ToolRun nvidia_smi;             // nvidia-smi --query-gpu=<kNvidiaSmiQuery> --format=csv,noheader,nounits
  ToolRun python;                 // python3 --version
  ToolRun py_spy;                 // py-spy --version
  int ptrace_scope = -1;          // /proc/sys/kernel/yama/ptrace_scope; -1 where there is none
  LoadedLibraries libraries;
  std::string data_dir;           // ShippedDataDir()
  std::vector<std::string> data_missing;  // of scenarios/, matrices/, launchers/
  std::string results_root;
  std::string results_problem;    // "" when a file can be written there (or the directory made)
};

// The fields of nvidia-smi's answer, one CSV line per GPU in this order.
inline constexpr char kNvidiaSmiQuery[] =
    "index,name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,"
    "mig.mode.current";

struct ProbeOptions {
  std::map<std::string, std::string> env;  // the environment read, PATH included
  std::string results_root;                // checked for writing
  absl::Duration bound = absl::Seconds(20);  // per program
  // The loaded libraries' versions; unset: this process's own (dlsym).
  std::function<LoadedLibraries()> libraries;
  std::string data_dir;                    // "": ShippedDataDir()
  std::string ptrace_scope_file = "/proc/sys/kernel/yama/ptrace_scope";
};

// This process's environment, as ProbeOptions::env.
std::map<std::string, std::string> CurrentEnvironmentMap();

MachineFacts ProbeMachine(const ProbeOptions& options);

// `name` on `path_list` (a PATH value): the first executable file, or "".
std::string FindOnPath(const std::string& name, const std::string& path_list);

// The libraries this process loaded, through dlsym (what ProbeOptions::libraries defaults to).
LoadedLibraries ProbeLoadedLibraries();

}  // namespace gh

#endif  // GPUHARNESS_CLI_DOCTOR_PROBE_H_
