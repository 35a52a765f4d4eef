#include "harness/cli/doctor_checks.h"

#include <algorithm>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace gh {
namespace {

constexpr char kRootFix[] = "export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1";

std::string Env(const MachineFacts& facts, const std::string& name) {
  auto it = facts.env.find(name);
  return it == facts.env.end() ? "" : it->second;
}

std::string FirstLine(const std::string& text) {
  return std::string(absl::StripAsciiWhitespace(text.substr(0, text.find('\n'))));
}

std::string LastLine(const std::string& text) {
  const std::string trimmed(absl::StripTrailingAsciiWhitespace(text));
  const size_t newline = trimmed.rfind('\n');
  return std::string(absl::StripAsciiWhitespace(newline == std::string::npos ? trimmed : trimmed.substr(newline + 1)));
}

// "13000" -> "13.0"; NCCL's 22809 -> "2.28.9" (and the old 2604 -> "2.6.4").
std::string CudaVersionText(int v) { return absl::StrCat(v / 1000, ".", (v % 1000) / 10); }
std::string NcclVersionText(int v) {
  if (v >= 10000) return absl::StrCat(v / 10000, ".", (v % 10000) / 100, ".", v % 100);
  return absl::StrCat(v / 1000, ".", (v % 1000) / 100, ".", v % 100);
}
// "2.28.9" -> "2.28".
std::string MajorMinor(const std::string& version) {
  std::vector<std::string> parts = absl::StrSplit(version, '.');
  return parts.size() >= 2 ? absl::StrCat(parts[0], ".", parts[1]) : version;
}
std::string Major(const std::string& version) { return version.substr(0, version.find('.')); }

// The flavour and version mpirun --version names: {"Open MPI", "4.1.4"}; {"", ""} unknown.
std::pair<std::string, std::string> MpirunFlavour(const std::string& output) {
  if (const size_t at = output.find("(Open MPI) "); at != std::string::npos) {
    return {"Open MPI", FirstLine(output.substr(at + 11))};
  }
  std::string flavour = absl::StrContains(output, "Intel(R) MPI") ? "Intel MPI"
                        : absl::StrContains(output, "MVAPICH")    ? "MVAPICH"
                        : absl::StrContains(output, "HYDRA")      ? "MPICH"
                                                                   : "";
  std::string version;
  if (const size_t at = output.find("Version"); !flavour.empty() && at != std::string::npos) {
    absl::string_view rest = absl::string_view(output).substr(at + 7);
    rest = absl::StripLeadingAsciiWhitespace(absl::StripPrefix(absl::StripLeadingAsciiWhitespace(rest), ":"));
    version = FirstLine(std::string(rest.substr(0, rest.find_first_of(" \n,"))));
  }
  return {flavour, version};
}

// The build's MPI version: "Open MPI 4.1.4 (MPI 3.1)" -> "4.1.4".
std::string BuildMpiVersion(const BuildInfo& build) {
  const std::string flavour = MpiFlavour(build.mpi);
  if (flavour.empty()) return "";
  std::string rest = build.mpi.substr(flavour.size());
  rest = std::string(absl::StripLeadingAsciiWhitespace(rest));
  return rest.substr(0, rest.find(' '));
}

Finding Ok(std::string area, std::string summary) { return {std::move(area), Verdict::kOk, std::move(summary), ""}; }
Finding Warn(std::string area, std::string summary, std::string fix) {
  return {std::move(area), Verdict::kWarn, std::move(summary), std::move(fix)};
}
Finding Fail(std::string area, std::string summary, std::string fix) {
  return {std::move(area), Verdict::kFail, std::move(summary), std::move(fix)};
}

bool InSlurmJob(const MachineFacts& facts) { return !Env(facts, "SLURM_JOB_ID").empty(); }

std::vector<SmiGpu> Gpus(const MachineFacts& facts) {
  return facts.nvidia_smi.ok() ? ParseNvidiaSmi(facts.nvidia_smi.output) : std::vector<SmiGpu>{};
}

void CheckBuildAndData(const MachineFacts& facts, const BuildInfo& build, std::vector<Finding>& out) {
  const std::string cuda =
      build.cuda.empty() ? "CPU-only build (host backend)"
                         : absl::StrCat("CUDA ", build.cuda, " (architectures ", build.cuda_architectures,
                                        "), NCCL ", build.nccl);
  out.push_back(Ok("build", absl::StrCat("gpuharness ", build.version, " (commit ", build.commit, ", ",
                                         build.build_type, "): ", cuda, ", ", build.mpi)));
  if (facts.data_missing.empty()) {
    out.push_back(Ok("data", absl::StrCat("shipped scenarios, matrices and launchers in ", facts.data_dir)));
  } else {
    out.push_back(Warn("data",
                       absl::StrCat("no ", absl::StrJoin(facts.data_missing, ", "), " under ", facts.data_dir,
                                    ": shipped names (gpuharness run ring_shift_bandwidth) do not resolve"),
                       "reinstall gpuharness, or export GH_DATA_DIR=<prefix>/share/gpuharness"));
  }
}

void CheckMpirun(const MachineFacts& facts, const DoctorRequest& request, const BuildInfo& build,
                 std::vector<Finding>& out) {
  const std::string built = MpiFlavour(build.mpi);
  if (!facts.mpirun.found()) {
    out.push_back(Fail("launcher", "no mpirun on PATH",
                       absl::StrCat("apt-get install openmpi-bin (Debian/Ubuntu), or `module load` the site's ",
                                    built.empty() ? "MPI" : built, " ", BuildMpiVersion(build))));
    return;
  }
  const auto [flavour, version] = MpirunFlavour(facts.mpirun.output);
  if (flavour.empty()) {
    out.push_back(Warn("launcher",
                       absl::StrCat(facts.mpirun.path, " --version does not say which MPI it is: '",
                                    FirstLine(facts.mpirun.output), "'"),
                       absl::StrCat("put ", build.mpi, "'s mpirun first on PATH")));
  } else if (!built.empty() && flavour != built) {
    out.push_back(Fail("launcher",
                       absl::StrCat(facts.mpirun.path, " is ", flavour, " ", version, "; gpuharness was built against ",
                                    build.mpi, ": its ranks would each start alone"),
                       absl::StrCat("put ", built, "'s mpirun first on PATH (module load ", built == "Open MPI" ? "openmpi" : built,
                                    "), or use a gpuharness built against ", flavour)));
  } else if (!version.empty() && Major(version) != Major(BuildMpiVersion(build))) {
    out.push_back(Warn("launcher",
                       absl::StrCat(facts.mpirun.path, " is ", flavour, " ", version, ", gpuharness was built against ",
                                    build.mpi),
                       absl::StrCat("put ", flavour, " ", Major(BuildMpiVersion(build)), ".x's mpirun first on PATH")));
  } else {
    out.push_back(Ok("launcher", absl::StrCat("mpirun: ", flavour, " ", version, " (", facts.mpirun.path,
                                              "), built against ", build.mpi)));
  }
  if (flavour != "Open MPI") return;  // the root and slot rules below are Open MPI's
  if (facts.uid == 0) {
    if (Env(facts, "OMPI_ALLOW_RUN_AS_ROOT") == "1" && Env(facts, "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM") == "1") {
      out.push_back(Ok("launcher", "running as root: OMPI_ALLOW_RUN_AS_ROOT and _CONFIRM are set"));
    } else {
      out.push_back(Fail("launcher", "running as root: Open MPI's mpirun refuses to start as root", kRootFix));
    }
  }
  const int ranks = request.ranks.value_or(1);
  const bool oversubscribe = Env(facts, "OMPI_MCA_rmaps_base_oversubscribe") == "1" ||
                             Env(facts, "OMPI_MCA_rmaps_base_oversubscribe") == "true";
  const int slots = facts.cores;
  if (ranks <= slots) {
    out.push_back(Ok("launcher", absl::StrCat(ranks, " rank(s) on ", slots, " core(s)")));
  } else if (oversubscribe) {
    out.push_back(Ok("launcher", absl::StrCat(ranks, " ranks on ", slots,
                                              " core(s): oversubscribed (OMPI_MCA_rmaps_base_oversubscribe=1)")));
  } else {
    out.push_back(Fail("launcher",
                       absl::StrCat(ranks, " ranks on ", slots, " core(s): `mpirun -np ", ranks,
                                    "` stops with 'not enough slots'"),
                       absl::StrCat("mpirun --oversubscribe -np ", ranks,
                                    " ..., or export OMPI_MCA_rmaps_base_oversubscribe=1 (sweeps' mpirun "
                                    "launcher passes --oversubscribe itself)")));
  }
}

void CheckSlurm(const MachineFacts& facts, const DoctorRequest& request, std::vector<Finding>& out) {
  const bool wanted = request.launcher == "srun";
  if (InSlurmJob(facts)) {
    const std::string tasks = Env(facts, "SLURM_NTASKS");
    out.push_back(Ok("slurm", absl::StrCat("inside Slurm job ", Env(facts, "SLURM_JOB_ID"), " (nodes ",
                                           Env(facts, "SLURM_JOB_NUM_NODES").empty() ? "?" : Env(facts, "SLURM_JOB_NUM_NODES"),
                                           ", tasks ", tasks.empty() ? "?" : tasks, ")")));
    int ntasks = 0;
    if (wanted && absl::SimpleAtoi(tasks, &ntasks) && request.ranks.value_or(1) > ntasks) {
      out.push_back(Warn("slurm",
                         absl::StrCat(*request.ranks, " ranks asked, the allocation has ", ntasks, " task(s)"),
                         absl::StrCat("allocate with --ntasks=", *request.ranks,
                                      " (or -N and --ntasks-per-node), or ask for fewer ranks")));
    }
  } else if (wanted) {
    out.push_back(Warn("slurm", "not inside a Slurm allocation: each srun asks Slurm for its own",
                       "salloc -N 1 --gpus-per-node=<GPUs> first, or sweep --slurm '<sbatch args>'"));
  }
  if (!facts.srun.found()) {
    if (wanted) {
      out.push_back(Fail("slurm", "no srun on PATH",
                         "run on a node with Slurm's client commands (module load slurm), or --launcher mpirun"));
    }
    return;
  }
  if (!facts.srun.ok()) {  // installed, but no Slurm cluster here (no slurm.conf, no controller)
    if (wanted) {
      out.push_back(Fail("slurm", absl::StrCat(facts.srun.path, " does not work here: ", LastLine(facts.srun.output)),
                         "run on a node of the Slurm cluster (slurm.conf or configless DNS SRV), or --launcher mpirun"));
    }
    return;
  }
  const std::string version = FirstLine(facts.srun.output);
  if (absl::StrContains(facts.srun_mpi_list.output, "pmix")) {
    out.push_back(Ok("slurm", absl::StrCat(version.empty() ? "srun" : version, " (", facts.srun.path,
                                           "): srun --mpi=pmix available")));
  } else if (wanted) {
    out.push_back(Fail("slurm",
                       absl::StrCat(facts.srun.path, " --mpi=list offers no pmix: Open MPI ranks started by srun "
                                    "cannot find each other"),
                       "ask the admins for Slurm built with PMIx (srun --mpi=list must list pmix), or --launcher "
                       "mpirun inside the allocation"));
  } else {
    out.push_back(Warn("slurm", absl::StrCat(facts.srun.path, " --mpi=list offers no pmix: the srun launcher will not work"),
                       "use the mpirun launcher here, or ask for Slurm built with PMIx"));
  }
}

void CheckLauncher(const MachineFacts& facts, const DoctorRequest& request, const BuildInfo& build,
                   std::vector<Finding>& out) {
  if (request.launcher == "mpirun") {
    CheckMpirun(facts, request, build, out);
  } else if (request.launcher == "direct") {
    if (request.ranks.value_or(1) > 1) {
      out.push_back(Fail("launcher", absl::StrCat("launcher direct runs 1 rank, ", *request.ranks, " asked"),
                         "--launcher mpirun (or srun) for several ranks"));
    } else {
      out.push_back(Ok("launcher", "direct: one rank, no launcher needed"));
    }
  }
  CheckSlurm(facts, request, out);
}

std::string SmiFix(const std::string& output) {
  if (absl::StrContains(output, "version mismatch")) {
    return "the NVIDIA kernel module and its libraries differ: reboot, or reload the module (rmmod nvidia; modprobe nvidia) "
           "with the GPUs idle";
  }
  if (absl::StrContains(output, "couldn't communicate")) {
    return "load the NVIDIA driver (modprobe nvidia, as root), or run on a GPU node";
  }
  return "make `nvidia-smi` work first (driver installed and loaded)";
}

void CheckGpus(const MachineFacts& facts, const DoctorRequest& request, const BuildInfo& build,
               std::vector<Finding>& out) {
  const bool cuda_asked = request.backend == "cuda";
  if (build.cuda.empty()) {
    if (cuda_asked) {
      out.push_back(Fail("gpu", "--backend cuda: this is a CPU-only build",
                         "install the CUDA build of gpuharness, or build with CUDA and NCCL found (docs/how-to/install.md)"));
    } else {
      out.push_back(Ok("gpu", "CPU-only build: scenarios run on the host backend (CPU memory, MPI transports)"));
    }
    return;
  }
  auto problem = [&](std::string summary, std::string fix) {
    if (cuda_asked) {
      out.push_back(Fail("gpu", std::move(summary), std::move(fix)));
    } else {
      out.push_back(Warn("gpu", absl::StrCat(summary, "; --backend auto runs the host backend"), std::move(fix)));
    }
  };
  if (!facts.nvidia_smi.found()) {
    problem("no nvidia-smi on PATH: no NVIDIA driver here", "run on a GPU node, or install the NVIDIA driver (nvidia-smi must run)");
    return;
  }
  const std::vector<SmiGpu> gpus = Gpus(facts);
  if (!facts.nvidia_smi.ok()) {
    problem(absl::StrCat("nvidia-smi failed: ", FirstLine(facts.nvidia_smi.output)), SmiFix(facts.nvidia_smi.output));
    return;
  }
  if (gpus.empty()) {
    problem("nvidia-smi lists no GPU", "check CUDA_VISIBLE_DEVICES and the job's GPU allocation (--gpus-per-node)");
    return;
  }
  std::set<std::string> models;
  for (const SmiGpu& gpu : gpus) models.insert(gpu.name);
  const SmiGpu& first = gpus.front();
  out.push_back(Ok("gpu", absl::StrCat(gpus.size(), " x ", first.name, ", driver ", first.driver, ", ",
                                       first.memory_mib, " MiB; GPU ", first.index, " clocks: SM ", first.sm_clock, "/",
                                       first.sm_clock_max, " MHz, memory ", first.mem_clock, "/", first.mem_clock_max,
                                       " MHz (now/max)")));
  if (models.size() > 1) {
    out.push_back(Warn("gpu", absl::StrCat("mixed GPU models on this node: ", absl::StrJoin(models, ", ")),
                       "pin ranks to one model with CUDA_VISIBLE_DEVICES, or compare no timings across them"));
  }
  for (const SmiGpu& gpu : gpus) {
    if (gpu.mig == "Enabled") {
      out.push_back(Warn("gpu", absl::StrCat("GPU ", gpu.index, " is in MIG mode: ranks see MIG instances, not the GPU"),
                         absl::StrCat("nvidia-smi -i ", gpu.index, " -mig 0 (as root, with the GPU idle), or expect MIG results")));
    }
  }
  const int ranks = request.ranks.value_or(1);
  if (ranks > static_cast<int>(gpus.size())) {
    out.push_back(Warn("gpu",
                       absl::StrCat(ranks, " ranks on ", gpus.size(), " GPU(s): NCCL refuses two ranks on one GPU"),
                       "gpuharness run ... --share-gpu (NCCL over sockets: correct, slow), or one rank per GPU"));
  }
  if (!facts.libraries.nvml_loads) {
    out.push_back(Warn("gpu", absl::StrCat("NVML does not load in gpuharness (", facts.libraries.nvml_error,
                                           "): environment.json records no clocks"),
                       "put the driver's library directory (ldconfig -p | grep libnvidia-ml) on LD_LIBRARY_PATH"));
  }
}

void CheckCudaAndNccl(const MachineFacts& facts, const DoctorRequest& request, const BuildInfo& build,
                      std::vector<Finding>& out) {
  if (build.cuda.empty()) return;
  const LoadedLibraries& libs = facts.libraries;
  const bool cuda_asked = request.backend == "cuda";
  if (libs.cuda_runtime == 0) {
    out.push_back(Fail("cuda", "libcudart did not answer cudaRuntimeGetVersion",
                       "check `ldd $(command -v gpuharness)` for libcudart.so"));
  } else if (libs.cuda_driver == 0) {
    const std::string summary = absl::StrCat("no CUDA driver (libcuda.so.1) for runtime ", CudaVersionText(libs.cuda_runtime));
    const std::string fix =
        "run on a GPU node; in a container, mount the driver (--gpus all, or pyxis/enroot's nvidia hook)";
    out.push_back(cuda_asked ? Fail("cuda", summary, fix) : Warn("cuda", summary, fix));
  } else if (libs.cuda_driver / 1000 < libs.cuda_runtime / 1000) {
    out.push_back(Fail("cuda",
                       absl::StrCat("the driver supports CUDA ", CudaVersionText(libs.cuda_driver), ", the runtime (",
                                    libs.cuda_runtime_path, ") needs ", CudaVersionText(libs.cuda_runtime)),
                       absl::StrCat("install an NVIDIA driver for CUDA ", libs.cuda_runtime / 1000,
                                    " (R580 or newer for CUDA 13), or use a gpuharness built for CUDA ",
                                    libs.cuda_driver / 1000)));
  } else {
    out.push_back(Ok("cuda", absl::StrCat("CUDA driver ", CudaVersionText(libs.cuda_driver), ", runtime ",
                                          CudaVersionText(libs.cuda_runtime), " (", libs.cuda_runtime_path, ")")));
  }
  if (libs.nccl == 0) {
    out.push_back(Fail("nccl", "libnccl did not answer ncclGetVersion", "check `ldd $(command -v gpuharness)` for libnccl.so.2"));
    return;
  }
  const std::string runtime = NcclVersionText(libs.nccl);
  const std::string where = absl::StrCat("NCCL ", runtime, " loads (", libs.nccl_path, "), compiled against ", build.nccl);
  const std::string plugin = Env(facts, "GH_NCCL_DEVICE_PLUGIN");
  if (MajorMinor(runtime) == MajorMinor(build.nccl)) {
    out.push_back(Ok("nccl", where));
  } else if (!plugin.empty()) {
    out.push_back(Ok("nccl", absl::StrCat(where, "; the device API comes from GH_NCCL_DEVICE_PLUGIN=", plugin)));
  } else {
    out.push_back(Warn("nccl",
                       absl::StrCat(where, ": the device transports (nccl_device, nccl_ce) need the same release"),
                       absl::StrCat("export LD_LIBRARY_PATH=<NCCL ", MajorMinor(build.nccl),
                                    ">/lib:$LD_LIBRARY_PATH, or build the device-API plugin for ", runtime,
                                    " and export GH_NCCL_DEVICE_PLUGIN=<build>/libgh_nccl_device.so (docs/reference/cuda-backend.md)")));
  }
}

void CheckResults(const MachineFacts& facts, std::vector<Finding>& out) {
  if (facts.results_problem.empty()) {
    out.push_back(Ok("results", absl::StrCat("results root ", facts.results_root, ": writable")));
  } else {
    out.push_back(Fail("results", facts.results_problem,
                       absl::StrCat("mkdir -p ", facts.results_root, " && chmod u+w ", facts.results_root,
                                    ", or give --out (here --results-root) a writable directory")));
  }
}

void CheckPython(const MachineFacts& facts, std::vector<Finding>& out) {
  if (facts.python.ok()) {
    out.push_back(Ok("python", absl::StrCat(FirstLine(facts.python.output), " (", facts.python.path, ")")));
  } else {
    out.push_back(Warn("python",
                       facts.python.found() ? absl::StrCat(facts.python.path, " --version failed: ", FirstLine(facts.python.output))
                                            : "no python3 on PATH: exec scenarios (framework repros) and the nightly's "
                                              "summaries need it",
                       "apt-get install python3 (or module load python)"));
  }
  if (!facts.py_spy.ok()) {
    out.push_back(Warn("python", "no py-spy on PATH: a hung Python (exec) rank's record gets no Python stack",
                       "python3 -m pip install py-spy"));
    return;
  }
  out.push_back(Ok("python", absl::StrCat(FirstLine(facts.py_spy.output), " (", facts.py_spy.path, ")")));
  if (facts.ptrace_scope >= 3 || (facts.ptrace_scope >= 1 && facts.uid != 0)) {
    out.push_back(Warn("python",
                       absl::StrCat("kernel.yama.ptrace_scope is ", facts.ptrace_scope,
                                    ": py-spy cannot attach to a rank it did not start"),
                       facts.ptrace_scope >= 3 ? "ptrace is off until reboot: boot with kernel.yama.ptrace_scope=1 or lower, and run as root"
                                               : "sudo sysctl -w kernel.yama.ptrace_scope=0, or run as root"));
  }
}

}  // namespace

std::vector<SmiGpu> ParseNvidiaSmi(const std::string& csv) {
  std::vector<SmiGpu> gpus;
  for (absl::string_view line : absl::StrSplit(csv, '\n', absl::SkipWhitespace())) {
    std::vector<std::string> f;
    for (absl::string_view field : absl::StrSplit(line, ',')) f.emplace_back(absl::StripAsciiWhitespace(field));
    if (f.size() != 9) continue;
    SmiGpu gpu;
    if (!absl::SimpleAtoi(f[0], &gpu.index)) continue;
    gpu.name = f[1];
    gpu.driver = f[2];
    (void)absl::SimpleAtoi(f[3], &gpu.memory_mib);
    (void)absl::SimpleAtoi(f[4], &gpu.sm_clock);
    (void)absl::SimpleAtoi(f[5], &gpu.sm_clock_max);
    (void)absl::SimpleAtoi(f[6], &gpu.mem_clock);
    (void)absl::SimpleAtoi(f[7], &gpu.mem_clock_max);
    gpu.mig = f[8];
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

DoctorRequest ResolveRequest(DoctorRequest request, const MachineFacts& facts) {
  if (request.launcher.empty()) request.launcher = InSlurmJob(facts) ? "srun" : "mpirun";
  if (!request.ranks) request.ranks = std::max<int>(1, static_cast<int>(Gpus(facts).size()));
  return request;
}

std::vector<Finding> CheckMachine(const MachineFacts& facts, const DoctorRequest& request, const BuildInfo& build) {
  std::vector<Finding> out;
  CheckBuildAndData(facts, build, out);
  CheckLauncher(facts, request, build, out);
  CheckGpus(facts, request, build, out);
  CheckCudaAndNccl(facts, request, build, out);
  CheckResults(facts, out);
  CheckPython(facts, out);
  return out;
}

std::string RenderFindings(const std::vector<Finding>& findings, const DoctorRequest& request) {
  std::string text = absl::StrCat("gpuharness doctor: ", request.ranks.value_or(1), " rank(s), launcher ",
                                  request.launcher, ", backend ", request.backend, "\n\n");
  int counts[3] = {0, 0, 0};
  for (const Finding& f : findings) {
    ++counts[static_cast<int>(f.verdict)];
    const std::string verdict = f.verdict == Verdict::kFail ? "FAIL" : std::string(EnumToName(f.verdict));
    absl::StrAppend(&text, "  ", verdict, std::string(6 - verdict.size(), ' '), f.area,
                    std::string(f.area.size() < 10 ? 10 - f.area.size() : 1, ' '), f.summary, "\n");
    if (!f.fix.empty()) absl::StrAppend(&text, std::string(18, ' '), "fix: ", f.fix, "\n");
  }
  absl::StrAppend(&text, "\n", counts[2], " failed, ", counts[1], " warning(s), ", counts[0], " ok\n");
  return text;
}

nlohmann::json FindingsJson(const std::vector<Finding>& findings, const DoctorRequest& request, const BuildInfo& build) {
  nlohmann::json list = nlohmann::json::array();
  int counts[3] = {0, 0, 0};
  for (const Finding& f : findings) {
    ++counts[static_cast<int>(f.verdict)];
    list.push_back({{"area", f.area}, {"verdict", EnumToName(f.verdict)}, {"summary", f.summary}, {"fix", f.fix}});
  }
  return {{"schema_version", 1},
          {"build", BuildInfoJson(build)},
          {"request", {{"ranks", request.ranks.value_or(1)}, {"launcher", request.launcher}, {"backend", request.backend}}},
          {"findings", std::move(list)},
          {"failed", counts[2]},
          {"warnings", counts[1]},
          {"ok", counts[0]}};
}

int DoctorExitStatus(const std::vector<Finding>& findings) {
  for (const Finding& f : findings) {
    if (f.verdict == Verdict::kFail) return 1;
  }
  return 0;
}

}  // namespace gh
