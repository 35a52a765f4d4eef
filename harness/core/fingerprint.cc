#include "harness/core/fingerprint.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

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
                        {"memory_bytes", gpu.memory_bytes},
                        {"sm_clock_mhz", gpu.sm_clock_mhz},
                        {"mem_clock_mhz", gpu.mem_clock_mhz},
                        {"sm_clock_max_mhz", gpu.sm_clock_max_mhz},
                        {"mem_clock_max_mhz", gpu.mem_clock_max_mhz}});
  }
  nlohmann::json env_object = nlohmann::json::object();
  for (const auto& [name, value] : env) env_object[name] = value;
  nlohmann::json json{
      {"harness_version", harness_version},
      {"build", BuildInfoJson(build)},
      {"backend", backend},
      {"nranks", nranks},
      {"hosts", hosts},
      {"local_ranks", local_ranks},
      {"devices", devices},
      {"gpu_shared", gpu_shared},
      {"gpus", gpu_list},
      {"cpu_model", cpu_model},
      {"driver_version", driver_version},
      {"cuda_driver_api", cuda_driver_api},
      {"cuda_runtime", cuda_runtime},
      {"nccl_runtime", nccl_runtime},
      {"nccl_compiled", nccl_compiled},
      {"mpi_library", mpi_library},
      {"env", env_object},
      {"started_at", started_at},
  };
  if (!nccl_device_api.build.empty()) {
    json["nccl_device_api"] = {{"build", nccl_device_api.build},
                               {"nccl_headers", nccl_device_api.nccl_headers},
                               {"plugin", nccl_device_api.plugin}};
  }
  return json;
}

EnvironmentFacts EnvironmentFingerprint::Facts() const {
  EnvironmentFacts facts;
  facts.values["backend"] = backend;
  facts.values["nranks"] = absl::StrCat(nranks);
  facts.values["gpu_shared"] = gpu_shared ? "true" : "false";
  // Distinct hosts of the ranks: reference floors (core/reference_floors.h) are per node count.
  if (!hosts.empty()) {
    facts.values["nodes"] = absl::StrCat(std::set<std::string>(hosts.begin(), hosts.end()).size());
  }
  // The most ranks driving one GPU (same host, same device): what a shared GPU's skip names.
  std::map<std::pair<std::string, int>, int> ranks_on_gpu;
  for (size_t r = 0; r < devices.size() && r < hosts.size(); ++r) {
    if (devices[r] >= 0) ++ranks_on_gpu[{hosts[r], devices[r]}];
  }
  int most = 0;
  for (const auto& [gpu_of_host, ranks] : ranks_on_gpu) most = std::max(most, ranks);
  if (most > 0) facts.values["ranks_per_gpu"] = absl::StrCat(most);
  if (!nccl_runtime.empty()) facts.values["nccl_version"] = nccl_runtime;
  for (const auto& [name, value] : env) facts.values[absl::StrCat("env.", name)] = value;
  // Rank 0's GPU: the one its device ordinal names, else the node's first.
  const GpuInfo* gpu = gpus.empty() ? nullptr : &gpus.front();
  for (const GpuInfo& candidate : gpus) {
    if (!devices.empty() && candidate.ordinal == devices.front()) gpu = &candidate;
  }
  if (backend != "host" && gpu != nullptr && !gpu->name.empty()) {
    facts.values["gpu"] = gpu->name;
    facts.values["hardware"] = gpu->name;
  } else if (backend == "host" && !cpu_model.empty()) {
    facts.values["hardware"] = absl::StrCat("cpu: ", cpu_model);
  }
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
  if (auto it = json.find("cpu_model"); it != json.end()) {
    if (!it->is_string()) return wrong("cpu_model", "a string");
    fp.cpu_model = it->get<std::string>();
  }
  if (auto it = json.find("hosts"); it != json.end()) {
    if (!it->is_array()) return wrong("hosts", "an array of strings");
    for (const auto& host : *it) {
      if (!host.is_string()) return wrong("hosts", "an array of strings");
      fp.hosts.push_back(host.get<std::string>());
    }
  }
  if (auto it = json.find("devices"); it != json.end()) {
    if (!it->is_array()) return wrong("devices", "an array of integers");
    for (const auto& device : *it) {
      if (!device.is_number_integer()) return wrong("devices", "an array of integers");
      fp.devices.push_back(device.get<int>());
    }
  }
  if (auto it = json.find("gpus"); it != json.end()) {
    if (!it->is_array()) return wrong("gpus", "an array");
    for (size_t i = 0; i < it->size(); ++i) {
      const auto& entry = (*it)[i];
      GpuInfo gpu;
      if (!entry.is_object()) return wrong(absl::StrCat("gpus[", i, "]"), "an object");
      if (auto name = entry.find("name"); name != entry.end()) {
        if (!name->is_string()) return wrong(absl::StrCat("gpus[", i, "].name"), "a string");
        gpu.name = name->get<std::string>();
      }
      if (auto ordinal = entry.find("ordinal"); ordinal != entry.end()) {
        if (!ordinal->is_number_integer()) return wrong(absl::StrCat("gpus[", i, "].ordinal"), "an integer");
        gpu.ordinal = ordinal->get<int>();
      }
      fp.gpus.push_back(std::move(gpu));
    }
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
  static constexpr std::string_view kPrefixes[] = {"NCCL_", "CUDA_", "XLA_",      "JAX_", "NVIDIA_",
                                                   "TF_",   "UCX_",  "OMPI_MCA_", "GH_"};
  if (name == "PYTHONPATH") return true;
  for (std::string_view prefix : kPrefixes) {
    if (absl::StartsWith(absl::string_view(name.data(), name.size()), absl::string_view(prefix.data(), prefix.size()))) return true;
  }
  return false;
}

bool IsReproducedEnvVar(std::string_view name) {
  // Set per job by mpirun (OMPI_MCA_orte_hnp_uri would point a new mpirun at a dead one), by the
  // harness itself, or by the sweep's allocation of GPUs on its machine.
  if (absl::StartsWith(absl::string_view(name.data(), name.size()), "OMPI_MCA_") ||
      absl::StartsWith(absl::string_view(name.data(), name.size()), "GH_") || name == "CUDA_VISIBLE_DEVICES") {
    return false;
  }
  return IsFingerprintedEnvVar(name);
}

}  // namespace gh
