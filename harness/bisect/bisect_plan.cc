#include "harness/bisect/bisect_plan.h"

#include <algorithm>
#include <memory>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "harness/core/file_util.h"
#include "harness/core/point.h"
#include "harness/core/point_filter.h"
#include "harness/core/scenario_loader.h"
#include "harness/core/status_macros.h"
#include "harness/core/yaml_fields.h"
#include "harness/bisect/bisect_state.h"
#include "harness/driver/cell_plan.h"
#include "nlohmann/json.hpp"

namespace gh {

absl::StatusOr<LabelSet> ParseLabelSet(std::string_view text, std::string_view flag) {
  LabelSet labels;
  if (text.empty()) return labels;
  for (absl::string_view part : absl::StrSplit(absl::string_view(text.data(), text.size()), ',')) {
    size_t eq = part.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == part.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          std::string(flag), ": expected axis=label[,axis=label...], got '", std::string(text), "'"));
    }
    std::string axis(part.substr(0, eq));
    if (!labels.emplace(axis, std::string(part.substr(eq + 1))).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(std::string(flag), ": axis '", axis, "' given twice in '", std::string(text), "'"));
    }
  }
  return labels;
}

std::string FormatLabelSet(const LabelSet& labels) {
  std::vector<std::string> parts;
  for (const auto& [axis, label] : labels) parts.push_back(absl::StrCat(axis, "=", label));
  return absl::StrJoin(parts, ",");
}

namespace {

// The matrix, read and parsed once; with scenario_may_stand_for_matrix, a scenario file (a
// document with `kind:` and no `scenarios:`) stands for a matrix of that one scenario.
absl::StatusOr<driver::SweepPlan> PlanProbeSweep(const ProbePlanOptions& options) {
  absl::StatusOr<std::string> text = ReadFileToString(options.matrix_path);
  if (!text.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(options.matrix_path, ": cannot read the matrix file: ", text.status().message()));
  }
  GH_ASSIGN_OR_RETURN(std::vector<YAML::Node> docs, ParseYamlDocuments(*text, options.matrix_path));
  if (options.scenario_may_stand_for_matrix && !docs.empty() && docs[0].IsMap() && docs[0]["kind"].IsDefined() &&
      !docs[0]["scenarios"].IsDefined()) {
    return driver::PlanSweepOfMatrix(driver::MatrixOfScenarioFile(options.matrix_path));
  }
  GH_ASSIGN_OR_RETURN(driver::Matrix matrix, driver::LoadMatrixDocuments(docs, options.matrix_path,
                                                                          DirectoryOf(options.matrix_path)));
  return driver::PlanSweepOfMatrix(std::move(matrix));
}

}  // namespace

absl::StatusOr<ProbePlan> PlanProbes(const ProbePlanOptions& options) {
  ProbePlan plan;
  absl::StatusOr<driver::SweepPlan> sweep = PlanProbeSweep(options);
  if (!sweep.ok()) return sweep.status();
  plan.sweep = *std::move(sweep);
  if (!options.scenario_path.empty()) {
    absl::StatusOr<std::vector<ScenarioSpec>> specs = LoadScenarioFile(options.scenario_path);
    if (!specs.ok()) return specs.status();
    driver::JobScenarioFile file;
    file.path = AbsolutePath(options.scenario_path);  // jobs run in their own directories
    file.specs = std::make_shared<const std::vector<ScenarioSpec>>(*std::move(specs));
    plan.job.files.push_back(std::move(file));
  } else {
    if (plan.sweep.jobs.size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          options.matrix_path, ": scenarios: the matrix runs ", plan.sweep.jobs.size(),
          " jobs per cell (scenarios with different point filters); name one with --scenario"));
    }
    plan.job = plan.sweep.jobs[0];
  }
  if (!options.points.empty()) {
    plan.job.filter = options.points;
    for (driver::JobScenarioFile& file : plan.job.files) file.filters = {options.points};
  }
  plan.override_points = !options.scenario_path.empty() || !options.points.empty();
  // Every file the job runs must have a point the filters keep, at some cell's rank count.
  std::set<int> rank_counts;
  for (const driver::PlannedCell& cell : plan.sweep.cells) rank_counts.insert(cell.plan.ranks);
  nlohmann::json hashed = nlohmann::json::array();
  for (const driver::JobScenarioFile& file : plan.job.files) {
    int matched = 0;
    std::vector<std::string> names;
    for (const ScenarioSpec& spec : *file.specs) {
      for (int ranks : rank_counts) {
        absl::StatusOr<std::vector<Point>> points = ExpandPoints(spec, ranks);
        if (!points.ok()) return points.status();
        for (const Point& p : *points) {
          names.push_back(p.name);
          bool keep = file.filters.empty();
          for (const std::string& f : file.filters) keep = keep || PointNameMatches(f, p.name);
          matched += keep;
        }
      }
    }
    if (matched == 0) {
      if (names.size() > 8) names.resize(8), names.push_back("...");
      return absl::InvalidArgumentError(absl::StrCat(
          "--points: '", absl::StrJoin(file.filters, "', '"), "' matches no point of ", file.path,
          " (its points: ", absl::StrJoin(names, ", "), ")"));
    }
    absl::StatusOr<std::string> text = ReadFileToString(file.path);
    hashed.push_back({{"path", file.path}, {"text", text.ok() ? *text : ""}, {"filters", file.filters}});
  }
  plan.job_hash = SettingsHash(hashed);
  return plan;
}

absl::StatusOr<std::vector<const driver::PlannedCell*>> SelectCells(const driver::SweepPlan& plan,
                                                                     const LabelSet& labels,
                                                                     std::string_view flag) {
  for (const auto& [axis, label] : labels) {
    auto it = std::find_if(plan.matrix.axes.begin(), plan.matrix.axes.end(),
                           [&](const driver::MatrixAxis& a) { return a.name == axis; });
    if (it == plan.matrix.axes.end()) {
      std::vector<std::string> names;
      for (const driver::MatrixAxis& a : plan.matrix.axes) names.push_back(a.name);
      return absl::InvalidArgumentError(absl::StrCat(
          std::string(flag), ": the matrix has no axis '", axis, "' (axes: ",
          names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
    }
    std::vector<std::string> values;
    for (const driver::AxisValue& v : it->values) values.push_back(v.label);
    if (std::find(values.begin(), values.end(), label) == values.end()) {
      return absl::InvalidArgumentError(absl::StrCat(std::string(flag), ": axis '", axis,
                                                     "' has no label '", label, "' (labels: ",
                                                     absl::StrJoin(values, ", "), ")"));
    }
  }
  std::vector<const driver::PlannedCell*> cells;
  for (const driver::PlannedCell& cell : plan.cells) {
    const std::map<std::string, std::string> have = cell.plan.LabelMap();
    bool match = true;
    for (const auto& [axis, label] : labels) {
      auto it = have.find(axis);
      match = match && it != have.end() && it->second == label;
    }
    if (match) cells.push_back(&cell);
  }
  return cells;
}

std::string ProbeSettingsHash(const ProbePlan& plan, const driver::PlannedCell& cell) {
  return SettingsHash({{"cell", cell.hash}, {"job", plan.job_hash}});
}

absl::StatusOr<ProbeConfig> MakeProbeConfig(const ProbePlan& plan, const driver::PlannedCell& cell,
                                            std::string label) {
  ProbeConfig config;
  config.dir_name = SafeDirName(label);
  config.label = std::move(label);
  config.cell = cell;
  if (plan.override_points) config.cell.plan.points.clear();
  // The probe job's points at this cell, expanded once.
  absl::StatusOr<std::vector<driver::CellJob>> jobs = driver::PlanCellJobs({plan.job}, config.cell.plan);
  if (!jobs.ok()) return jobs.status();
  config.cell.jobs = *std::move(jobs);
  if (plan.sweep.matrix.has_version_axis()) {
    for (const driver::AxisValue& v : plan.sweep.matrix.axes.back().values) {
      if (v.label == cell.plan.version) config.setup = v.settings.setup;
    }
  }
  return config;
}

absl::StatusOr<BisectVersions> PlanBisectVersions(const ProbePlan& plan, const LabelSet& cell) {
  const driver::Matrix& matrix = plan.sweep.matrix;
  if (!matrix.has_version_axis()) {
    return absl::InvalidArgumentError(absl::StrCat(
        matrix.file, ": versions: a bisect needs a version axis (`versions:` with labels in order)"));
  }
  BisectVersions out;
  out.axis = matrix.axes.back().name;
  if (cell.contains(out.axis)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--cell: '", out.axis, "' is the version axis; --good and --bad choose versions"));
  }
  absl::StatusOr<std::vector<const driver::PlannedCell*>> cells = SelectCells(plan.sweep, cell, "--cell");
  if (!cells.ok()) return cells.status();
  for (const driver::AxisValue& version : matrix.axes.back().values) {
    std::vector<const driver::PlannedCell*> of_version;
    for (const driver::PlannedCell* c : *cells) {
      if (c->plan.version == version.label) of_version.push_back(c);
    }
    if (of_version.empty()) {
      out.excluded.push_back(version.label);
      continue;
    }
    if (of_version.size() > 1) {
      std::vector<std::string> ids;
      for (const driver::PlannedCell* c : of_version) ids.push_back(c->plan.id);
      return absl::InvalidArgumentError(absl::StrCat(
          "--cell: ", of_version.size(), " cells of version '", version.label, "' match '",
          FormatLabelSet(cell), "' (", absl::StrJoin(ids, "; "),
          "): fix the other axes with --cell axis=label,..."));
    }
    absl::StatusOr<ProbeConfig> config = MakeProbeConfig(plan, *of_version[0], version.label);
    if (!config.ok()) return config.status();
    out.configs.push_back(*std::move(config));
    out.settings.push_back(ProbeSettingsHash(plan, *of_version[0]));
  }
  if (out.configs.size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--cell: only ", out.configs.size(), " version(s) of axis '", out.axis, "' have a cell matching '",
        FormatLabelSet(cell), "'; a bisect needs at least 2"));
  }
  return out;
}

absl::StatusOr<int> FindVersion(const BisectVersions& versions, const std::string& label,
                                std::string_view flag) {
  std::vector<std::string> labels;
  for (size_t i = 0; i < versions.configs.size(); ++i) {
    if (versions.configs[i].label == label) return static_cast<int>(i);
    labels.push_back(versions.configs[i].label);
  }
  const bool excluded =
      std::find(versions.excluded.begin(), versions.excluded.end(), label) != versions.excluded.end();
  return absl::InvalidArgumentError(absl::StrCat(
      std::string(flag), ": '", label, "' ",
      excluded ? "is excluded by the matrix for this cell" : "is not a version of axis '" + versions.axis + "'",
      " (versions: ", absl::StrJoin(labels, ", "), ")"));
}

}  // namespace gh
