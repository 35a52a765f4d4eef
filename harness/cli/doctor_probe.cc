#include "harness/cli/doctor_probe.h"

#include <dlfcn.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "harness/core/shipped_data.h"
#include "harness/runtime/bounded_command.h"

extern char** environ;

namespace gh {
namespace {

bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Runs `path args...` with stderr folded into stdout and the exit status appended by the shell,
// so a failing program still says why (RunBoundedCommand keeps only stdout and a zero exit).
// timeout(1) ends the program itself at the bound, so that nothing it started outlives doctor.
ToolRun RunTool(const std::string& name, const std::vector<std::string>& args,
                const ProbeOptions& options) {
  ToolRun run;
  auto path = options.env.find("PATH");
  run.path = FindOnPath(name, path == options.env.end() ? "" : path->second);
  if (!run.found()) return run;
  const int64_t seconds = std::max<int64_t>(1, absl::ToInt64Seconds(options.bound));
  std::vector<std::string> argv = {
      "/bin/sh", "-c",
      absl::StrCat("timeout -k 2 ", seconds, " \"$0\" \"$@\" 2>&1; echo \"gh-doctor-exit=$?\""), run.path};
  argv.insert(argv.end(), args.begin(), args.end());
  absl::StatusOr<std::string> text = RunBoundedCommand(argv, absl::Seconds(seconds + 5));
  const std::string no_answer = absl::StrCat(name, " gave no answer within ", seconds, "s");
  if (!text.ok()) {
    run.output = no_answer;
    return run;
  }
  std::string out = *std::move(text);
  const size_t marker = out.rfind("gh-doctor-exit=");
  if (marker == std::string::npos || !absl::SimpleAtoi(absl::StripAsciiWhitespace(
                                              absl::string_view(out).substr(marker + 15)),
                                          &run.exit_code)) {
    run.exit_code = -1;
  }
  if (marker != std::string::npos) out.resize(marker);
  run.output = std::string(absl::StripTrailingAsciiWhitespace(out));
  if (run.exit_code == 124 || run.exit_code == 137) {  // timeout(1) ended it
    run.exit_code = -1;
    run.output = no_answer;
  }
  return run;
}

// The cores among the CPUs this process may use: (package, core) pairs from sysfs, so that two
// hyperthreads of a core count once, as Open MPI counts slots; the CPU count where sysfs says
// nothing.
int CoresAvailable() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) {
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<int>(n) : 1;
  }
  std::set<std::pair<int, int>> cores;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    const std::string topology = absl::StrCat("/sys/devices/system/cpu/cpu", cpu, "/topology/");
    int package = -1, core = -1;
    std::ifstream(topology + "physical_package_id") >> package;
    std::ifstream(topology + "core_id") >> core;
    cores.insert(core < 0 ? std::make_pair(-1, cpu) : std::make_pair(package, core));
  }
  return cores.empty() ? CPU_COUNT(&set) : static_cast<int>(cores.size());
}

// Whether a file can be made in `dir`: one is, and removed ("" then; why not otherwise).
std::string WriteProblem(const std::string& dir) {
  std::string probe = absl::StrCat(dir, "/.gpuharness-doctor-XXXXXX");
  const int fd = mkstemp(probe.data());
  if (fd < 0) return absl::StrCat("cannot write in ", dir, ": ", std::strerror(errno));
  close(fd);
  unlink(probe.c_str());
  return "";
}

// "" when a file can be written in `root` or, where it does not exist yet, in its nearest
// existing parent (so that it can be made); otherwise why not.
std::string ResultsProblem(const std::string& root) {
  if (root.empty()) return "no results directory given";
  std::string existing = root;
  struct stat st;
  while (stat(existing.c_str(), &st) != 0) {
    const size_t slash = existing.find_last_of('/');
    existing = slash == std::string::npos ? "." : slash == 0 ? "/" : existing.substr(0, slash);
  }
  if (!S_ISDIR(st.st_mode)) {
    return existing == root ? absl::StrCat(root, " exists and is not a directory")
                            : absl::StrCat("cannot create ", root, ": ", existing, " is not a directory");
  }
  const std::string problem = WriteProblem(existing);
  if (problem.empty() || existing == root) return problem;
  return absl::StrCat("cannot create ", root, ": ", problem);
}

std::string LibraryPathOf(void* symbol) {
  Dl_info info{};
  if (symbol == nullptr || dladdr(symbol, &info) == 0 || info.dli_fname == nullptr) return "";
  char resolved[4096];
  return realpath(info.dli_fname, resolved) != nullptr ? resolved : info.dli_fname;
}

}  // namespace

std::map<std::string, std::string> CurrentEnvironmentMap() {
  std::map<std::string, std::string> env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const size_t eq = text.find('=');
    if (eq != std::string::npos) env[text.substr(0, eq)] = text.substr(eq + 1);
  }
  return env;
}

std::string FindOnPath(const std::string& name, const std::string& path_list) {
  if (absl::StrContains(name, "/")) return IsExecutableFile(name) ? name : "";
  for (absl::string_view dir : absl::StrSplit(path_list, ':', absl::SkipEmpty())) {
    const std::string candidate = absl::StrCat(dir, "/", name);
    if (IsExecutableFile(candidate)) return candidate;
  }
  return "";
}

LoadedLibraries ProbeLoadedLibraries() {
  LoadedLibraries libs;
  // The C entry points of the libraries this binary links (none in a CPU-only build): no CUDA
  // or NCCL header here, and a call that creates no context.
  using IntOut = int (*)(int*);
  if (auto get = reinterpret_cast<IntOut>(dlsym(RTLD_DEFAULT, "cudaRuntimeGetVersion"))) {
    get(&libs.cuda_runtime);
    libs.cuda_runtime_path = LibraryPathOf(reinterpret_cast<void*>(get));
  }
  if (auto get = reinterpret_cast<IntOut>(dlsym(RTLD_DEFAULT, "cudaDriverGetVersion"))) {
    get(&libs.cuda_driver);
  }
  if (auto get = reinterpret_cast<IntOut>(dlsym(RTLD_DEFAULT, "ncclGetVersion"))) {
    get(&libs.nccl);
    libs.nccl_path = LibraryPathOf(reinterpret_cast<void*>(get));
  }
  // NVML, as environment.json's clocks read it (runtime/cuda_resources).
  if (void* nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL)) {
    using NoArgs = int (*)();
    auto init = reinterpret_cast<NoArgs>(dlsym(nvml, "nvmlInit_v2"));
    auto shutdown = reinterpret_cast<NoArgs>(dlsym(nvml, "nvmlShutdown"));
    const int rc = init != nullptr ? init() : -1;
    libs.nvml_loads = rc == 0;
    if (rc != 0) libs.nvml_error = absl::StrCat("nvmlInit failed (", rc, ")");
    if (rc == 0 && shutdown != nullptr) shutdown();
    dlclose(nvml);
  } else {
    const char* why = dlerror();
    libs.nvml_error = why != nullptr ? why : "libnvidia-ml.so.1 not found";
  }
  return libs;
}

MachineFacts ProbeMachine(const ProbeOptions& options) {
  MachineFacts facts;
  facts.env = options.env;
  facts.uid = static_cast<int>(getuid());
  facts.cores = CoresAvailable();
  facts.mpirun = RunTool("mpirun", {"--version"}, options);
  facts.srun = RunTool("srun", {"--version"}, options);
  if (facts.srun.found()) facts.srun_mpi_list = RunTool("srun", {"--mpi=list"}, options);
  facts.nvidia_smi = RunTool(
      "nvidia-smi", {absl::StrCat("--query-gpu=", kNvidiaSmiQuery), "--format=csv,noheader,nounits"}, options);
  facts.python = RunTool("python3", {"--version"}, options);
  facts.py_spy = RunTool("py-spy", {"--version"}, options);
  std::ifstream scope(options.ptrace_scope_file);
  if (!(scope >> facts.ptrace_scope)) facts.ptrace_scope = -1;
  facts.libraries = options.libraries ? options.libraries() : ProbeLoadedLibraries();
  facts.data_dir = options.data_dir.empty() ? ShippedDataDir() : options.data_dir;
  for (const EnumName<ShippedKind>& kind : EnumNames(ShippedKind{})) {
    if (!IsDirectory(absl::StrCat(facts.data_dir, "/", std::string(kind.name)))) facts.data_missing.emplace_back(kind.name);
  }
  facts.results_root = options.results_root;
  facts.results_problem = ResultsProblem(options.results_root);
  return facts;
}

}  // namespace gh
