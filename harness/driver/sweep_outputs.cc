#include "harness/driver/sweep_outputs.h"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/core/file_util.h"
#include "harness/core/records_file.h"
#include "harness/core/comparison.h"
#include "harness/core/point.h"
#include "harness/report/junit.h"
#include "harness/report/report_html.h"
#include "harness/report/report_input.h"
#include "harness/report/results_dir.h"
#include "harness/report/summary_markdown.h"

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
  }
  SweepInfo info = MakeSweepInfo(plan, cells);
  absl::Status st = WriteRecordsFile(out_dir + "/records.jsonl", records);
  if (!st.ok()) return st;
  st = WriteFileAtomically(out_dir + "/sweep.json", info.ToJson().dump(2) + "\n");
  if (!st.ok()) return st;
  // A regression against the baseline is a <failure> in junit.xml as in summary.md.
  Comparison comparison = CompareResults(records, baseline.records, baseline.match);
  st = WriteFileAtomically(out_dir + "/junit.xml",
                           RenderJUnit(records, plan.matrix.name, &comparison));
  if (!st.ok()) return st;

  ReportInput input;
  input.title = absl::StrCat("gpuharness sweep ", plan.matrix.name);
  input.comparison = &comparison;
  input.sweep = &info;
  // Never an absolute machine path: the baseline as seen from DIR (or its name).
  input.baseline = BaselineLabel(BaselineDisplayPath(baseline.dir, out_dir), baseline.match);
  // The environments as `gpuharness report` finds them: DIR/cells/<cell>/environment.json.
  absl::StatusOr<ResultsDir> dir = LoadResultsDir(out_dir);
  if (dir.ok()) input.environments = std::move(dir->environments);
  st = WriteFileAtomically(out_dir + "/summary.md", RenderSummaryMarkdown(input));
  if (!st.ok()) return st;
  st = WriteFileAtomically(out_dir + "/report.html", RenderReportHtml(input));
  if (!st.ok()) return st;

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
