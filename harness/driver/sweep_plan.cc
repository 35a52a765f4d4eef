#include "harness/driver/sweep_plan.h"

#include <filesystem>
#include <cstdint>
#include <map>
#include <memory>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/core/point_filter.h"
#include "harness/core/stable_hash.h"
#include "harness/core/file_util.h"
#include "harness/core/point.h"
#include "harness/core/scenario_loader.h"
#include "harness/core/yaml_fields.h"

namespace gh::driver {
namespace {

// Where a cell's `key` setting came from: the last axis value of the cell that sets it, else
// the defaults.
SourceLoc SettingLoc(const Matrix& m, const CellPlan& cell, bool (*sets)(const CellSettings&)) {
  SourceLoc loc = m.defaults_loc;
  for (const MatrixAxis& axis : m.axes) {
    for (const AxisValue& v : axis.values) {
      for (const auto& [a, l] : cell.labels) {
        if (a == axis.name && l == v.label && sets(v.settings)) loc = v.loc;
      }
    }
  }
  return loc;
}

}  // namespace

absl::StatusOr<SweepPlan> PlanSweep(const std::string& matrix_path,
                                    const ListCommandRunner& list_runner) {
  absl::StatusOr<Matrix> matrix = LoadMatrixFile(matrix_path, list_runner);
  if (!matrix.ok()) return matrix.status();
  return PlanSweepOfMatrix(*std::move(matrix));
}

absl::StatusOr<SweepPlan> PlanSweepOfMatrix(Matrix matrix) {
  SweepPlan plan;
  plan.matrix = std::move(matrix);
  const Matrix& m = plan.matrix;
  absl::StatusOr<std::vector<CellPlan>> cells = ExpandCells(m);
  if (!cells.ok()) return cells.status();

  // Scenario files, grouped into jobs by their filters.
  std::string scenario_digest;
  std::set<int> rank_counts;
  for (const CellPlan& c : *cells) rank_counts.insert(c.ranks);
  for (size_t i = 0; i < m.scenarios.size(); ++i) {
    const MatrixScenario& s = m.scenarios[i];
    std::string key = absl::StrCat("scenarios[", i, "].file");
    absl::StatusOr<std::string> text = ReadFileToString(s.path);
    if (!text.ok()) {
      return YamlError(s.loc, key, absl::StrCat("cannot read '", s.as_written, "' (", s.path, ")"));
    }
    absl::StatusOr<std::vector<ScenarioSpec>> loaded = LoadScenarioFile(s.path);
    if (!loaded.ok()) return loaded.status();
    auto specs = std::make_shared<const std::vector<ScenarioSpec>>(*std::move(loaded));
    absl::StrAppend(&scenario_digest, s.path, "\n", *text, "\n");
    for (size_t f = 0; f < s.points.size(); ++f) {
      bool any = false;
      for (const ScenarioSpec& spec : *specs) {
        for (int ranks : rank_counts) {
          absl::StatusOr<std::vector<Point>> points = ExpandPoints(spec, ranks);
          if (!points.ok()) return points.status();
          for (const Point& p : *points) any = any || PointNameMatches(s.points[f], p.name);
        }
      }
      if (!any) {
        return YamlError(s.loc, absl::StrCat("scenarios[", i, "].points[", f, "]"),
                         absl::StrCat("'", s.points[f], "' matches no point of ", s.as_written,
                                      " at the matrix's rank counts"));
      }
    }
    std::vector<std::string> patterns = s.points;
    if (patterns.empty()) patterns.push_back("");
    for (const std::string& pattern : patterns) {
      PlannedJob* job = nullptr;
      for (PlannedJob& j : plan.jobs) {
        if (j.filter == pattern) job = &j;
      }
      if (job == nullptr) {
        plan.jobs.push_back(PlannedJob{{}, pattern});
        job = &plan.jobs.back();
      }
      std::vector<std::string> filters;
      if (!pattern.empty()) filters.push_back(pattern);
      job->files.push_back(JobScenarioFile{AbsolutePath(s.path), specs, filters});
    }
  }
  std::string digest = StableHash(scenario_digest);

  std::map<std::string, LauncherSpec> launchers;
  for (CellPlan& c : *cells) {
    auto it = launchers.find(c.launcher);
    if (it == launchers.end()) {
      absl::StatusOr<LauncherSpec> spec = ResolveLauncher(c.launcher, m.dir);
      if (!spec.ok()) {
        SourceLoc loc = SettingLoc(m, c, [](const CellSettings& s) { return s.launcher.has_value(); });
        return YamlError(loc, "launcher", std::string(spec.status().message()));
      }
      it = launchers.emplace(c.launcher, *std::move(spec)).first;
    }
    const LauncherSpec& launcher = it->second;
    if (launcher.max_ranks && c.ranks > *launcher.max_ranks) {
      SourceLoc loc = SettingLoc(m, c, [](const CellSettings& s) { return s.ranks.has_value(); });
      return YamlError(loc, "ranks",
                       absl::StrCat("cell '", c.id, "' needs ", c.ranks, " ranks but launcher '",
                                    launcher.name, "' runs at most ", *launcher.max_ranks));
    }
    std::string hash = StableHash(absl::StrCat(c.settings_hash, "\n", digest, "\n",
                                               absl::StrJoin(launcher.argv, "\x1f"), "\n",
                                               absl::StrJoin(launcher.env_flag, "\x1f")));
    absl::StatusOr<std::vector<CellJob>> jobs = PlanCellJobs(plan.jobs, c);
    if (!jobs.ok()) return jobs.status();
    std::vector<CellJob> owning;
    size_t points = 0;
    for (CellJob& job : *jobs) {
      points += job.points.size();
      if (!job.points.empty()) owning.push_back(std::move(job));
    }
    if (points == 0) {
      SourceLoc loc = SettingLoc(m, c, [](const CellSettings& s) { return !s.points.empty(); });
      return YamlError(loc, "points",
                       absl::StrCat("cell '", c.id, "' runs no point: its filters (",
                                    absl::StrJoin(c.points, ", "), ") match none at ", c.ranks,
                                    " ranks"));
    }
    plan.cells.push_back(PlannedCell{std::move(c), launcher, hash, std::move(owning)});
  }
  return plan;
}

absl::StatusOr<std::vector<CellJob>> PlanCellJobs(const std::vector<PlannedJob>& jobs,
                                                  const CellPlan& cell) {
  std::vector<CellJob> out;
  std::set<std::string> owned;  // by an earlier job
  for (size_t j = 0; j < jobs.size(); ++j) {
    const PlannedJob& job = jobs[j];
    // What `gpuharness run FILES --filter F` would plan for each candidate F.
    absl::StatusOr<std::vector<ExpectedPoint>> all = ExpectedPoints(job.files, cell.ranks);
    if (!all.ok()) return all.status();
    CellJob cj;
    cj.job = j;
    cj.name = jobs.size() == 1 ? "job" : absl::StrCat("job", j);
    std::vector<std::string> candidates = cell.points;
    if (!job.filter.empty()) candidates = {job.filter};
    size_t filtered_runs = SIZE_MAX;
    for (const std::string& pattern : candidates) {
      size_t runs = 0;
      for (const ExpectedPoint& p : *all) {
        if (PointNameMatches(pattern, p.point.name)) runs += p.Trials().size();
      }
      if (runs < filtered_runs) {
        cj.filter = pattern;
        filtered_runs = runs;
      }
    }
    if (candidates.empty()) filtered_runs = RunsOf(*all).size();
    absl::StatusOr<std::vector<ExpectedPoint>> mine =
        ExpectedPoints(job.files, cell.ranks, cell.points);
    if (!mine.ok()) return mine.status();
    for (ExpectedPoint& p : *mine) {
      if (owned.insert(p.point.name).second) cj.points.push_back(std::move(p));
    }
    cj.list_runs = RunsOf(cj.points).size() != filtered_runs;
    out.push_back(std::move(cj));
  }
  return out;
}

}  // namespace gh::driver
