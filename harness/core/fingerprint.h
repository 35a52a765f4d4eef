// The environment a job ran in: written once per job as environment.json, and the source of
// EnvironmentFacts for conditional expectations. Filled by the runtime (which may ask CUDA,
// NCCL and MPI); kept here as plain data.
#ifndef GPUHARNESS_CORE_FINGERPRINT_H_
#define GPUHARNESS_CORE_FINGERPRINT_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/build_info.h"
#include "harness/core/expectation.h"
#include "nlohmann/json.hpp"

namespace gh {

struct GpuInfo {
  int ordinal = -1;
  std::string name;         // "NVIDIA H200"
  std::string pci_bus_id;
  int sm_major = 0, sm_minor = 0;
  int64_t memory_bytes = 0;
  // From NVML where it answers (0 where not): the clocks the GPU runs kernels at now (SM and
  // memory, MHz; applications clocks when set) and their maxima. Numbers from GPUs at
  // different clocks do not compare.
  int sm_clock_mhz = 0, mem_clock_mhz = 0;
  int sm_clock_max_mhz = 0, mem_clock_max_mhz = 0;
};

// Which device-API code the job's device-initiated transports ran (runtime/nccl_device_plugin.h).
struct NcclDeviceApiBuild {
  std::string build;         // "built-in" or "plugin"; "" on the host backend
  std::string nccl_headers;  // the NCCL headers it was compiled against, "2.30.7"
  std::string plugin;        // the plugin's path (GH_NCCL_DEVICE_PLUGIN), "" for built-in
};

struct EnvironmentFingerprint {
  std::string harness_version;
  BuildInfo build;                     // the binary that ran: written as "build" (core/build_info.h)
  std::string backend;                 // "host" / "cuda"
  int nranks = 1;
  std::vector<std::string> hosts;      // per rank
  std::vector<int> local_ranks;        // per rank
  std::vector<int> devices;            // per rank, -1 on host
  bool gpu_shared = false;
  std::vector<GpuInfo> gpus;           // rank 0's node
  std::string cpu_model;               // rank 0's /proc/cpuinfo "model name"
  std::string driver_version;          // "580.159.04"
  std::string cuda_driver_api;         // cudaDriverGetVersion, "13.0"
  std::string cuda_runtime;            // cudaRuntimeGetVersion
  std::string nccl_runtime;            // ncclGetVersion, "2.28.9"
  std::string nccl_compiled;           // NCCL_VERSION_CODE at build time
  NcclDeviceApiBuild nccl_device_api;  // written as an object when `build` is set
  std::string mpi_library;             // MPI_Get_library_version, first line
  std::map<std::string, std::string> env;  // NCCL_*, CUDA_*, XLA_FLAGS, OMPI_* ... in force
  std::string started_at;

  nlohmann::json ToJson() const;
  // backend, nranks, gpu_shared, ranks_per_gpu (the most ranks on one GPU), nodes (distinct hosts),
  // nccl_version, env.NAME, gpu (rank 0's GPU model) and
  // hardware (that model, or "cpu: <cpu_model>" on the host backend): what records carry.
  EnvironmentFacts Facts() const;
};

// The facts of a job read back from the environment.json it wrote (ToJson's form): the same as
// the job's own Facts(). Only the fields facts come from are read: backend and nranks (both
// required), gpu_shared, nccl_runtime, env, hosts, devices, gpus[].ordinal/name and cpu_model. A field of the wrong type is InvalidArgument
// naming it.
absl::StatusOr<EnvironmentFacts> FactsFromEnvironmentJson(const nlohmann::json& json);

// Which environment variables the fingerprint keeps: NCCL_*, CUDA_*, XLA_*, JAX_*, NVIDIA_*,
// TF_*, OMPI_MCA_*, UCX_*, GH_* and PYTHONPATH.
bool IsFingerprintedEnvVar(std::string_view name);

// Which of them a repro script sets again, as recorded: all but those set per job by the
// launcher (OMPI_MCA_*), the harness (GH_*) and the sweep's GPU allocation (CUDA_VISIBLE_DEVICES).
bool IsReproducedEnvVar(std::string_view name);

}  // namespace gh

#endif  // GPUHARNESS_CORE_FINGERPRINT_H_
