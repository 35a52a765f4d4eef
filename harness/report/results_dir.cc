#include "harness/report/results_dir.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "harness/core/comparison.h"
#include "harness/core/file_util.h"
#include "harness/core/records_file.h"
#include "harness/report/result_matrix.h"

namespace gh {
namespace {

namespace fs = std::filesystem;

bool IsRegularFile(const std::string& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

absl::StatusOr<nlohmann::json> ReadJsonFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return absl::InvalidArgumentError(std::string(text.status().message()));
  return ParseJsonText(*text, path);
}

// The cell a cell directory belongs to: the `cell` of its first record, if it has one.
std::optional<std::map<std::string, std::string>> CellOfDirectory(const std::string& cell_dir) {
  std::string records = cell_dir + "/records.jsonl";
  if (!IsRegularFile(records)) return std::nullopt;
  absl::StatusOr<RecordsFileContents> contents = ReadRecordsFile(records);
  if (!contents.ok() || contents->records.empty()) return std::nullopt;
  return contents->records.front().cell;
}

absl::Status LoadCellEnvironments(ResultsDir& results) {
  std::error_code error;
  const fs::path cells = fs::path(results.path) / "cells";
  if (!fs::is_directory(cells, error)) return absl::OkStatus();
  std::map<std::string, size_t> cell_rank;
  if (results.sweep) {
    for (const SweepCellInfo& cell : results.sweep->cells) cell_rank.try_emplace(CellKey(cell.axes), cell_rank.size());
  }
  struct Found {
    size_t rank;
    std::string dir_name;
    LabeledEnvironment environment;
  };
  std::vector<Found> found;
  for (const fs::directory_entry& entry : fs::directory_iterator(cells, error)) {
    if (!entry.is_directory(error)) continue;
    const std::string env_path = (entry.path() / "environment.json").string();
    if (!IsRegularFile(env_path)) continue;
    absl::StatusOr<nlohmann::json> json = ReadJsonFile(env_path);
    if (!json.ok()) return json.status();
    Found item{cell_rank.size(), entry.path().filename().string(), {entry.path().filename().string(), *json}};
    if (auto cell = CellOfDirectory(entry.path().string())) {
      item.environment.label = CellDisplayLabel(*cell, results.sweep ? &*results.sweep : nullptr);
      if (auto it = cell_rank.find(CellKey(*cell)); it != cell_rank.end()) item.rank = it->second;
    }
    found.push_back(std::move(item));
  }
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    return std::tie(a.rank, a.dir_name) < std::tie(b.rank, b.dir_name);
  });
  for (Found& item : found) results.environments.push_back(std::move(item.environment));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<nlohmann::json> ParseJsonText(const std::string& text, const std::string& display_name) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    // error.byte is the 1-based offset just past the offending character.
    size_t offset = error.byte == 0 ? 0 : std::min<size_t>(error.byte - 1, text.size());
    int line = 1, column = 1;
    for (size_t i = 0; i < offset; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string message = error.what();
    if (size_t at = message.find("column "); at != std::string::npos) {
      if (size_t colon = message.find(": ", at); colon != std::string::npos) message = message.substr(colon + 2);
    }
    return absl::InvalidArgumentError(absl::StrCat(display_name, ":", line, ":", column, ": invalid JSON: ", message));
  }
}

absl::StatusOr<ResultsDir> LoadResultsDir(const std::string& dir) {
  std::error_code error;
  if (!fs::exists(dir, error)) {
    return absl::InvalidArgumentError(absl::StrCat(dir, ": no such results directory"));
  }
  if (!fs::is_directory(dir, error)) {
    return absl::InvalidArgumentError(absl::StrCat(dir, ": not a directory"));
  }
  ResultsDir results;
  results.path = dir;
  const std::string records_path = dir + "/records.jsonl";
  if (!IsRegularFile(records_path)) {
    return absl::InvalidArgumentError(
        absl::StrCat(records_path, ": missing: not a results directory (gpuharness run/sweep --out writes it)"));
  }
  absl::StatusOr<RecordsFileContents> contents = ReadRecordsFile(records_path);
  if (!contents.ok()) return absl::InvalidArgumentError(std::string(contents.status().message()));
  results.records = std::move(contents->records);
  results.torn_lines = contents->torn_lines;

  const std::string sweep_path = dir + "/sweep.json";
  if (IsRegularFile(sweep_path)) {
    absl::StatusOr<nlohmann::json> json = ReadJsonFile(sweep_path);
    if (!json.ok()) return json.status();
    absl::StatusOr<SweepInfo> sweep = SweepInfo::FromJson(*json);
    if (!sweep.ok()) return absl::InvalidArgumentError(absl::StrCat(sweep_path, ": ", sweep.status().message()));
    results.sweep = std::move(*sweep);
  }
  const std::string env_path = dir + "/environment.json";
  if (IsRegularFile(env_path)) {
    absl::StatusOr<nlohmann::json> json = ReadJsonFile(env_path);
    if (!json.ok()) return json.status();
    results.environments.push_back({"", std::move(*json)});
  }
  const std::string planned_path = absl::StrCat(dir, "/", kPlannedRunsFile);
  if (IsRegularFile(planned_path)) {
    absl::StatusOr<std::string> text = ReadFileToString(planned_path);
    if (!text.ok()) return text.status();
    absl::StatusOr<std::vector<RunKey>> planned = ParseRunList(*text, planned_path);
    if (!planned.ok()) return absl::InvalidArgumentError(std::string(planned.status().message()));
    results.planned = *std::move(planned);
  }
  if (absl::Status status = LoadCellEnvironments(results); !status.ok()) return status;
  return results;
}

std::vector<RunKey> ResultsDir::UnrecordedPlannedRuns() const {
  if (!planned) return {};
  std::set<RunKey> recorded;
  for (const Record& r : records) recorded.insert(RunKey{r.point, r.trial});
  std::vector<RunKey> missing;
  for (const RunKey& run : *planned) {
    if (recorded.count(run) == 0) missing.push_back(run);
  }
  return missing;
}

std::string BaselineDisplayPath(const std::string& baseline_dir, const std::string& results_dir) {
  if (baseline_dir.empty()) return "";
  namespace fs = std::filesystem;
  std::error_code error;
  fs::path baseline = fs::weakly_canonical(fs::absolute(baseline_dir, error), error).lexically_normal();
  fs::path results = fs::weakly_canonical(fs::absolute(results_dir, error), error).lexically_normal();
  if (!baseline.has_filename()) baseline = baseline.parent_path();  // "dir/" names dir
  if (!results.has_filename()) results = results.parent_path();
  fs::path name = baseline.filename();
  fs::path relative = baseline.lexically_relative(results);
  int ups = 0, parts = 0;
  for (const fs::path& part : relative) {
    ups += part == "..";
    ++parts;
  }
  // A near neighbour ("../2026-11-28", "../../base/run"); a path that climbs to far parts of the
  // machine's tree says more about the machine than about the baseline: the name then.
  if (relative.empty() || ups > 2 || parts > ups + 2 || relative.is_absolute()) return name.string();
  return relative.string();
}

}  // namespace gh
