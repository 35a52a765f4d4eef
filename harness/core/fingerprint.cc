#include "harness/core/fingerprint.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace gh {

nlohmann::json EnvironmentFingerprint::ToJson() const {
  nlohmann::json gpu_list = nlohmann::json::array();
  for (const GpuInfo& gpu : gpus) {
    gpu_list.push_back({{"ordinal", gpu.ordinal},
                        {"name", gpu.name},
                        {"pci_bus_id", gpu.pci_bus_id},
                        {"sm", absl::StrCat(gpu.sm_major, ".", gpu.sm_minor)},
                        {"memory_bytes", gpu.memory_bytes}});
  }
  nlohmann::json env_object = nlohmann::json::object();
  for (const auto& [name, value] : env) env_object[name] = value;
  return nlohmann::json{
      {"harness_version", harness_version},
      {"backend", backend},
      {"nranks", nranks},
      {"hosts", hosts},
      {"local_ranks", local_ranks},
      {"devices", devices},
      {"gpu_shared", gpu_shared},
      {"gpus", gpu_list},
      {"driver_version", driver_version},
      {"cuda_driver_api", cuda_driver_api},
      {"cuda_runtime", cuda_runtime},
      {"nccl_runtime", nccl_runtime},
      {"nccl_compiled", nccl_compiled},
      {"mpi_library", mpi_library},
      {"env", env_object},
      {"started_at", started_at},
  };
}

EnvironmentFacts EnvironmentFingerprint::Facts() const {
  EnvironmentFacts facts;
  facts.values["backend"] = backend;
  facts.values["nranks"] = absl::StrCat(nranks);
  facts.values["gpu_shared"] = gpu_shared ? "true" : "false";
  if (!nccl_runtime.empty()) facts.values["nccl_version"] = nccl_runtime;
  for (const auto& [name, value] : env) facts.values[absl::StrCat("env.", name)] = value;
  return facts;
}

bool IsFingerprintedEnvVar(std::string_view name) {
  static constexpr std::string_view kPrefixes[] = {"NCCL_", "CUDA_", "XLA_",      "NVIDIA_",
                                                   "TF_",   "UCX_",  "OMPI_MCA_", "GH_"};
  for (std::string_view prefix : kPrefixes) {
    if (absl::StartsWith(absl::string_view(name.data(), name.size()), absl::string_view(prefix.data(), prefix.size()))) return true;
  }
  return false;
}

}  // namespace gh
