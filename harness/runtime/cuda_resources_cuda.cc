#include "harness/runtime/cuda_resources.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <nccl.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/core/file_util.h"
#include "harness/runtime/cuda_errors_cuda.h"
#include "harness/runtime/nccl_device_plugin.h"
#include "harness/runtime/nvml_clocks.h"

namespace gh {
namespace {

absl::Status MpiStatus(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return absl::OkStatus();
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  return absl::InternalError(absl::StrCat(call, ": ", std::string(text, length)));
}

// NVML through dlopen: the driver's library is present wherever a driver is, and linking it
// would make the binary unloadable on machines without one.
std::string DriverVersionFromNvml() {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return "";
  using InitFn = int (*)();
  using VersionFn = int (*)(char*, unsigned int);
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "nvmlInit_v2"));
  auto get_version = reinterpret_cast<VersionFn>(dlsym(lib, "nvmlSystemGetDriverVersion"));
  auto shutdown = reinterpret_cast<InitFn>(dlsym(lib, "nvmlShutdown"));
  std::string version;
  if (init != nullptr && get_version != nullptr && shutdown != nullptr && init() == 0) {
    char buffer[96] = {};
    if (get_version(buffer, sizeof(buffer)) == 0) version = buffer;
    shutdown();
  }
  dlclose(lib);
  return version;
}

std::string DriverVersionFromProc() {
  absl::StatusOr<std::string> version = ReadFileToString("/proc/driver/nvidia/version");
  return version.ok() ? ParseProcDriverVersion(*version) : "";
}

}  // namespace

std::string FormatNcclVersionCode(int code) {
  // NCCL_VERSION(X,Y,Z) is X*10000+Y*100+Z from 2.9 on, X*1000+Y*100+Z before.
  int major, minor, patch;
  if (code >= 10000) {
    major = code / 10000, minor = (code % 10000) / 100, patch = code % 100;
  } else {
    major = code / 1000, minor = (code % 1000) / 100, patch = code % 100;
  }
  return absl::StrCat(major, ".", minor, ".", patch);
}

std::string FormatCudaVersion(int version) {
  return absl::StrCat(version / 1000, ".", (version % 1000) / 10);
}

std::string ParseProcDriverVersion(std::string_view text) {
  // The first whitespace-separated token shaped like digits.digits[.digits] after "Module".
  size_t start = text.find("Module");
  if (start == std::string_view::npos) start = 0;
  std::string token;
  std::istringstream words{std::string(text.substr(start))};
  while (words >> token) {
    bool digits_and_dots = !token.empty() && std::isdigit(static_cast<unsigned char>(token[0]));
    int dots = 0;
    for (char c : token) {
      if (c == '.') ++dots;
      else if (!std::isdigit(static_cast<unsigned char>(c))) digits_and_dots = false;
    }
    if (digits_and_dots && dots >= 1) return token;
  }
  return "";
}

int VisibleGpuCount(std::string* why_none) {
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    cudaGetLastError();  // not sticky; leave no trace for later calls
    if (why_none != nullptr) *why_none = CudaErrorSignature(error);
    return 0;
  }
  if (count == 0 && why_none != nullptr) *why_none = "no CUDA device";
  return count;
}

absl::StatusOr<std::unique_ptr<CudaResources>> CudaResources::Create(int device, MPI_Comm comm) {
  std::unique_ptr<CudaResources> res(new CudaResources());
  res->device_ = device;
  absl::Status local = [&]() -> absl::Status {
    GH_CUDA_RETURN_IF_ERROR(cudaSetDevice(device));
    GH_CUDA_RETURN_IF_ERROR(cudaFree(nullptr));  // create the context now, not inside a point
    GH_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&res->stream_, cudaStreamNonBlocking));
    // A device-API plugin the version's activation names, checked before any point needs it.
    return LoadNcclDevicePluginFromEnvironment();
  }();
  // Agree before NCCL init: a rank that failed here must not leave the others blocked in
  // ncclCommInitRank waiting for it.
  int ok = local.ok() ? 1 : 0, all_ok = 0;
  absl::Status agreed =
      MpiStatus(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (!local.ok()) return local;
  if (!agreed.ok()) return agreed;
  if (all_ok == 0) return absl::InternalError("CUDA setup failed on another rank");
  absl::Status nccl = res->InitNccl(comm);
  if (!nccl.ok()) return nccl;
  return res;
}

absl::Status CudaResources::InitNccl(MPI_Comm comm) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  struct {
    ncclUniqueId id;
    int ok;
  } message = {};
  ncclResult_t id_result = ncclSuccess;
  if (rank == 0) {
    id_result = ncclGetUniqueId(&message.id);
    message.ok = id_result == ncclSuccess ? 1 : 0;
  }
  // Rank 0 always broadcasts, so that its failure reaches every rank instead of a hang.
  absl::Status sent =
      MpiStatus(MPI_Bcast(&message, sizeof(message), MPI_BYTE, 0, comm), "MPI_Bcast");
  if (!sent.ok()) return sent;
  if (message.ok == 0) {
    if (rank == 0) return NcclStatus(id_result, nullptr, "ncclGetUniqueId", GH_CUDA_WHERE);
    return absl::InternalError("rank 0 could not create the NCCL unique id");
  }
  GH_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
  ncclComm_t created = nullptr;
  ncclResult_t result = ncclCommInitRank(&created, nranks, message.id, rank);
  if (result != ncclSuccess) {
    absl::Status status = NcclStatus(result, created, "ncclCommInitRank", GH_CUDA_WHERE);
    if (created != nullptr) ncclCommAbort(created);
    return status;
  }
  std::lock_guard<std::mutex> lock(nccl_mu_);
  nccl_.store(created);
  aborted_.store(false);
  return absl::OkStatus();
}

CudaResources::~CudaResources() {
  ncclComm_t comm = nullptr;
  {
    std::lock_guard<std::mutex> lock(nccl_mu_);
    comm = nccl_.exchange(nullptr);
  }
  if (comm != nullptr) {
    cudaSetDevice(device_);
    // Finalize flushes outstanding work; if that fails, abort frees without waiting.
    if (ncclCommFinalize(comm) != ncclSuccess || ncclCommDestroy(comm) != ncclSuccess) {
      ncclCommAbort(comm);
    }
  }
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

void CudaResources::AbortFromWatchdog() {
  std::lock_guard<std::mutex> lock(nccl_mu_);
  if (nccl_.load() == nullptr) return;
  aborted_.store(true);  // first, so that waiters see why the communicator is gone
  ncclComm_t comm = nccl_.exchange(nullptr);
  cudaSetDevice(device_);  // the watchdog thread's current device may be another one
  ncclResult_t result = ncclCommAbort(comm);
  if (result != ncclSuccess) {
    std::fprintf(stderr, "gpuharness: ncclCommAbort from the watchdog: %s\n",
                 NcclErrorSignature(result, nullptr).c_str());
  }
}

absl::Status CudaResources::Recreate(MPI_Comm comm) {
  ncclComm_t old = nullptr;
  {
    std::lock_guard<std::mutex> lock(nccl_mu_);
    old = nccl_.exchange(nullptr);
  }
  absl::Status device = [&]() -> absl::Status {
    GH_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
    // Abort rather than destroy: after an error the old communicator may have work that never
    // completes, and destroy would wait for it.
    if (old != nullptr) ncclCommAbort(old);
    // A sticky CUDA error (a faulted kernel) leaves the context unusable: report it, since no
    // new communicator can fix that.
    GH_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
    return absl::OkStatus();
  }();
  // ncclCommInitRank waits for every rank, and a rank whose context is lost never comes: every
  // rank learns first which ranks can go on (one rank's illegal address hung the others here).
  int nranks = 1;
  MPI_Comm_size(comm, &nranks);
  const int mine = device.ok() ? 1 : 0;
  std::vector<int> usable(static_cast<size_t>(nranks), 0);
  if (absl::Status gathered = MpiStatus(
          MPI_Allgather(&mine, 1, MPI_INT, usable.data(), 1, MPI_INT, comm), "MPI_Allgather");
      !gathered.ok()) {
    return gathered;
  }
  if (!device.ok()) return device;
  std::vector<int> lost;
  for (int r = 0; r < nranks; ++r) {
    if (usable[static_cast<size_t>(r)] == 0) lost.push_back(r);
  }
  if (!lost.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        lost.size() == 1 ? "the CUDA context of rank " : "the CUDA contexts of ranks ",
        absl::StrJoin(lost, ", "), lost.size() == 1 ? " is" : " are", " lost"));
  }
  return InitNccl(comm);
}

absl::Status CudaResources::Synchronize() {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  while (true) {
    cudaError_t state = cudaStreamQuery(stream_);
    // Work the abort cut short also drains the stream: that is an abort, not a success.
    if (state == cudaSuccess && !aborted_.load()) return absl::OkStatus();
    if (state == cudaSuccess || aborted_.load()) {
      return absl::AbortedError("ncclCommAbort: communicator aborted by the watchdog");
    }
    if (state != cudaErrorNotReady) return CudaStatus(state, "cudaStreamQuery", GH_CUDA_WHERE);
    {
      std::lock_guard<std::mutex> lock(nccl_mu_);
      ncclComm_t comm = nccl_.load();
      if (comm == nullptr) {
        if (aborted_.load()) {
          return absl::AbortedError("ncclCommAbort: communicator aborted by the watchdog");
        }
        return absl::FailedPreconditionError("no NCCL communicator");
      }
      ncclResult_t async = ncclSuccess;
      ncclResult_t queried = ncclCommGetAsyncError(comm, &async);
      if (queried != ncclSuccess) {
        return NcclStatus(queried, comm, "ncclCommGetAsyncError", GH_CUDA_WHERE);
      }
      if (async != ncclSuccess && async != ncclInProgress) {
        return NcclStatus(async, comm, "asynchronous NCCL error", GH_CUDA_WHERE);
      }
    }
    // Spin briefly (short operations finish within microseconds), then back off so a long
    // transfer or a stalled peer does not burn a core.
    if (Clock::now() - start < std::chrono::milliseconds(1)) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }
}

void CudaResources::FillFingerprint(EnvironmentFingerprint& fp) const {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    count = 0;
  }
  fp.gpus.clear();
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, ordinal) != cudaSuccess) {
      cudaGetLastError();
      continue;
    }
    GpuInfo gpu;
    gpu.ordinal = ordinal;
    gpu.name = prop.name;
    char bus_id[64] = {};
    if (cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), ordinal) == cudaSuccess) {
      gpu.pci_bus_id = bus_id;
    } else {
      cudaGetLastError();
    }
    gpu.sm_major = prop.major;
    gpu.sm_minor = prop.minor;
    gpu.memory_bytes = static_cast<int64_t>(prop.totalGlobalMem);
    FillNvmlClocks(gpu);
    fp.gpus.push_back(std::move(gpu));
  }
  fp.driver_version = DriverVersionFromNvml();
  if (fp.driver_version.empty()) fp.driver_version = DriverVersionFromProc();
  int version = 0;
  if (cudaDriverGetVersion(&version) == cudaSuccess) fp.cuda_driver_api = FormatCudaVersion(version);
  if (cudaRuntimeGetVersion(&version) == cudaSuccess) fp.cuda_runtime = FormatCudaVersion(version);
  if (ncclGetVersion(&version) == ncclSuccess) fp.nccl_runtime = FormatNcclVersionCode(version);
  fp.nccl_compiled = FormatNcclVersionCode(NCCL_VERSION_CODE);
  if (const NcclDevicePlugin* plugin = ActiveNcclDevicePlugin(); plugin != nullptr) {
    fp.nccl_device_api = {"plugin", FormatNcclVersionCode(plugin->api->nccl_version_code), plugin->path};
  } else {
    fp.nccl_device_api = {"built-in", fp.nccl_compiled, ""};
  }
}

}  // namespace gh
