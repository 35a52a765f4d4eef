#include "harness/history/history_ingest.h"

#include <filesystem>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "harness/core/file_util.h"
#include "harness/core/records_file.h"
#include "harness/core/state_json.h"
#include "harness/core/status_macros.h"
#include "harness/report/results_dir.h"
#include "harness/report/sweep_info.h"

namespace gh {
namespace {

namespace fs = std::filesystem;

bool IsFile(const fs::path& p) { std::error_code ec; return fs::is_regular_file(p, ec); }
bool IsDir(const fs::path& p) { std::error_code ec; return fs::is_directory(p, ec); }

absl::StatusOr<nlohmann::json> ReadJson(const fs::path& path) {
  GH_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path.string()));
  return ParseJsonText(text, path.string());
}

absl::StatusOr<IngestSource> SweepSource(const fs::path& dir) {
  IngestSource source{dir.string(), "sweep", dir.filename().string(), {}};
  if (IsFile(dir / "sweep.json")) {
    GH_ASSIGN_OR_RETURN(nlohmann::json json, ReadJson(dir / "sweep.json"));
    absl::StatusOr<SweepInfo> sweep = SweepInfo::FromJson(json);
    if (!sweep.ok()) {
      return absl::InvalidArgumentError(absl::StrCat((dir / "sweep.json").string(), ": ", sweep.status().message()));
    }
    if (!sweep->matrix_name.empty()) source.matrix = sweep->matrix_name;
    for (const SweepAxisInfo& axis : sweep->axes) {
      if (axis.is_version) source.version_axes.insert(axis.name);
    }
  }
  return source;
}

// A bisect's probes each leave a results directory (probes/<probe>/trial<k>/records.jsonl).
absl::Status AddBisectSources(const fs::path& dir, std::vector<IngestSource>& sources) {
  GH_ASSIGN_OR_RETURN(nlohmann::json json, ReadJson(dir / "summary.json"));
  const StateJson summary(json, (dir / "summary.json").string());
  GH_ASSIGN_OR_RETURN(const std::string matrix_file, summary.StringOr("matrix", ""));
  GH_ASSIGN_OR_RETURN(const std::string axis, summary.StringOr("version_axis", ""));
  const std::string matrix = matrix_file.empty() ? dir.filename().string() : fs::path(matrix_file).stem().string();
  std::vector<std::string> dirs;
  std::error_code ec;
  if (IsDir(dir / "probes")) {
    for (auto it = fs::recursive_directory_iterator(dir / "probes", ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->path().filename() == "records.jsonl") dirs.push_back(it->path().parent_path().string());
    }
  }
  std::sort(dirs.begin(), dirs.end());  // directory order is the file system's: make it stable
  for (const std::string& d : dirs) sources.push_back({d, "bisect", matrix, {axis}});
  return absl::OkStatus();
}

// What DIR is, as the list of results directories it holds.
absl::StatusOr<std::vector<IngestSource>> FindSources(const fs::path& dir) {
  if (!IsDir(dir)) return absl::InvalidArgumentError(absl::StrCat(dir.string(), ": no such directory"));
  std::vector<IngestSource> sources;
  if (IsFile(dir / "records.jsonl")) {
    GH_ASSIGN_OR_RETURN(IngestSource s, SweepSource(dir));
    sources.push_back(std::move(s));
    return sources;
  }
  if (IsFile(dir / "summary.json") && IsDir(dir / "probes")) {
    GH_RETURN_IF_ERROR(AddBisectSources(dir, sources));
    return sources;
  }
  std::vector<fs::path> children;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) children.push_back(e.path());
  std::sort(children.begin(), children.end());
  for (const fs::path& child : children) {
    if (IsFile(child / "records.jsonl")) {
      GH_ASSIGN_OR_RETURN(IngestSource s, SweepSource(child));
      sources.push_back(std::move(s));
    }
  }
  std::vector<fs::path> bisects;
  if (IsDir(dir / "bisect")) {
    for (const fs::directory_entry& e : fs::directory_iterator(dir / "bisect", ec)) bisects.push_back(e.path());
  }
  std::sort(bisects.begin(), bisects.end());
  for (const fs::path& b : bisects) {
    if (IsFile(b / "summary.json")) GH_RETURN_IF_ERROR(AddBisectSources(b, sources));
  }
  if (sources.empty() && !IsFile(dir / "nightly.json")) {
    return absl::InvalidArgumentError(absl::StrCat(
        dir.string(), ": not a sweep, bisect or night directory (no records.jsonl, summary.json "
                      "with probes/, nightly.json or <matrix>/records.jsonl)"));
  }
  return sources;
}

absl::StatusOr<std::string> NightLabel(const fs::path& dir, const std::string& given) {
  if (!given.empty()) return given;
  if (IsFile(dir / "nightly.json")) {
    GH_ASSIGN_OR_RETURN(nlohmann::json json, ReadJson(dir / "nightly.json"));
    if (json.is_object() && json.contains("night") && json["night"].is_string()) return json["night"].get<std::string>();
  }
  fs::path clean = dir.lexically_normal();
  if (clean.filename().empty()) clean = clean.parent_path();
  return clean.filename().string();
}

std::string CellKey(const Record& record, const std::set<std::string>& version_axes) {
  std::vector<std::string> parts;
  for (const auto& [axis, label] : record.cell) {
    if (!version_axes.count(axis)) parts.push_back(absl::StrCat(axis, "=", label));
  }
  return absl::StrJoin(parts, ",");
}

std::string VersionOf(const Record& record, const std::set<std::string>& version_axes) {
  for (const std::string& axis : version_axes) {
    auto it = record.cell.find(axis);
    if (it != record.cell.end()) return it->second;
  }
  return "";
}

class Inserter {
 public:
  static absl::StatusOr<Inserter> Make(const HistoryDb& db) {
    GH_ASSIGN_OR_RETURN(Statement source, Statement::Prepare(db,
        "INSERT INTO sources(night, kind, matrix, path, ingested_at) VALUES(?1,?2,?3,?4,?5) "
        "ON CONFLICT(night, kind, path) DO UPDATE SET matrix=excluded.matrix RETURNING id"));
    GH_ASSIGN_OR_RETURN(Statement result, Statement::Prepare(db,
        "INSERT OR IGNORE INTO results(source_id, night, kind, matrix, cell, point, version, trial,"
        " outcome, signature, matched, started_at, duration_s) "
        "VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13) RETURNING id"));
    GH_ASSIGN_OR_RETURN(Statement metric, Statement::Prepare(db,
        "INSERT OR IGNORE INTO metrics(result_id, name, value, unit) VALUES(?1,?2,?3,?4)"));
    return Inserter(std::move(source), std::move(result), std::move(metric));
  }

  absl::StatusOr<int> Add(const std::string& night, const IngestSource& source, const std::vector<Record>& records) {
    source_.Reset();
    source_.Bind(1, night).Bind(2, source.kind).Bind(3, source.matrix)
        .Bind(4, fs::weakly_canonical(source.dir).string())
        .Bind(5, absl::FormatTime(absl::RFC3339_sec, absl::Now(), absl::UTCTimeZone()));
    GH_ASSIGN_OR_RETURN(bool row, source_.Step());
    if (!row) return absl::InternalError("no id for the ingested directory");
    const long long source_id = source_.Int(0);
    GH_RETURN_IF_ERROR(source_.Run());
    int added = 0;
    for (const Record& r : records) {
      result_.Reset();
      result_.Bind(1, source_id).Bind(2, night).Bind(3, source.kind).Bind(4, source.matrix)
          .Bind(5, CellKey(r, source.version_axes)).Bind(6, r.point)
          .Bind(7, VersionOf(r, source.version_axes)).Bind(8, static_cast<long long>(r.trial))
          .Bind(9, std::string(OutcomeName(r.result.outcome))).Bind(10, r.result.signature)
          .Bind(11, static_cast<long long>(r.matched)).Bind(12, r.started_at).Bind(13, r.duration_s);
      GH_ASSIGN_OR_RETURN(bool inserted, result_.Step());
      if (!inserted) continue;  // already there
      const long long result_id = result_.Int(0);
      GH_RETURN_IF_ERROR(result_.Run());
      ++added;
      for (const Metric& m : r.result.metrics) {
        metric_.Reset();
        metric_.Bind(1, result_id).Bind(2, m.name).Bind(3, m.value).Bind(4, m.unit);
        GH_RETURN_IF_ERROR(metric_.Run());
      }
    }
    return added;
  }

 private:
  Inserter(Statement source, Statement result, Statement metric)
      : source_(std::move(source)), result_(std::move(result)), metric_(std::move(metric)) {}
  Statement source_, result_, metric_;
};

}  // namespace

absl::StatusOr<IngestBatch> ReadIngestDirectory(const std::string& dir, const std::string& night) {
  IngestBatch batch;
  GH_ASSIGN_OR_RETURN(std::vector<IngestSource> sources, FindSources(dir));
  GH_ASSIGN_OR_RETURN(batch.night, NightLabel(dir, night));
  for (IngestSource& source : sources) {
    GH_ASSIGN_OR_RETURN(RecordsFileContents contents, ReadRecordsFile(source.dir + "/records.jsonl"));
    batch.sources.push_back({std::move(source), std::move(contents.records)});
  }
  return batch;
}

absl::StatusOr<IngestResult> IngestBatchInto(HistoryDb& db, const IngestBatch& batch) {
  IngestResult result;
  result.night = batch.night;
  result.directories = static_cast<int>(batch.sources.size());
  for (const IngestBatch::Part& part : batch.sources) result.records += static_cast<int>(part.records.size());
  GH_RETURN_IF_ERROR(db.InTransaction([&]() -> absl::Status {
    GH_ASSIGN_OR_RETURN(Inserter inserter, Inserter::Make(db));
    for (const IngestBatch::Part& part : batch.sources) {
      GH_ASSIGN_OR_RETURN(int added, inserter.Add(result.night, part.source, part.records));
      result.added += added;
    }
    return absl::OkStatus();
  }));
  return result;
}

absl::StatusOr<IngestResult> IngestDirectory(HistoryDb& db, const std::string& dir, const std::string& night) {
  GH_ASSIGN_OR_RETURN(IngestBatch batch, ReadIngestDirectory(dir, night));
  return IngestBatchInto(db, batch);
}

}  // namespace gh
