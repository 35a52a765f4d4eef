#include "harness/report/comparison_record.h"

#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "harness/core/file_util.h"
#include "harness/core/stable_hash.h"
#include "harness/core/state_json.h"
#include "harness/core/status_macros.h"

namespace gh {
namespace {

namespace fs = std::filesystem;

fs::path Absolute(const std::string& dir) {
  std::error_code error;
  fs::path path = fs::weakly_canonical(fs::absolute(dir, error), error).lexically_normal();
  if (!path.has_filename()) path = path.parent_path();  // "dir/" names dir
  return path;
}

// The records a directory holds: how many lines and the hash of its records.jsonl.
absl::StatusOr<std::pair<int, std::string>> RecordsOf(const std::string& dir) {
  absl::StatusOr<std::string> text = ReadFileToString(dir + "/records.jsonl");
  if (!text.ok()) return text.status();
  int lines = 0;
  for (char c : *text) lines += c == '\n';
  return std::make_pair(lines, StableHash(*text));
}

bool IsDirectory(const std::string& path) {
  std::error_code error;
  return !path.empty() && fs::is_directory(path, error);
}

}  // namespace

nlohmann::json ComparisonRecord::ToJson() const {
  nlohmann::json out = {{"schema_version", kComparisonRecordSchemaVersion}};
  if (baseline) {
    out["baseline"] = {{"dir", baseline->relative},
                       {"absolute", baseline->absolute},
                       {"records", baseline->records},
                       {"records_hash", baseline->records_hash}};
  } else {
    out["baseline"] = nullptr;
  }
  out["baseline_ignore"] = ignore_axes;
  out["filter"] = filter;
  out["perf"] = {{"threshold", perf.threshold}, {"warn_only", perf.warn_only}};
  return out;
}

absl::StatusOr<ComparisonRecord> ComparisonRecord::FromJson(const nlohmann::json& json, const std::string& file) {
  const StateJson root(json, file);
  GH_RETURN_IF_ERROR(root.ExpectObject());
  GH_ASSIGN_OR_RETURN(int64_t version, root.IntOr("schema_version", 1));
  if (version > kComparisonRecordSchemaVersion) {
    return root.ErrorAt("schema_version", absl::StrCat(version, " is newer than this gpuharness reads (",
                                                       kComparisonRecordSchemaVersion, ")"));
  }
  ComparisonRecord record;
  if (root.Has("baseline")) {
    GH_ASSIGN_OR_RETURN(StateJson baseline, root.Field("baseline"));
    GH_RETURN_IF_ERROR(baseline.ExpectObject());
    BaselineIdentity identity;
    GH_ASSIGN_OR_RETURN(identity.relative, baseline.String("dir"));
    GH_ASSIGN_OR_RETURN(identity.absolute, baseline.StringOr("absolute", ""));
    GH_ASSIGN_OR_RETURN(identity.records_hash, baseline.String("records_hash"));
    GH_ASSIGN_OR_RETURN(int64_t records, baseline.Int("records"));
    if (records < 0) return baseline.ErrorAt("records", "must not be negative");
    identity.records = static_cast<int>(records);
    if (identity.relative.empty()) return baseline.ErrorAt("dir", "must not be empty");
    record.baseline = std::move(identity);
  }
  GH_ASSIGN_OR_RETURN(std::vector<std::string> axes, root.StringListOrEmpty("baseline_ignore"));
  record.ignore_axes.insert(axes.begin(), axes.end());
  GH_ASSIGN_OR_RETURN(record.filter, root.StringOr("filter", ""));
  if (root.Has("perf")) {
    GH_ASSIGN_OR_RETURN(StateJson perf, root.Field("perf"));
    GH_RETURN_IF_ERROR(perf.ExpectObject());
    GH_ASSIGN_OR_RETURN(record.perf.threshold, perf.NumberOr("threshold", record.perf.threshold));
    if (!(record.perf.threshold > 0 && record.perf.threshold < 1)) {
      return perf.ErrorAt("threshold", "must be a fraction above 0 and below 1 (--perf-threshold 5% is 0.05)");
    }
    GH_ASSIGN_OR_RETURN(record.perf.warn_only, perf.BoolOr("warn_only", false));
  }
  return record;
}

absl::StatusOr<BaselineIdentity> IdentifyBaseline(const std::string& baseline_dir, const std::string& results_dir) {
  absl::StatusOr<std::pair<int, std::string>> records = RecordsOf(baseline_dir);
  if (!records.ok()) return absl::InvalidArgumentError(std::string(records.status().message()));
  BaselineIdentity identity;
  const fs::path baseline = Absolute(baseline_dir);
  identity.absolute = baseline.string();
  identity.relative = baseline.lexically_relative(Absolute(results_dir)).string();
  if (identity.relative.empty()) identity.relative = identity.absolute;
  std::tie(identity.records, identity.records_hash) = *records;
  return identity;
}

BaselineIdentity RebasedBaseline(BaselineIdentity identity, const std::string& from_dir, const std::string& to_dir) {
  if (fs::path(identity.relative).is_absolute()) return identity;
  const fs::path where = (Absolute(from_dir) / identity.relative).lexically_normal();
  identity.relative = where.lexically_relative(Absolute(to_dir)).string();
  if (identity.relative.empty()) identity.relative = where.string();
  return identity;
}

LocatedBaseline LocateBaseline(const BaselineIdentity& identity, const std::string& results_dir) {
  LocatedBaseline located;
  const std::string relative =
      fs::path(identity.relative).is_absolute() ? identity.relative : (fs::path(results_dir) / identity.relative).string();
  const std::string where = identity.absolute.empty() || identity.absolute == identity.relative
                                ? identity.relative
                                : absl::StrCat(identity.relative, " (", identity.absolute, ")");
  for (const std::string& dir : {relative, identity.absolute}) {
    if (!IsDirectory(dir)) continue;
    located.dir = fs::path(dir).lexically_normal().string();
    absl::StatusOr<std::pair<int, std::string>> records = RecordsOf(dir);
    if (records.ok() && records->second == identity.records_hash) {
      located.state = LocatedBaseline::State::kSame;
      return located;
    }
    located.state = LocatedBaseline::State::kChanged;
    located.problem =
        records.ok()
            ? absl::StrCat(located.dir, " holds other records than when the comparison was recorded (now ",
                           records->first, ", hash ", records->second, "; then ", identity.records, ", hash ",
                           identity.records_hash, ")")
            : absl::StrCat(located.dir, " is no longer a results directory: ", records.status().message());
    return located;
  }
  located.problem = absl::StrCat(where, " is gone: moved or removed since the comparison was recorded");
  return located;
}

absl::StatusOr<std::optional<ComparisonRecord>> ReadComparisonRecord(const std::string& results_dir) {
  const std::string path = absl::StrCat(results_dir, "/", kComparisonRecordFile);
  std::error_code error;
  if (!fs::exists(path, error)) return std::optional<ComparisonRecord>();
  GH_ASSIGN_OR_RETURN(nlohmann::json json, ParseStateFile(path));
  GH_ASSIGN_OR_RETURN(ComparisonRecord record, ComparisonRecord::FromJson(json, path));
  return std::optional<ComparisonRecord>(std::move(record));
}

}  // namespace gh
