#include "harness/report/report_writer.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "harness/core/file_util.h"
#include "harness/core/point.h"
#include "harness/core/point_filter.h"
#include "harness/core/status_macros.h"
#include "harness/core/writable_dir.h"
#include "harness/report/comparison_record.h"
#include "harness/report/junit.h"
#include "harness/report/report_html.h"
#include "harness/report/report_input.h"
#include "harness/report/results_dir.h"
#include "harness/report/run_logs.h"
#include "harness/report/summary_markdown.h"

namespace gh {
namespace {

// What the results are compared with: the options' baseline, or the recorded one.
struct ChosenComparison {
  std::string baseline_dir;  // "" for none
  ComparisonRecord record;
  bool recorded = false;     // taken from DIR/comparison.json
  bool write_record = false;
  std::string problem;       // the recorded baseline is gone or changed
};

absl::StatusOr<ChosenComparison> ChooseComparison(const ReportOptions& options) {
  ChosenComparison chosen;
  chosen.record.ignore_axes = options.baseline_ignore_axes;
  chosen.record.filter = options.baseline_filter;
  chosen.record.perf = options.perf;
  if (!options.baseline_dir.empty()) {
    chosen.baseline_dir = options.baseline_dir;
    chosen.write_record = true;
    return chosen;
  }
  chosen.write_record = options.record_comparison || options.no_baseline;
  if (options.no_baseline || options.record_comparison) return chosen;
  absl::StatusOr<std::optional<ComparisonRecord>> recorded = ReadComparisonRecord(options.dir);
  if (!recorded.ok()) return absl::InvalidArgumentError(std::string(recorded.status().message()));
  if (!recorded->has_value()) return chosen;
  if (!options.baseline_ignore_axes.empty()) {
    return absl::InvalidArgumentError("--baseline-ignore needs --baseline");
  }
  chosen.record = std::move(**recorded);
  chosen.recorded = true;
  if (options.perf_given) chosen.record.perf = options.perf;
  if (!chosen.record.baseline) return chosen;
  const LocatedBaseline located = LocateBaseline(*chosen.record.baseline, options.dir);
  if (located.state == LocatedBaseline::State::kSame) {
    chosen.baseline_dir = located.dir;
  } else {
    chosen.problem = located.problem;
  }
  return chosen;
}

}  // namespace

namespace {

// --baseline-ignore: every axis named is an axis of one side, and the cells then still meet
// one another (CheckBaselineMatch); without a baseline the flag is bad input.
absl::Status CheckIgnoredAxes(const BaselineMatch& match, const ResultsDir& results, const ResultsDir* baseline,
                              const std::string& dir, const ChosenComparison& chosen) {
  if (match.ignore_axes.empty()) return absl::OkStatus();
  if (baseline == nullptr) {
    return chosen.recorded ? absl::OkStatus() : absl::InvalidArgumentError("--baseline-ignore needs --baseline");
  }
  for (const std::string& axis : match.ignore_axes) {
    auto has_axis = [&](const std::vector<Record>& records) {
      return std::any_of(records.begin(), records.end(), [&](const Record& r) { return r.cell.count(axis) != 0; });
    };
    if (!has_axis(results.records) && !has_axis(baseline->records)) {
      return absl::InvalidArgumentError(absl::StrCat("--baseline-ignore: no cell of ", dir, " or ",
                                                     chosen.baseline_dir, " has an axis '", axis, "'"));
    }
  }
  absl::Status checked = CheckBaselineMatch(results.records, match, dir);
  checked.Update(CheckBaselineMatch(baseline->records, match, chosen.baseline_dir));
  return checked;
}

}  // namespace

absl::StatusOr<ReportResult> WriteReports(const ReportOptions& options) {
  absl::StatusOr<ResultsDir> results = LoadResultsDir(options.dir);
  if (!results.ok()) return results.status();
  absl::StatusOr<ChosenComparison> chosen = ChooseComparison(options);
  if (!chosen.ok()) return chosen.status();
  // DIR/comparison.json is DIR's own record, what its reports compared with: reports written
  // elsewhere (--out) leave it as it is, and carry the comparison they were written with beside
  // them, its baseline named from there.
  const std::string out_dir = options.out_dir.empty() ? options.dir : options.out_dir;
  if (!options.out_dir.empty()) {
    chosen->write_record = true;
    if (chosen->record.baseline) {
      chosen->record.baseline = RebasedBaseline(*chosen->record.baseline, options.dir, out_dir);
    }
  }
  std::optional<ResultsDir> baseline;
  if (!chosen->baseline_dir.empty()) {
    absl::StatusOr<ResultsDir> loaded = LoadResultsDir(chosen->baseline_dir);
    if (!loaded.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("baseline: ", loaded.status().message()));
    }
    baseline = std::move(*loaded);
    // The sweep's --filter narrowed the comparison too: the baseline's other points are not "vanished".
    if (!chosen->record.filter.empty()) {
      std::erase_if(baseline->records,
                    [&](const Record& r) { return !PointNameMatches(chosen->record.filter, r.point); });
    }
    if (chosen->write_record) {
      absl::StatusOr<BaselineIdentity> identity = IdentifyBaseline(chosen->baseline_dir, out_dir);
      if (!identity.ok()) return absl::InvalidArgumentError(absl::StrCat("baseline: ", identity.status().message()));
      chosen->record.baseline = std::move(*identity);
    }
  }

  const BaselineMatch match{chosen->record.ignore_axes, chosen->record.perf};
  GH_RETURN_IF_ERROR(CheckIgnoredAxes(match, *results, baseline ? &*baseline : nullptr, options.dir, *chosen));

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
  result.baseline_recorded = chosen->recorded;
  result.baseline_problem = chosen->problem;

  const SweepInfo* sweep = results->sweep ? &*results->sweep : nullptr;
  const RunLogs logs(options.dir, sweep);
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
  if (!chosen->baseline_dir.empty()) {
    input.baseline = BaselineLabel(BaselineDisplayPath(chosen->baseline_dir, out_dir), match);
  } else if (!chosen->problem.empty()) {
    input.baseline = BaselineLabel(chosen->record.baseline->relative, match);
  }
  input.baseline_problem = chosen->problem;
  input.facts = DescribeRun(results->records, input.environments, sweep);
  input.logs = &logs;
  input.reports_dir = out_dir;
  result.facts = input.facts;
  result.baseline = input.baseline;
  result.sweep = results->sweep;
  const std::string suite = sweep != nullptr && !sweep->matrix_name.empty() ? sweep->matrix_name : kPlainRunSuite;

  std::vector<std::pair<std::string, std::string>> files = {
      {"summary.md", RenderSummaryMarkdown(input)},
      {"report.html", RenderReportHtml(input)},
      {"junit.xml", RenderJUnit(results->records, suite, &result.comparison, &input)},
  };
  if (chosen->write_record) files.emplace_back(kComparisonRecordFile, chosen->record.ToJson().dump(2) + "\n");
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
