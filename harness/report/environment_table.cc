#include "harness/report/environment_table.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace gh {
namespace {

using nlohmann::json;

std::string StringField(const json& object, const char* name) {
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  return it->dump();
}

// "8× NVIDIA H200 (sm 9.0)"; several kinds joined with ", ".
std::string GpuText(const json& fingerprint) {
  auto it = fingerprint.find("gpus");
  if (it == fingerprint.end() || !it->is_array() || it->empty()) return "";
  std::vector<std::pair<std::string, int>> kinds;
  for (const json& gpu : *it) {
    if (!gpu.is_object()) continue;
    std::string name = StringField(gpu, "name");
    std::string sm = StringField(gpu, "sm");
    if (!sm.empty()) absl::StrAppend(&name, " (sm ", sm, ")");
    auto found = std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == name; });
    if (found == kinds.end()) {
      kinds.push_back({name, 1});
    } else {
      ++found->second;
    }
  }
  std::vector<std::string> parts;
  for (const auto& [name, count] : kinds) parts.push_back(count == 1 ? name : absl::StrCat(count, "× ", name));
  std::string text = absl::StrJoin(parts, ", ");
  if (auto shared = fingerprint.find("gpu_shared"); shared != fingerprint.end() && shared->is_boolean() &&
                                                    shared->get<bool>()) {
    absl::StrAppend(&text, ", shared by ranks");
  }
  return text;
}

std::string NcclText(const json& fingerprint) {
  std::string runtime = StringField(fingerprint, "nccl_runtime");
  std::string compiled = StringField(fingerprint, "nccl_compiled");
  if (runtime.empty()) return compiled.empty() ? "" : absl::StrCat("built with ", compiled);
  if (!compiled.empty() && compiled != runtime) absl::StrAppend(&runtime, " (built with ", compiled, ")");
  return runtime;
}

// "Open MPI v4.1.6, package: ..." -> "Open MPI v4.1.6".
std::string MpiText(const json& fingerprint) {
  std::string text = StringField(fingerprint, "mpi_library");
  return text.substr(0, text.find_first_of(",\n"));
}

std::string HostsText(const json& fingerprint) {
  auto it = fingerprint.find("hosts");
  if (it == fingerprint.end() || !it->is_array()) return "";
  std::vector<std::string> hosts;
  for (const json& host : *it) {
    if (!host.is_string()) continue;
    std::string name = host.get<std::string>();
    if (std::find(hosts.begin(), hosts.end(), name) == hosts.end()) hosts.push_back(name);
  }
  return absl::StrJoin(hosts, ", ");
}

struct Fact {
  const char* header;
  std::string (*extract)(const json&);
};

const Fact kFacts[] = {
    {"GPU", GpuText},
    {"driver", [](const json& f) { return StringField(f, "driver_version"); }},
    {"CUDA driver API", [](const json& f) { return StringField(f, "cuda_driver_api"); }},
    {"CUDA runtime", [](const json& f) { return StringField(f, "cuda_runtime"); }},
    {"NCCL", NcclText},
    {"MPI", MpiText},
    {"backend", [](const json& f) { return StringField(f, "backend"); }},
    {"ranks", [](const json& f) { return StringField(f, "nranks"); }},
    {"hosts", HostsText},
    {"harness", [](const json& f) { return StringField(f, "harness_version"); }},
};

// Variables the launcher sets to wire up each job (Open MPI's job ids, URIs, session dirs) and
// Terraform's TF_CLI_* (caught by the TF_ prefix meant for TensorFlow): they differ on every
// run and say nothing about the configuration under test, so reports leave them out.
bool IsLauncherPlumbing(const std::string& name) {
  for (const char* prefix : {"OMPI_MCA_orte_", "OMPI_MCA_ess", "OMPI_MCA_pmix", "OMPI_MCA_initial_wdir",
                             "OMPI_MCA_shmem_", "OMPI_COMM_WORLD_", "OMPI_UNIVERSE_", "OMPI_FIRST_RANKS",
                             "OMPI_APP_CTX_", "OMPI_FILE_LOCATION", "OMPI_ARGV", "OMPI_COMMAND", "TF_CLI_"}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

std::map<std::string, std::string> EnvVars(const json& fingerprint) {
  std::map<std::string, std::string> vars;
  auto it = fingerprint.find("env");
  if (it == fingerprint.end() || !it->is_object()) return vars;
  for (const auto& [name, value] : it->items()) {
    if (IsLauncherPlumbing(name)) continue;
    vars[name] = value.is_string() ? value.get<std::string>() : value.dump();
  }
  return vars;
}

std::string RowLabel(const LabeledEnvironment& environment) {
  return environment.label.empty() ? "run" : environment.label;
}

}  // namespace

EnvironmentTable SummarizeEnvironments(const std::vector<LabeledEnvironment>& environments) {
  EnvironmentTable table;
  if (environments.empty()) return table;
  std::vector<std::vector<std::string>> values(environments.size());
  table.headers.push_back("cell");
  for (const Fact& fact : kFacts) {
    std::vector<std::string> column;
    bool any = false;
    for (const LabeledEnvironment& environment : environments) {
      column.push_back(environment.fingerprint.is_object() ? fact.extract(environment.fingerprint) : "");
      any = any || !column.back().empty();
    }
    if (!any) continue;
    table.headers.push_back(fact.header);
    for (size_t i = 0; i < environments.size(); ++i) values[i].push_back(column[i]);
  }
  bool all_agree = environments.size() > 1 &&
                   std::all_of(values.begin(), values.end(), [&](const auto& row) { return row == values[0]; });
  if (all_agree) {
    std::vector<std::string> row = {"all cells"};
    row.insert(row.end(), values[0].begin(), values[0].end());
    table.rows.push_back(row);
  } else {
    for (size_t i = 0; i < environments.size(); ++i) {
      std::vector<std::string> row = {RowLabel(environments[i])};
      row.insert(row.end(), values[i].begin(), values[i].end());
      table.rows.push_back(row);
    }
  }

  std::vector<std::map<std::string, std::string>> vars;
  std::set<std::string> names;
  for (const LabeledEnvironment& environment : environments) {
    vars.push_back(environment.fingerprint.is_object() ? EnvVars(environment.fingerprint)
                                                       : std::map<std::string, std::string>{});
    for (const auto& [name, value] : vars.back()) names.insert(name);
  }
  std::vector<std::string> varying;
  for (const std::string& name : names) {
    auto first = vars[0].find(name);
    bool common = first != vars[0].end() && std::all_of(vars.begin(), vars.end(), [&](const auto& v) {
                    auto it = v.find(name);
                    return it != v.end() && it->second == first->second;
                  });
    if (common) {
      table.common_env.push_back({name, first->second});
    } else {
      varying.push_back(name);
    }
  }
  if (!varying.empty()) {
    table.varying_env_headers.push_back("cell");
    table.varying_env_headers.insert(table.varying_env_headers.end(), varying.begin(), varying.end());
    for (size_t i = 0; i < environments.size(); ++i) {
      std::vector<std::string> row = {RowLabel(environments[i])};
      for (const std::string& name : varying) {
        auto it = vars[i].find(name);
        row.push_back(it == vars[i].end() ? "(unset)" : it->second);
      }
      table.varying_env_rows.push_back(row);
    }
  }
  return table;
}

std::vector<std::string> DistinctFactValues(const std::vector<LabeledEnvironment>& environments,
                                            std::string_view header) {
  std::vector<std::string> values;
  for (const Fact& fact : kFacts) {
    if (header != fact.header) continue;
    for (const LabeledEnvironment& environment : environments) {
      if (!environment.fingerprint.is_object()) continue;
      const std::string text = fact.extract(environment.fingerprint);
      std::vector<std::string> parts = {text};
      if (header == "hosts") parts = absl::StrSplit(text, ", ", absl::SkipEmpty());
      for (const std::string& part : parts) {
        if (!part.empty() && std::find(values.begin(), values.end(), part) == values.end()) values.push_back(part);
      }
    }
  }
  return values;
}

std::vector<EnvironmentSection> EnvironmentSections(const EnvironmentTable& table) {
  std::vector<EnvironmentSection> sections;
  if (table.empty()) return sections;
  sections.push_back({"", table.headers, table.rows});
  if (!table.common_env.empty()) {
    EnvironmentSection common{"Variables in force:", {"variable", "value"}, {}};
    for (const auto& [name, value] : table.common_env) common.rows.push_back({name, value});
    sections.push_back(std::move(common));
  }
  if (!table.varying_env_rows.empty()) {
    sections.push_back({"Variables that differ between cells:", table.varying_env_headers,
                        table.varying_env_rows});
  }
  return sections;
}

std::vector<EnvironmentSection> EnvironmentSections(
    const std::vector<LabeledEnvironment>& environments) {
  return EnvironmentSections(SummarizeEnvironments(environments));
}

}  // namespace gh
