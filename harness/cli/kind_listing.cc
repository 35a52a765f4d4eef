#include "harness/cli/kind_listing.h"

#include <climits>
#include <string>
#include <variant>

namespace gh {
namespace {

nlohmann::json Bound(ParamType type, const std::optional<double>& bound) {
  if (!bound) return nullptr;
  if (type == ParamType::kFloat) return *bound;
  return static_cast<int64_t>(*bound);
}

nlohmann::json ParamJson(const ParamDef& param) {
  nlohmann::json out;
  out["name"] = param.name;
  out["type"] = std::string(ParamTypeName(param.type));
  out["default"] = std::visit([](const auto& v) { return nlohmann::json(v); }, param.default_value);
  out["choices"] = param.choices;
  out["min"] = Bound(param.type, param.min);
  out["max"] = Bound(param.type, param.max);
  out["help"] = param.help;
  return out;
}

}  // namespace

nlohmann::json KindListingJson(const std::vector<const KindInfo*>& kinds) {
  nlohmann::json list = nlohmann::json::array();
  for (const KindInfo* kind : kinds) {
    nlohmann::json k;
    k["name"] = kind->name;
    k["description"] = kind->description;
    k["backends"] = nlohmann::json::array();
    for (Backend backend : kind->backends) k["backends"].push_back(std::string(BackendName(backend)));
    k["ranks"] = {{"min", kind->ranks.min}, {"max", nullptr}};
    if (kind->ranks.max != INT_MAX) k["ranks"]["max"] = kind->ranks.max;
    k["isolate_trials"] = kind->isolate_trials;
    k["block"] = kind->block_key.empty() ? nlohmann::json(nullptr) : nlohmann::json(kind->block_key);
    k["params"] = nlohmann::json::array();
    for (const ParamDef& param : kind->params) k["params"].push_back(ParamJson(param));
    list.push_back(std::move(k));
  }
  return {{"schema_version", 2}, {"gpuharness_version", GH_VERSION}, {"kinds", std::move(list)}};
}

}  // namespace gh
