#include "harness/driver/sweep_resume.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "harness/core/file_util.h"
#include "harness/core/records_file.h"
#include "harness/core/state_json.h"
#include "harness/core/status_macros.h"
#include "harness/driver/cell_plan.h"

namespace gh::driver {

absl::StatusOr<std::optional<DoneCell>> ReadDoneCell(const std::string& cell_dir, const PlannedCell& cell) {
  const std::string path = cell_dir + "/done.json";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) || !std::filesystem::exists(cell_dir + "/records.jsonl", ec)) {
    return std::nullopt;
  }
  absl::StatusOr<nlohmann::json> json = ParseStateFile(path);
  if (!json.ok()) return absl::InvalidArgumentError(json.status().message());
  const StateJson done(*json, path);
  GH_ASSIGN_OR_RETURN(std::string hash, done.String("hash"));
  GH_ASSIGN_OR_RETURN(std::string id, done.String("id"));
  GH_ASSIGN_OR_RETURN(double wall_s, done.NumberOr("wall_s", 0.0));
  GH_ASSIGN_OR_RETURN(double unmet, done.NumberOr("unmet", 0.0));
  GH_ASSIGN_OR_RETURN(double infra, done.NumberOr("infra", -1.0));
  GH_ASSIGN_OR_RETURN(double processes, done.NumberOr("processes", 1.0));
  if (processes < 1 || processes != static_cast<int>(processes)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": processes: expected a count of 1 or more, got ", processes));
  }
  if (hash != cell.hash || id != cell.plan.id) return std::nullopt;
  DoneCell out{wall_s, static_cast<int>(unmet), static_cast<int>(infra), static_cast<int>(processes)};
  if (infra < 0) {  // written before done.json counted them
    GH_ASSIGN_OR_RETURN(RecordsFileContents records, ReadRecordsFile(cell_dir + "/records.jsonl"));
    out.infra = 0;
    for (const Record& r : records.records) out.infra += r.result.outcome == Outcome::kInfra;
  }
  return out;
}

absl::StatusOr<std::map<size_t, std::set<std::string>>> FailedPoints(const SweepPlan& plan,
                                                                     const std::string& cells_dir,
                                                                     const std::vector<Record>* baseline,
                                                                     const BaselineMatch& match) {
  std::vector<Record> records;
  std::map<std::string, size_t> cell_of;  // CellKey -> plan index
  for (size_t i = 0; i < plan.cells.size(); ++i) {
    const std::string dir = absl::StrCat(cells_dir, "/", plan.cells[i].plan.dir_name);
    GH_ASSIGN_OR_RETURN(std::optional<DoneCell> done, ReadDoneCell(dir, plan.cells[i]));
    if (!done) continue;
    cell_of[CellKey(plan.cells[i].plan.LabelMap())] = i;
    GH_ASSIGN_OR_RETURN(RecordsFileContents contents, ReadRecordsFile(dir + "/records.jsonl"));
    for (Record& r : contents.records) records.push_back(std::move(r));
  }
  std::map<size_t, std::set<std::string>> failed;
  for (const PointComparison& entry : CompareResults(records, baseline, match).points) {
    if (!entry.now || (entry.expectation_met() && entry.change != BaselineChange::kRegression)) continue;
    auto it = cell_of.find(entry.key.cell);
    if (it != cell_of.end()) failed[it->second].insert(entry.key.point);
  }
  return failed;
}

std::vector<Record> MergeRerunRecords(const std::vector<Record>& previous, std::vector<Record> fresh) {
  std::set<std::string> rerun, placed;
  for (const Record& r : fresh) rerun.insert(r.point);
  std::vector<Record> out;
  auto place = [&](const std::string& point) {
    if (!placed.insert(point).second) return;
    for (Record& r : fresh) {
      if (r.point == point) out.push_back(std::move(r));
    }
  };
  for (const Record& r : previous) {
    if (rerun.count(r.point) == 0) {
      out.push_back(r);
    } else {
      place(r.point);
    }
  }
  for (const std::string& point : rerun) place(point);
  return out;
}

absl::Status RemoveSweepResults(const std::string& out_dir) {
  std::error_code ec;
  for (const char* name : {"cells", "versions", "records.jsonl", "junit.xml", "sweep.json", "summary.md",
                           "report.html"}) {
    std::filesystem::remove_all(absl::StrCat(out_dir, "/", name), ec);
    if (ec) return absl::InternalError(absl::StrCat("--fresh: cannot remove ", out_dir, "/", name, ": ", ec.message()));
  }
  return MakeDirectories(out_dir + "/cells");
}

}  // namespace gh::driver
