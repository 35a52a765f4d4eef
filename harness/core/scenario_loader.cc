#include "harness/core/scenario_loader.h"

#include <map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/core/file_util.h"
#include "harness/core/scenario_document.h"
#include "harness/core/status_macros.h"
#include "harness/core/yaml_fields.h"

namespace gh {

absl::StatusOr<std::vector<ScenarioSpec>> LoadScenarioText(const std::string& text,
                                                           const std::string& display_name,
                                                           const ScenarioRegistry& registry) {
  GH_ASSIGN_OR_RETURN(std::vector<YAML::Node> documents, ParseYamlDocuments(text, display_name));
  std::vector<ScenarioSpec> specs;
  std::map<std::string, SourceLoc> names;
  for (const YAML::Node& node : documents) {
    if (node.IsNull()) continue;  // an empty document, e.g. after a trailing ---
    absl::StatusOr<ScenarioSpec> spec;
    try {
      spec = LoadScenarioDocument(YamlDoc(display_name), node, registry);
    } catch (const YAML::Exception& e) {  // yaml-cpp throws on a few malformed nodes
      SourceLoc loc{display_name, e.mark.is_null() ? 1 : e.mark.line + 1,
                    e.mark.is_null() ? 1 : e.mark.column + 1};
      return absl::InvalidArgumentError(absl::StrCat(loc.ToString(), ": invalid YAML: ", e.msg));
    }
    if (!spec.ok()) return spec.status();
    auto [prev, inserted] = names.emplace(spec->name, spec->loc);
    if (!inserted) {
      return absl::InvalidArgumentError(
          absl::StrCat(spec->loc.ToString(), ": name: duplicate scenario name '", spec->name,
                       "' (first at ", prev->second.ToString(), ")"));
    }
    specs.push_back(*std::move(spec));
  }
  if (specs.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(display_name, ":1:1: scenario: the file holds no scenario"));
  }
  return specs;
}

absl::StatusOr<std::vector<ScenarioSpec>> LoadScenarioFile(const std::string& path,
                                                           const ScenarioRegistry& registry) {
  GH_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return LoadScenarioText(text, path, registry);
}

}  // namespace gh
