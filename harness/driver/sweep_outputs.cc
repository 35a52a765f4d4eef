#include "harness/driver/sweep_outputs.h"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/core/file_util.h"
#include "harness/core/point_filter.h"
#include "harness/core/records_file.h"
#include "harness/core/comparison.h"
#include "harness/core/point.h"
#include "harness/core/status_macros.h"
#include "harness/driver/rank_log_links.h"
#include "harness/report/report_writer.h"

namespace gh::driver {

SweepInfo MakeSweepInfo(const SweepPlan& plan, const std::vector<CellStatus>& cells) {
  SweepInfo info;
  info.matrix_name = plan.matrix.name;
  info.matrix_file = plan.matrix.file;
  for (const MatrixAxis& axis : plan.matrix.axes) {
    SweepAxisInfo a;
    a.name = axis.name;
    a.is_version = axis.is_version;
    for (const AxisValue& v : axis.values) a.labels.push_back(v.label);
    info.axes.push_back(std::move(a));
  }
  for (size_t i = 0; i < plan.cells.size(); ++i) {
    SweepCellInfo c;
    c.id = plan.cells[i].plan.id;
    c.axes = plan.cells[i].plan.LabelMap();
    c.status = cells[i].status;
    c.detail = cells[i].detail;
    c.wall_s = cells[i].wall_s;
    info.cells.push_back(std::move(c));
  }
  return info;
}

absl::StatusOr<SweepOutputsResult> WriteSweepOutputs(const SweepPlan& plan,
                                                     const std::vector<CellStatus>& cells,
                                                     const std::string& out_dir,
                                                     const SweepBaseline& baseline) {
  std::vector<Record> records;
  for (size_t i = 0; i < plan.cells.size(); ++i) {
    if (cells[i].status == "pending") continue;
    std::string path = absl::StrCat(out_dir, "/cells/", plan.cells[i].plan.dir_name, "/records.jsonl");
    struct stat st;
    if (stat(path.c_str(), &st) != 0) continue;
    absl::StatusOr<RecordsFileContents> contents = ReadRecordsFile(path);
    if (!contents.ok()) return contents.status();
    for (Record& r : contents->records) records.push_back(std::move(r));
    // Each rank's log at DIR/logs/<cell>/..., whichever of the cell's jobs ran its point.
    GH_RETURN_IF_ERROR(GatherRankLogs(out_dir, plan.cells[i].plan.dir_name));
  }
  SweepInfo info = MakeSweepInfo(plan, cells);
  absl::Status st = WriteRecordsFile(out_dir + "/records.jsonl", records);
  if (!st.ok()) return st;
  st = WriteFileAtomically(out_dir + "/sweep.json", info.ToJson().dump(2) + "\n");
  if (!st.ok()) return st;
  // The reports, and the comparison they were written with (DIR/comparison.json), as `gpuharness
  // report DIR` writes them again.
  ReportOptions reports;
  reports.dir = out_dir;
  if (baseline.records != nullptr) reports.baseline_dir = baseline.dir;
  reports.baseline_ignore_axes = baseline.match.ignore_axes;
  reports.perf = baseline.match.perf;
  reports.baseline_filter = baseline.filter;
  reports.record_comparison = true;
  absl::StatusOr<ReportResult> written = WriteReports(reports);
  if (!written.ok()) return written.status();
  Comparison comparison = std::move(written->comparison);

  SweepOutputsResult result;
  result.records = static_cast<int>(records.size());
  result.unmet = comparison.counts.unmet;
  result.regressions = comparison.counts.regressions;
  result.exit_status = ComparisonExitStatus(comparison);
  result.headline = ComparisonHeadline(comparison);
  std::set<std::string> failed_cells;
  for (const PointComparison& entry : comparison.points) {
    if (!entry.expectation_met() || entry.change == BaselineChange::kRegression) failed_cells.insert(entry.key.cell);
  }
  result.cells_failed = static_cast<int>(failed_cells.size());
  result.comparison = std::move(comparison);
  result.sweep = std::move(info);
  return result;
}

absl::StatusOr<std::optional<ResultsDir>> LoadSweepBaseline(const std::string& baseline_dir,
                                                            const std::string& filter) {
  if (baseline_dir.empty()) return std::nullopt;
  absl::StatusOr<ResultsDir> baseline = LoadResultsDir(baseline_dir);
  if (!baseline.ok()) return absl::InvalidArgumentError(absl::StrCat("--baseline: ", baseline.status().message()));
  if (!filter.empty()) {
    std::erase_if(baseline->records, [&](const Record& r) { return !PointNameMatches(filter, r.point); });
  }
  return *std::move(baseline);
}

absl::Status CheckBaselineIgnore(const SweepPlan& plan, const BaselineMatch& match,
                                 const std::vector<Record>* baseline, const std::string& baseline_dir) {
  if (match.ignore_axes.empty()) return absl::OkStatus();
  if (baseline == nullptr) return absl::InvalidArgumentError("--baseline-ignore needs --baseline");
  std::vector<std::string> names;
  for (const MatrixAxis& axis : plan.matrix.axes) names.push_back(axis.name);
  for (const std::string& axis : match.ignore_axes) {
    if (std::find(names.begin(), names.end(), axis) == names.end()) {
      return absl::InvalidArgumentError(absl::StrCat("--baseline-ignore: the matrix has no axis '", axis,
                                                     "' (its axes: ", names.empty() ? "none" : absl::StrJoin(names, ", "),
                                                     ")"));
    }
  }
  std::vector<std::map<std::string, std::string>> cells;
  for (const PlannedCell& cell : plan.cells) cells.push_back(cell.plan.LabelMap());
  if (absl::Status checked = CheckBaselineMatch(cells, match, "the matrix"); !checked.ok()) return checked;
  return CheckBaselineMatch(*baseline, match, baseline_dir);
}

}  // namespace gh::driver
