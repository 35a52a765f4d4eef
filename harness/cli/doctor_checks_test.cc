// `gpuharness doctor` against scripted machines: a PATH of fake mpirun, srun, nvidia-smi,
// python3 and py-spy scripts that print what the real ones print, probed by the real
// ProbeMachine, then judged. Each case checks the finding's verdict, summary and exact fix.
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/cli/doctor_checks.h"
#include "harness/cli/doctor_probe.h"
#include "harness/core/testdata/temp_dir.h"

namespace gh {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

const BuildInfo kCudaBuild{"0.1.0", "24999dbabc8a", "Release", "13.0.88", "2.28.9", "90",
                           "Open MPI 4.1.4 (MPI 3.1)", "GNU 12.2.0", "Linux x86_64"};
const BuildInfo kCpuBuild{"0.1.0", "24999dbabc8a", "Release", "", "", "", "Open MPI 4.1.4 (MPI 3.1)",
                          "GNU 12.2.0", "Linux x86_64"};

constexpr char kOpenMpi[] = "echo 'mpirun (Open MPI) 4.1.6'; echo; echo 'Report bugs to http://www.open-mpi.org/community/help/'";
constexpr char kTwoH100[] =
    "echo '0, NVIDIA H100 80GB HBM3, 580.159.04, 81559, 1980, 1980, 2619, 2619, Disabled'\n"
    "echo '1, NVIDIA H100 80GB HBM3, 580.159.04, 81559, 345, 1980, 2619, 2619, Disabled'";

class DoctorTest : public gh::testing::TempDirTest {
 protected:
  DoctorTest() {
    bin_ = temp_dir() + "/bin";
    data_ = temp_dir() + "/share/gpuharness";
    mkdir(bin_.c_str(), 0755);
    for (const char* dir : {"/share", "/share/gpuharness", "/share/gpuharness/scenarios",
                            "/share/gpuharness/matrices", "/share/gpuharness/launchers"}) {
      mkdir((temp_dir() + dir).c_str(), 0755);
    }
    options_.env = {{"PATH", bin_}};
    options_.results_root = temp_dir() + "/results";
    options_.data_dir = data_;
    options_.ptrace_scope_file = temp_dir() + "/no_ptrace_scope";
    options_.libraries = [this] { return libraries_; };
    libraries_ = {13000, 13000, "/usr/local/cuda/lib64/libcudart.so.13.0.88", 22809,
                  "/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.9", true, ""};
  }

  // A fake program: `body` is its shell script.
  void Tool(const std::string& name, const std::string& body) {
    const std::string path = bin_ + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    chmod(path.c_str(), 0755);
  }
  void AllTools() {
    Tool("mpirun", kOpenMpi);
    Tool("nvidia-smi", kTwoH100);
    Tool("python3", "echo 'Python 3.11.2'");
    Tool("py-spy", "echo 'py-spy 0.4.3'");
  }

  MachineFacts Probe(int uid = 1000, int cores = 16) {
    MachineFacts facts = ProbeMachine(options_);
    facts.uid = uid;
    facts.cores = cores;
    return facts;
  }

  std::vector<Finding> Check(const MachineFacts& facts, DoctorRequest request = {}, const BuildInfo& build = kCudaBuild) {
    return CheckMachine(facts, ResolveRequest(request, facts), build);
  }

  // The one finding of `area` whose summary contains `text`; fails the test when there is none.
  static Finding Find(const std::vector<Finding>& findings, const std::string& area, const std::string& text) {
    for (const Finding& f : findings) {
      if (f.area == area && f.summary.find(text) != std::string::npos) return f;
    }
    ADD_FAILURE() << "no " << area << " finding with '" << text << "' in:\n" << RenderFindings(findings, {});
    return {};
  }

  static int Count(const std::vector<Finding>& findings, Verdict verdict) {
    int n = 0;
    for (const Finding& f : findings) n += f.verdict == verdict;
    return n;
  }

  std::string bin_, data_;
  ProbeOptions options_;
  LoadedLibraries libraries_;
};

TEST_F(DoctorTest, AReadyGpuNodeHasNoWarningAndExitsZero) {
  AllTools();
  const MachineFacts facts = Probe();
  EXPECT_EQ(facts.mpirun.path, bin_ + "/mpirun");
  EXPECT_EQ(facts.mpirun.exit_code, 0);
  EXPECT_THAT(facts.mpirun.output, StartsWith("mpirun (Open MPI) 4.1.6\n"));
  EXPECT_FALSE(facts.srun.found());
  const std::vector<Finding> findings = Check(facts);
  EXPECT_EQ(Count(findings, Verdict::kFail), 0) << RenderFindings(findings, {});
  EXPECT_EQ(Count(findings, Verdict::kWarn), 0) << RenderFindings(findings, {});
  EXPECT_EQ(DoctorExitStatus(findings), 0);
  EXPECT_EQ(Find(findings, "launcher", "mpirun:").summary,
            "mpirun: Open MPI 4.1.6 (" + bin_ + "/mpirun), built against Open MPI 4.1.4 (MPI 3.1)");
  // Two GPUs seen: two ranks by default, one per GPU.
  EXPECT_EQ(Find(findings, "launcher", "core").summary, "2 rank(s) on 16 core(s)");
  EXPECT_EQ(Find(findings, "gpu", "x NVIDIA").summary,
            "2 x NVIDIA H100 80GB HBM3, driver 580.159.04, 81559 MiB; GPU 0 clocks: SM 1980/1980 MHz, memory "
            "2619/2619 MHz (now/max)");
  EXPECT_EQ(Find(findings, "cuda", "driver").summary,
            "CUDA driver 13.0, runtime 13.0 (/usr/local/cuda/lib64/libcudart.so.13.0.88)");
  EXPECT_EQ(Find(findings, "nccl", "NCCL").summary,
            "NCCL 2.28.9 loads (/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.9), compiled against 2.28.9");
  EXPECT_EQ(Find(findings, "results", "results root").summary, "results root " + temp_dir() + "/results: writable");
  EXPECT_EQ(Find(findings, "python", "Python").summary, "Python 3.11.2 (" + bin_ + "/python3)");
  EXPECT_EQ(Find(findings, "data", "shipped").summary, "shipped scenarios, matrices and launchers in " + data_);
}

TEST_F(DoctorTest, RootWithoutOpenMpisVariablesFailsWithTheExportLine) {
  AllTools();
  const std::vector<Finding> findings = Check(Probe(/*uid=*/0));
  const Finding root = Find(findings, "launcher", "root");
  EXPECT_EQ(root.verdict, Verdict::kFail);
  EXPECT_EQ(root.summary, "running as root: Open MPI's mpirun refuses to start as root");
  EXPECT_EQ(root.fix, "export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1");
  EXPECT_EQ(DoctorExitStatus(findings), 1);

  options_.env["OMPI_ALLOW_RUN_AS_ROOT"] = "1";
  options_.env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1";
  const Finding allowed = Find(Check(Probe(0)), "launcher", "root");
  EXPECT_EQ(allowed.verdict, Verdict::kOk);
  EXPECT_EQ(allowed.fix, "");
}

TEST_F(DoctorTest, MoreRanksThanCoresFailsUnlessOpenMpiMayOversubscribe) {
  AllTools();
  Tool("nvidia-smi", "exit 0");  // no GPU listed: the ranks asked decide
  DoctorRequest request;
  request.ranks = 4;
  const Finding slots = Find(Check(Probe(1000, /*cores=*/2), request, kCpuBuild), "launcher", "core");
  EXPECT_EQ(slots.verdict, Verdict::kFail);
  EXPECT_EQ(slots.summary, "4 ranks on 2 core(s): `mpirun -np 4` stops with 'not enough slots'");
  EXPECT_EQ(slots.fix,
            "mpirun --oversubscribe -np 4 ..., or export OMPI_MCA_rmaps_base_oversubscribe=1 (sweeps' mpirun "
            "launcher passes --oversubscribe itself)");
  options_.env["OMPI_MCA_rmaps_base_oversubscribe"] = "1";
  const Finding allowed = Find(Check(Probe(1000, 2), request, kCpuBuild), "launcher", "core");
  EXPECT_EQ(allowed.verdict, Verdict::kOk);
  EXPECT_EQ(allowed.summary, "4 ranks on 2 core(s): oversubscribed (OMPI_MCA_rmaps_base_oversubscribe=1)");
}

TEST_F(DoctorTest, MissingOrForeignMpirunFails) {
  Tool("python3", "echo 'Python 3.11.2'");
  const Finding none = Find(Check(Probe(), {}, kCpuBuild), "launcher", "mpirun");
  EXPECT_EQ(none.verdict, Verdict::kFail);
  EXPECT_EQ(none.summary, "no mpirun on PATH");
  EXPECT_EQ(none.fix, "apt-get install openmpi-bin (Debian/Ubuntu), or `module load` the site's Open MPI 4.1.4");

  Tool("mpirun", "echo 'HYDRA build details:'; echo '    Version:                                 4.0.2'");
  const Finding mpich = Find(Check(Probe(), {}, kCpuBuild), "launcher", "MPICH");
  EXPECT_EQ(mpich.verdict, Verdict::kFail);
  EXPECT_EQ(mpich.summary, bin_ + "/mpirun is MPICH 4.0.2; gpuharness was built against Open MPI 4.1.4 (MPI 3.1): "
                                  "its ranks would each start alone");
  EXPECT_EQ(mpich.fix, "put Open MPI's mpirun first on PATH (module load openmpi), or use a gpuharness built against MPICH");

  Tool("mpirun", "echo 'mpirun (Open MPI) 5.0.3'");
  const Finding newer = Find(Check(Probe(), {}, kCpuBuild), "launcher", "5.0.3");
  EXPECT_EQ(newer.verdict, Verdict::kWarn);
  EXPECT_EQ(newer.fix, "put Open MPI 4.x's mpirun first on PATH");
}

TEST_F(DoctorTest, AFailingNvidiaSmiKeepsItsMessageAndGivesTheFix) {
  AllTools();
  Tool("nvidia-smi", "echo 'Failed to initialize NVML: Driver/library version mismatch' >&2\nexit 18");
  const MachineFacts facts = Probe();
  EXPECT_EQ(facts.nvidia_smi.exit_code, 18);
  EXPECT_EQ(facts.nvidia_smi.output, "Failed to initialize NVML: Driver/library version mismatch");
  DoctorRequest cuda;
  cuda.backend = "cuda";
  const Finding smi = Find(Check(facts, cuda), "gpu", "nvidia-smi failed");
  EXPECT_EQ(smi.verdict, Verdict::kFail);
  EXPECT_EQ(smi.summary, "nvidia-smi failed: Failed to initialize NVML: Driver/library version mismatch");
  EXPECT_THAT(smi.fix, HasSubstr("reload the module (rmmod nvidia; modprobe nvidia)"));
  // With --backend auto the host backend still runs: a warning.
  EXPECT_EQ(Find(Check(facts), "gpu", "nvidia-smi failed").verdict, Verdict::kWarn);
}

TEST_F(DoctorTest, AHangingToolIsEndedAtTheBoundAndSaysSo) {
  AllTools();
  Tool("nvidia-smi", "sleep 60");
  options_.bound = absl::Seconds(1);
  const absl::Time start = absl::Now();
  const MachineFacts facts = Probe();
  EXPECT_LT(absl::Now() - start, absl::Seconds(20));
  EXPECT_EQ(facts.nvidia_smi.exit_code, -1);
  EXPECT_EQ(facts.nvidia_smi.output, "nvidia-smi gave no answer within 1s");
  EXPECT_EQ(Find(Check(facts), "gpu", "nvidia-smi failed").summary,
            "nvidia-smi failed: nvidia-smi gave no answer within 1s; --backend auto runs the host backend");
}

TEST_F(DoctorTest, NoDriverIsAFailureOnlyWhenTheCudaBackendIsAsked) {
  Tool("mpirun", kOpenMpi);
  libraries_.cuda_driver = 0;
  libraries_.nvml_loads = false;
  DoctorRequest cuda;
  cuda.backend = "cuda";
  const std::vector<Finding> asked = Check(Probe(), cuda);
  EXPECT_EQ(Find(asked, "gpu", "nvidia-smi").summary, "no nvidia-smi on PATH: no NVIDIA driver here");
  EXPECT_EQ(Find(asked, "gpu", "nvidia-smi").verdict, Verdict::kFail);
  EXPECT_EQ(Find(asked, "cuda", "no CUDA driver").verdict, Verdict::kFail);
  const std::vector<Finding> auto_backend = Check(Probe());
  EXPECT_EQ(Find(auto_backend, "gpu", "nvidia-smi").verdict, Verdict::kWarn);
  EXPECT_EQ(Find(auto_backend, "gpu", "nvidia-smi").summary,
            "no nvidia-smi on PATH: no NVIDIA driver here; --backend auto runs the host backend");
  // A CPU-only build needs no GPU, and says so.
  const Finding cpu = Find(Check(Probe(), {}, kCpuBuild), "gpu", "CPU-only");
  EXPECT_EQ(cpu.verdict, Verdict::kOk);
  const Finding cpu_cuda = Find(Check(Probe(), cuda, kCpuBuild), "gpu", "CPU-only");
  EXPECT_EQ(cpu_cuda.verdict, Verdict::kFail);
}

TEST_F(DoctorTest, MigModeAndSharedGpusWarnWithTheirFix) {
  AllTools();
  Tool("nvidia-smi", "echo '0, NVIDIA H200, 580.159.04, 143771, 1980, 1980, 3201, 3201, Enabled'");
  DoctorRequest request;
  request.ranks = 2;
  const std::vector<Finding> findings = Check(Probe(), request);
  const Finding mig = Find(findings, "gpu", "MIG");
  EXPECT_EQ(mig.verdict, Verdict::kWarn);
  EXPECT_EQ(mig.summary, "GPU 0 is in MIG mode: ranks see MIG instances, not the GPU");
  EXPECT_EQ(mig.fix, "nvidia-smi -i 0 -mig 0 (as root, with the GPU idle), or expect MIG results");
  const Finding shared = Find(findings, "gpu", "2 ranks on 1 GPU(s)");
  EXPECT_EQ(shared.verdict, Verdict::kWarn);
  EXPECT_THAT(shared.fix, StartsWith("gpuharness run ... --share-gpu"));
}

TEST_F(DoctorTest, AnOldDriverFailsAndAnotherNcclReleaseWarns) {
  AllTools();
  libraries_.cuda_driver = 12080;
  libraries_.nccl = 22902;
  libraries_.nccl_path = "/opt/nccl-2.29.2/lib/libnccl.so.2";
  const std::vector<Finding> findings = Check(Probe());
  const Finding cuda = Find(findings, "cuda", "driver supports");
  EXPECT_EQ(cuda.verdict, Verdict::kFail);
  EXPECT_EQ(cuda.summary,
            "the driver supports CUDA 12.8, the runtime (/usr/local/cuda/lib64/libcudart.so.13.0.88) needs 13.0");
  EXPECT_EQ(cuda.fix,
            "install an NVIDIA driver for CUDA 13 (R580 or newer for CUDA 13), or use a gpuharness built for CUDA 12");
  const Finding nccl = Find(findings, "nccl", "NCCL");
  EXPECT_EQ(nccl.verdict, Verdict::kWarn);
  EXPECT_EQ(nccl.summary,
            "NCCL 2.29.2 loads (/opt/nccl-2.29.2/lib/libnccl.so.2), compiled against 2.28.9: the device transports "
            "(nccl_device, nccl_ce) need the same release");
  EXPECT_EQ(nccl.fix,
            "export LD_LIBRARY_PATH=<NCCL 2.28>/lib:$LD_LIBRARY_PATH, or build the device-API plugin for 2.29.2 and "
            "export GH_NCCL_DEVICE_PLUGIN=<build>/libgh_nccl_device.so (docs/reference/cuda-backend.md)");
  options_.env["GH_NCCL_DEVICE_PLUGIN"] = "/p/libgh_nccl_device.so";
  EXPECT_EQ(Find(Check(Probe()), "nccl", "NCCL").verdict, Verdict::kOk);
  libraries_.nccl = 22803;  // the same release line: fine
  options_.env.erase("GH_NCCL_DEVICE_PLUGIN");
  EXPECT_EQ(Find(Check(Probe()), "nccl", "NCCL 2.28.3").verdict, Verdict::kOk);
}

TEST_F(DoctorTest, InsideSlurmTheLauncherIsSrunAndNeedsPmix) {
  AllTools();
  Tool("srun", "case \"$1\" in --version) echo 'slurm 22.05.8';; --mpi=list) printf 'MPI plugin types are...\\n\\tnone\\n\\tpmi2\\n';; esac");
  options_.env["SLURM_JOB_ID"] = "42";
  options_.env["SLURM_NTASKS"] = "4";
  options_.env["SLURM_JOB_NUM_NODES"] = "1";
  DoctorRequest request;
  request.ranks = 8;
  const MachineFacts facts = Probe();
  EXPECT_EQ(ResolveRequest(request, facts).launcher, "srun");
  const std::vector<Finding> findings = Check(facts, request);
  EXPECT_EQ(Find(findings, "slurm", "inside").summary, "inside Slurm job 42 (nodes 1, tasks 4)");
  const Finding tasks = Find(findings, "slurm", "ranks asked");
  EXPECT_EQ(tasks.verdict, Verdict::kWarn);
  EXPECT_EQ(tasks.summary, "8 ranks asked, the allocation has 4 task(s)");
  EXPECT_EQ(tasks.fix, "allocate with --ntasks=8 (or -N and --ntasks-per-node), or ask for fewer ranks");
  const Finding pmix = Find(findings, "slurm", "pmix");
  EXPECT_EQ(pmix.verdict, Verdict::kFail);
  EXPECT_EQ(pmix.summary, bin_ + "/srun --mpi=list offers no pmix: Open MPI ranks started by srun cannot find each other");

  Tool("srun", "case \"$1\" in --version) echo 'slurm 22.05.8';; --mpi=list) printf 'MPI plugin types are...\\n\\tpmix\\n';; esac");
  const Finding ok = Find(Check(Probe(), request), "slurm", "pmix");
  EXPECT_EQ(ok.verdict, Verdict::kOk);
  EXPECT_EQ(ok.summary, "slurm 22.05.8 (" + bin_ + "/srun): srun --mpi=pmix available");
}

// Slurm's client installed on a machine of no cluster: only the srun launcher cares.
TEST_F(DoctorTest, AnSrunWithoutAClusterFailsOnlyForTheSrunLauncher) {
  AllTools();
  Tool("srun", "echo 'srun: error: fetch_config: DNS SRV lookup failed' >&2\n"
               "echo 'srun: fatal: Could not establish a configuration source' >&2\nexit 1");
  for (const Finding& f : Check(Probe())) EXPECT_NE(f.area, "slurm") << f.summary;
  DoctorRequest srun;
  srun.launcher = "srun";
  const Finding f = Find(Check(Probe(), srun), "slurm", "does not work");
  EXPECT_EQ(f.verdict, Verdict::kFail);
  EXPECT_EQ(f.summary, bin_ + "/srun does not work here: srun: fatal: Could not establish a configuration source");
  EXPECT_EQ(f.fix, "run on a node of the Slurm cluster (slurm.conf or configless DNS SRV), or --launcher mpirun");
}

TEST_F(DoctorTest, AResultsRootThatCannotBeWrittenFails) {
  AllTools();
  std::ofstream(temp_dir() + "/a_file") << "x";
  options_.results_root = temp_dir() + "/a_file/results";
  Finding f = Find(Check(Probe()), "results", "cannot");
  EXPECT_EQ(f.verdict, Verdict::kFail);
  EXPECT_EQ(f.summary, "cannot create " + temp_dir() + "/a_file/results: " + temp_dir() + "/a_file is not a directory");
  EXPECT_EQ(f.fix, "mkdir -p " + options_.results_root + " && chmod u+w " + options_.results_root +
                       ", or give --out (here --results-root) a writable directory");
  // Root included: procfs takes no files.
  options_.results_root = "/proc/gpuharness-doctor/results";
  f = Find(Check(Probe(0)), "results", "cannot");
  EXPECT_EQ(f.verdict, Verdict::kFail);
  EXPECT_THAT(f.summary, StartsWith("cannot create /proc/gpuharness-doctor/results: cannot write in /proc: "));
}

TEST_F(DoctorTest, NoPythonOrPySpyWarnsAndSaysHowToInstallThem) {
  Tool("mpirun", kOpenMpi);
  const std::vector<Finding> findings = Check(Probe(), {}, kCpuBuild);
  const Finding spy = Find(findings, "python", "py-spy");
  EXPECT_EQ(spy.verdict, Verdict::kWarn);
  EXPECT_EQ(spy.summary, "no py-spy on PATH: a hung Python (exec) rank's record gets no Python stack");
  EXPECT_EQ(spy.fix, "python3 -m pip install py-spy");
  EXPECT_EQ(Find(findings, "python", "python3").fix, "apt-get install python3 (or module load python)");
  EXPECT_EQ(DoctorExitStatus(findings), 0);  // warnings only

  Tool("py-spy", "echo 'py-spy 0.4.3'");
  std::ofstream(options_.ptrace_scope_file) << "1\n";
  const Finding scope = Find(Check(Probe(1000), {}, kCpuBuild), "python", "ptrace_scope");
  EXPECT_EQ(scope.summary, "kernel.yama.ptrace_scope is 1: py-spy cannot attach to a rank it did not start");
  EXPECT_EQ(scope.fix, "sudo sysctl -w kernel.yama.ptrace_scope=0, or run as root");
}

TEST_F(DoctorTest, MissingShippedDataWarnsWithGhDataDir) {
  AllTools();
  options_.data_dir = temp_dir() + "/nowhere";
  const Finding data = Find(Check(Probe()), "data", "no scenarios");
  EXPECT_EQ(data.verdict, Verdict::kWarn);
  EXPECT_EQ(data.summary, "no scenarios, matrices, launchers under " + temp_dir() +
                              "/nowhere: shipped names (gpuharness run ring_shift_bandwidth) do not resolve");
  EXPECT_EQ(data.fix, "reinstall gpuharness, or export GH_DATA_DIR=<prefix>/share/gpuharness");
}

TEST_F(DoctorTest, ConsoleAndJsonCarryEveryFindingAndTheTally) {
  const std::vector<Finding> findings = {
      {"launcher", Verdict::kFail, "no mpirun on PATH", "apt-get install openmpi-bin"},
      {"python", Verdict::kWarn, "no py-spy on PATH", "python3 -m pip install py-spy"},
      {"results", Verdict::kOk, "results root r: writable", ""}};
  DoctorRequest request;
  request.ranks = 4;
  request.launcher = "mpirun";
  EXPECT_EQ(RenderFindings(findings, request),
            "gpuharness doctor: 4 rank(s), launcher mpirun, backend auto\n"
            "\n"
            "  FAIL  launcher  no mpirun on PATH\n"
            "                  fix: apt-get install openmpi-bin\n"
            "  warn  python    no py-spy on PATH\n"
            "                  fix: python3 -m pip install py-spy\n"
            "  ok    results   results root r: writable\n"
            "\n"
            "1 failed, 1 warning(s), 1 ok\n");
  const nlohmann::json json = FindingsJson(findings, request, kCpuBuild);
  EXPECT_EQ(json["schema_version"], 1);
  EXPECT_EQ(json["build"]["version"], "0.1.0");
  EXPECT_EQ(json["build"]["cuda"], "");
  EXPECT_EQ(json["request"], (nlohmann::json{{"ranks", 4}, {"launcher", "mpirun"}, {"backend", "auto"}}));
  EXPECT_EQ(json["findings"][0], (nlohmann::json{{"area", "launcher"},
                                                 {"verdict", "fail"},
                                                 {"summary", "no mpirun on PATH"},
                                                 {"fix", "apt-get install openmpi-bin"}}));
  EXPECT_EQ(json["failed"], 1);
  EXPECT_EQ(json["warnings"], 1);
  EXPECT_EQ(json["ok"], 1);
  EXPECT_EQ(DoctorExitStatus(findings), 1);
}

TEST(ParseNvidiaSmiTest, ReadsEveryFieldAndSkipsWhatIsNotAGpuLine) {
  const std::vector<SmiGpu> gpus = ParseNvidiaSmi(
      "0, NVIDIA H200, 580.159.04, 143771, 1980, 1980, 3201, 3201, [N/A]\n"
      "No devices were found\n"
      "1, NVIDIA H200, 580.159.04, 143771, 345, 1980, 3201, 3201, Disabled\n");
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[1].index, 1);
  EXPECT_EQ(gpus[1].name, "NVIDIA H200");
  EXPECT_EQ(gpus[1].driver, "580.159.04");
  EXPECT_EQ(gpus[1].memory_mib, 143771);
  EXPECT_EQ(gpus[1].sm_clock, 345);
  EXPECT_EQ(gpus[1].sm_clock_max, 1980);
  EXPECT_EQ(gpus[1].mem_clock, 3201);
  EXPECT_EQ(gpus[1].mem_clock_max, 3201);
  EXPECT_EQ(gpus[0].mig, "[N/A]");
}

}  // namespace
}  // namespace gh
