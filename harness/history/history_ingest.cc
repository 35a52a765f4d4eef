#include "harness/history/history_ingest.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "harness/core/comparison.h"
#include "harness/core/name_rules.h"
#include "harness/core/records_file.h"
#include "harness/core/state_json.h"
#include "harness/core/status_macros.h"
#include "harness/history/history_text.h"
#include "harness/history/nightly_json.h"
#include "harness/report/sweep_info.h"

namespace gh {
namespace {

namespace fs = std::filesystem;

bool IsFile(const fs::path& p) { std::error_code ec; return fs::is_regular_file(p, ec); }
bool IsDir(const fs::path& p) { std::error_code ec; return fs::is_directory(p, ec); }

// The entries of `dir`, sorted (directory order is the file system's: make it stable).
std::vector<fs::path> SortedEntries(const fs::path& dir) {
  std::vector<fs::path> entries;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    entries.push_back(it->path());
  }
  std::sort(entries.begin(), entries.end());
  return entries;
}

// A bisect's trials each leave a results directory, probes/<config>/trial<k>[.retry<n>]/, whose
// records.jsonl the bisect wrote with the trial's cell labels, beside job.json naming the
// version. The job's own records under job/ are the same runs without those labels: not read.
absl::Status AddBisectSources(const fs::path& dir, std::vector<IngestSource>& sources) {
  const std::string summary_path = (dir / "summary.json").string();
  GH_ASSIGN_OR_RETURN(nlohmann::json json, ParseStateFile(summary_path));
  const StateJson summary(json, summary_path);
  GH_RETURN_IF_ERROR(summary.ExpectObject());
  GH_ASSIGN_OR_RETURN(const std::string matrix_file, summary.StringOr("matrix", ""));
  GH_ASSIGN_OR_RETURN(const std::string axis, summary.StringOr("version_axis", ""));
  const std::string matrix = matrix_file.empty() ? dir.filename().string() : fs::path(matrix_file).stem().string();
  for (const fs::path& config : SortedEntries(dir / "probes")) {
    if (!IsDir(config)) continue;
    for (const fs::path& trial : SortedEntries(config)) {
      if (!IsFile(trial / "records.jsonl")) continue;
      IngestSource source{trial.string(), "bisect", matrix, {}, ""};
      if (!axis.empty()) source.version_axes.insert(axis);
      if (IsFile(trial / "job.json")) {
        const std::string job_path = (trial / "job.json").string();
        GH_ASSIGN_OR_RETURN(nlohmann::json job_json, ParseStateFile(job_path));
        const StateJson job(job_json, job_path);
        GH_RETURN_IF_ERROR(job.ExpectObject());
        GH_ASSIGN_OR_RETURN(source.version, job.StringOr("version", ""));
      }
      sources.push_back(std::move(source));
    }
  }
  return absl::OkStatus();
}

// What DIR is, as the list of results directories it holds.
absl::StatusOr<std::vector<IngestSource>> FindSources(const fs::path& dir) {
  if (!IsDir(dir)) return absl::InvalidArgumentError(absl::StrCat(dir.string(), ": no such directory"));
  std::vector<IngestSource> sources;
  if (IsFile(dir / "records.jsonl")) {
    GH_ASSIGN_OR_RETURN(IngestSource s, ReadSweepSource(dir.string()));
    sources.push_back(std::move(s));
    return sources;
  }
  if (IsFile(dir / "summary.json") && IsDir(dir / "probes")) {
    GH_RETURN_IF_ERROR(AddBisectSources(dir, sources));
    return sources;
  }
  for (const fs::path& child : SortedEntries(dir)) {
    if (IsFile(child / "records.jsonl")) {
      GH_ASSIGN_OR_RETURN(IngestSource s, ReadSweepSource(child.string()));
      sources.push_back(std::move(s));
    }
  }
  for (const fs::path& b : SortedEntries(dir / "bisect")) {
    if (IsFile(b / "summary.json")) GH_RETURN_IF_ERROR(AddBisectSources(b, sources));
  }
  if (sources.empty() && !IsFile(dir / kNightlyJsonFile)) {
    return absl::InvalidArgumentError(absl::StrCat(
        dir.string(), ": not a sweep, bisect or night directory (no records.jsonl, summary.json "
                      "with probes/, nightly.json or <matrix>/records.jsonl)"));
  }
  return sources;
}

absl::StatusOr<std::string> NightLabel(const fs::path& dir, const std::string& given) {
  if (!given.empty()) {
    if (absl::Status label = CheckLabel(given); !label.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--night: ", label.message()));
    }
    return given;
  }
  if (IsFile(dir / kNightlyJsonFile)) {
    GH_ASSIGN_OR_RETURN(NightlyHeadline headline, ReadNightlyJson(dir.string()));
    return headline.night;
  }
  fs::path clean = dir.lexically_normal();
  if (clean.filename().empty()) clean = clean.parent_path();
  const std::string name = clean.filename().string();
  if (absl::Status label = CheckLabel(name); !label.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        dir.string(), ": the directory's name cannot label the night (", label.message(), "); give --night LABEL"));
  }
  return name;
}

std::string VersionOf(const Record& record, const IngestSource& source) {
  for (const std::string& axis : source.version_axes) {
    auto it = record.cell.find(axis);
    if (it != record.cell.end()) return it->second;
  }
  return source.version;
}

// What tells a record of a source from another: the columns of results' UNIQUE key the
// source does not fix.
std::string RowKey(const std::string& cell, const std::string& point, const std::string& version, long long trial,
                   const std::string& started_at) {
  return absl::StrJoin({cell, point, version, std::to_string(trial), started_at}, std::string(1, '\x1f'));
}

class Inserter {
 public:
  static absl::StatusOr<Inserter> Make(const HistoryDb& db) {
    GH_ASSIGN_OR_RETURN(Statement source, Statement::Prepare(db,
        "INSERT INTO sources(night, kind, matrix, path, ingested_at) VALUES(?1,?2,?3,?4,?5) "
        "ON CONFLICT(night, kind, path) DO UPDATE SET matrix=excluded.matrix RETURNING id"));
    GH_ASSIGN_OR_RETURN(Statement existing, Statement::Prepare(db,
        "SELECT id, cell, point, version, trial, started_at FROM results WHERE source_id=?1"));
    GH_ASSIGN_OR_RETURN(Statement result, Statement::Prepare(db,
        "INSERT OR IGNORE INTO results(source_id, night, kind, matrix, cell, point, version, trial,"
        " outcome, signature, matched, started_at, duration_s, expected) "
        "VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14) RETURNING id"));
    GH_ASSIGN_OR_RETURN(Statement metric, Statement::Prepare(db,
        "INSERT OR IGNORE INTO metrics(result_id, name, value, unit) VALUES(?1,?2,?3,?4)"));
    GH_ASSIGN_OR_RETURN(Statement drop_metrics, Statement::Prepare(db, "DELETE FROM metrics WHERE result_id=?1"));
    GH_ASSIGN_OR_RETURN(Statement drop_result, Statement::Prepare(db, "DELETE FROM results WHERE id=?1"));
    return Inserter(std::move(source), std::move(existing), std::move(result), std::move(metric),
                    std::move(drop_metrics), std::move(drop_result));
  }

  // Makes the source hold exactly `records`; adds to `result`'s counts.
  absl::Status Add(const std::string& night, const IngestSource& source, const std::vector<Record>& records,
                   IngestResult& result) {
    source_.Reset();
    source_.Bind(1, night).Bind(2, source.kind).Bind(3, source.matrix)
        .Bind(4, fs::weakly_canonical(source.dir).string())
        .Bind(5, absl::FormatTime(absl::RFC3339_sec, absl::Now(), absl::UTCTimeZone()));
    GH_ASSIGN_OR_RETURN(bool row, source_.Step());
    if (!row) return absl::InternalError("no id for the ingested directory");
    const long long source_id = source_.Int(0);
    GH_RETURN_IF_ERROR(source_.Run());
    // The source's rows from an earlier ingest, by key; those the file still holds are kept.
    std::map<std::string, long long> stale;
    existing_.Reset();
    existing_.Bind(1, source_id);
    while (true) {
      GH_ASSIGN_OR_RETURN(bool more, existing_.Step());
      if (!more) break;
      stale[RowKey(existing_.Text(1), existing_.Text(2), existing_.Text(3), existing_.Int(4), existing_.Text(5))] =
          existing_.Int(0);
    }
    for (const Record& r : records) {
      const std::string cell = MatchCellKey(r.cell, {source.version_axes, {}}), version = VersionOf(r, source);
      if (stale.erase(RowKey(cell, r.point, version, r.trial, r.started_at)) > 0) continue;
      result_.Reset();
      result_.Bind(1, source_id).Bind(2, night).Bind(3, source.kind).Bind(4, source.matrix)
          .Bind(5, cell).Bind(6, r.point).Bind(7, version).Bind(8, static_cast<long long>(r.trial))
          .Bind(9, std::string(OutcomeName(r.result.outcome))).Bind(10, r.result.signature)
          .Bind(11, static_cast<long long>(r.matched)).Bind(12, r.started_at).Bind(13, r.duration_s)
          .Bind(14, std::string(OutcomeName(r.expected.outcome)));
      GH_ASSIGN_OR_RETURN(bool inserted, result_.Step());
      if (!inserted) continue;  // already there, from another directory
      const long long result_id = result_.Int(0);
      GH_RETURN_IF_ERROR(result_.Run());
      ++result.added;
      for (const Metric& m : r.result.metrics) {
        metric_.Reset();
        metric_.Bind(1, result_id).Bind(2, m.name).Bind(3, m.value).Bind(4, m.unit);
        GH_RETURN_IF_ERROR(metric_.Run());
      }
    }
    for (const auto& [key, id] : stale) {
      drop_metrics_.Reset();
      drop_metrics_.Bind(1, id);
      GH_RETURN_IF_ERROR(drop_metrics_.Run());
      drop_result_.Reset();
      drop_result_.Bind(1, id);
      GH_RETURN_IF_ERROR(drop_result_.Run());
      ++result.superseded;
    }
    return absl::OkStatus();
  }

 private:
  Inserter(Statement source, Statement existing, Statement result, Statement metric, Statement drop_metrics,
           Statement drop_result)
      : source_(std::move(source)), existing_(std::move(existing)), result_(std::move(result)),
        metric_(std::move(metric)), drop_metrics_(std::move(drop_metrics)), drop_result_(std::move(drop_result)) {}
  Statement source_, existing_, result_, metric_, drop_metrics_, drop_result_;
};

}  // namespace

absl::StatusOr<IngestSource> ReadSweepSource(const std::string& dir_path) {
  const fs::path dir(dir_path);
  IngestSource source{dir.string(), "sweep", dir.filename().string(), {}, ""};
  if (IsFile(dir / "sweep.json")) {
    GH_ASSIGN_OR_RETURN(nlohmann::json json, ParseStateFile((dir / "sweep.json").string()));
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

absl::StatusOr<IngestBatch> ReadIngestDirectory(const std::string& dir, const std::string& night) {
  IngestBatch batch;
  GH_ASSIGN_OR_RETURN(batch.night, NightLabel(dir, night));
  GH_ASSIGN_OR_RETURN(std::vector<IngestSource> sources, FindSources(dir));
  for (IngestSource& source : sources) {
    const std::string path = source.dir + "/records.jsonl";
    GH_ASSIGN_OR_RETURN(RecordsFileContents contents, ReadRecordsFile(path));
    if (contents.torn_lines > 0) {
      batch.warnings.push_back(TornLinesWarning(path, contents.torn_lines));
    }
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
    IngestResult counts;
    GH_ASSIGN_OR_RETURN(Inserter inserter, Inserter::Make(db));
    for (const IngestBatch::Part& part : batch.sources) {
      GH_RETURN_IF_ERROR(inserter.Add(result.night, part.source, part.records, counts));
    }
    result.added = counts.added;
    result.superseded = counts.superseded;
    return absl::OkStatus();
  }));
  return result;
}

absl::StatusOr<IngestResult> IngestDirectory(HistoryDb& db, const std::string& dir, const std::string& night) {
  GH_ASSIGN_OR_RETURN(IngestBatch batch, ReadIngestDirectory(dir, night));
  return IngestBatchInto(db, batch);
}

}  // namespace gh
