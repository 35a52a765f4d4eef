#include "harness/core/fingerprint.h"

#include "absl/status/status.h"
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

absl::StatusOr<EnvironmentFacts> FactsFromEnvironmentJson(const nlohmann::json& json) {
  auto wrong = [](absl::string_view key, absl::string_view expected) {
    return absl::InvalidArgumentError(absl::StrCat(key, ": expected ", expected));
  };
  if (!json.is_object()) return wrong("environment", "an object");
  EnvironmentFingerprint fp;
  auto backend = json.find("backend");
  if (backend == json.end() || !backend->is_string()) return wrong("backend", "a string");
  fp.backend = backend->get<std::string>();
  auto nranks = json.find("nranks");
  if (nranks == json.end() || !nranks->is_number_integer()) return wrong("nranks", "an integer");
  fp.nranks = nranks->get<int>();
  if (auto it = json.find("gpu_shared"); it != json.end()) {
    if (!it->is_boolean()) return wrong("gpu_shared", "true or false");
    fp.gpu_shared = it->get<bool>();
  }
  if (auto it = json.find("nccl_runtime"); it != json.end()) {
    if (!it->is_string()) return wrong("nccl_runtime", "a string");
    fp.nccl_runtime = it->get<std::string>();
  }
  if (auto it = json.find("env"); it != json.end()) {
    if (!it->is_object()) return wrong("env", "an object");
    for (const auto& [name, value] : it->items()) {
      if (!value.is_string()) return wrong(absl::StrCat("env.", name), "a string");
      fp.env[name] = value.get<std::string>();
    }
  }
  return fp.Facts();
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
