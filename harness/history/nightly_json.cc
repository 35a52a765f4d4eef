#include "harness/history/nightly_json.h"

#include "absl/strings/str_cat.h"
#include "harness/core/name_rules.h"
#include "harness/core/status_macros.h"

namespace gh {

absl::Status CheckSchemaVersion(const StateJson& root, int newest) {
  GH_ASSIGN_OR_RETURN(int64_t schema, root.IntOr("schema_version", 1));
  if (schema > newest) {
    return root.ErrorAt("schema_version", absl::StrCat(schema, " is newer than this gpuharness reads (", newest, ")"));
  }
  if (schema < 1) return root.ErrorAt("schema_version", absl::StrCat(schema, " is no version (1 is the first)"));
  return absl::OkStatus();
}

absl::StatusOr<NightlyHeadline> ReadNightlyJson(const std::string& night_dir) {
  const std::string path = absl::StrCat(night_dir, "/", kNightlyJsonFile);
  GH_ASSIGN_OR_RETURN(nlohmann::json json, ParseStateFile(path));
  const StateJson root(json, path);
  GH_RETURN_IF_ERROR(root.ExpectObject());
  GH_RETURN_IF_ERROR(CheckSchemaVersion(root, kNightlyJsonSchemaVersion));
  NightlyHeadline headline;
  GH_ASSIGN_OR_RETURN(headline.night, root.String("night"));
  if (absl::Status label = CheckLabel(headline.night); !label.ok()) return root.ErrorAt("night", label.message());
  GH_ASSIGN_OR_RETURN(headline.cluster, root.StringOr("cluster", ""));
  GH_ASSIGN_OR_RETURN(headline.version, root.StringOr("version", ""));
  GH_ASSIGN_OR_RETURN(int64_t status, root.IntOr("status", 0));
  headline.status = static_cast<int>(status);
  GH_ASSIGN_OR_RETURN(headline.good, root.BoolOr("good", false));
  return headline;
}

}  // namespace gh
