#include "harness/report/report_writer.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "harness/core/file_util.h"
#include "harness/core/writable_dir.h"
#include "harness/report/junit.h"
#include "harness/report/report_html.h"
#include "harness/report/report_input.h"
#include "harness/report/results_dir.h"
#include "harness/report/summary_markdown.h"

namespace gh {

absl::StatusOr<ReportResult> WriteReports(const ReportOptions& options) {
  absl::StatusOr<ResultsDir> results = LoadResultsDir(options.dir);
  if (!results.ok()) return results.status();
  std::optional<ResultsDir> baseline;
  if (!options.baseline_dir.empty()) {
    absl::StatusOr<ResultsDir> loaded = LoadResultsDir(options.baseline_dir);
    if (!loaded.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("baseline: ", loaded.status().message()));
    }
    baseline = std::move(*loaded);
  }

  const BaselineMatch match{options.baseline_ignore_axes, options.perf};
  if (!match.ignore_axes.empty()) {
    if (!baseline) return absl::InvalidArgumentError("--baseline-ignore needs --baseline");
    for (const std::string& axis : match.ignore_axes) {
      auto has_axis = [&](const std::vector<Record>& records) {
        return std::any_of(records.begin(), records.end(),
                           [&](const Record& r) { return r.cell.count(axis) != 0; });
      };
      if (!has_axis(results->records) && !has_axis(baseline->records)) {
        return absl::InvalidArgumentError(absl::StrCat("--baseline-ignore: no cell of ",
                                                       options.dir, " or ", options.baseline_dir,
                                                       " has an axis '", axis, "'"));
      }
    }
    absl::Status checked = CheckBaselineMatch(results->records, match, options.dir);
    checked.Update(CheckBaselineMatch(baseline->records, match, options.baseline_dir));
    if (!checked.ok()) return checked;
  }

  ReportResult result;
  result.torn_lines = results->torn_lines;
  if (results->planned) {
    result.planned_runs = static_cast<int>(results->planned->size());
    result.unrecorded_runs = static_cast<int>(results->UnrecordedPlannedRuns().size());
  }
  result.comparison =
      CompareResults(results->records, baseline ? &baseline->records : nullptr, match);
  result.headline = ComparisonHeadline(result.comparison);
  result.exit_status = ComparisonExitStatus(result.comparison);

  const SweepInfo* sweep = results->sweep ? &*results->sweep : nullptr;
  ReportInput input;
  input.title = options.title;
  if (input.title.empty()) {
    input.title = sweep != nullptr && !sweep->matrix_name.empty()
                      ? absl::StrCat("gpuharness sweep ", sweep->matrix_name)
                      : absl::StrCat("gpuharness results ",
                                     std::filesystem::path(options.dir).lexically_normal().filename().string());
  }
  input.comparison = &result.comparison;
  input.sweep = sweep;
  input.environments = std::move(results->environments);
  // Relative to where the reports go (or the baseline's name): never an absolute machine path.
  input.baseline = options.baseline_dir.empty()
                       ? ""
                       : BaselineLabel(BaselineDisplayPath(options.baseline_dir,
                                                           options.out_dir.empty() ? options.dir : options.out_dir),
                                       match);
  const std::string suite = sweep != nullptr && !sweep->matrix_name.empty() ? sweep->matrix_name : kPlainRunSuite;

  const std::pair<const char*, std::string> files[] = {
      {"summary.md", RenderSummaryMarkdown(input)},
      {"report.html", RenderReportHtml(input)},
      {"junit.xml", RenderJUnit(results->records, suite, &result.comparison)},
  };
  const std::string out_dir = options.out_dir.empty() ? options.dir : options.out_dir;
  if (absl::Status st = EnsureWritableDir(out_dir, options.out_dir.empty() ? "" : "--out"); !st.ok()) {
    return st;
  }
  for (const auto& [name, contents] : files) {
    std::string path = absl::StrCat(out_dir, "/", name);
    if (absl::Status written = WriteFileAtomically(path, contents); !written.ok()) {
      return absl::InternalError(absl::StrCat(path, ": cannot write: ", written.message()));
    }
    result.written.push_back(std::move(path));
  }
  return result;
}

}  // namespace gh
