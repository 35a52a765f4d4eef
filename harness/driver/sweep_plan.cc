#include "harness/driver/sweep_plan.h"

#include <filesystem>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
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

std::string Absolute(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

}  // namespace

absl::StatusOr<SweepPlan> PlanSweep(const std::string& matrix_path,
                                    const ListCommandRunner& list_runner) {
  SweepPlan plan;
  absl::StatusOr<Matrix> matrix = LoadMatrixFile(matrix_path, list_runner);
  if (!matrix.ok()) return matrix.status();
  plan.matrix = *std::move(matrix);
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
    absl::StatusOr<std::vector<ScenarioSpec>> specs = LoadScenarioFile(s.path);
    if (!specs.ok()) return specs.status();
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
      job->files.push_back(JobScenarioFile{Absolute(s.path), *specs, filters});
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
    size_t points = 0;
    for (const PlannedJob& job : plan.jobs) {
      absl::StatusOr<std::vector<ExpectedPoint>> expected = ExpectedPoints(job.files, c.ranks, c.points);
      if (!expected.ok()) return expected.status();
      points += expected->size();
    }
    if (points == 0) {
      SourceLoc loc = SettingLoc(m, c, [](const CellSettings& s) { return !s.points.empty(); });
      return YamlError(loc, "points",
                       absl::StrCat("cell '", c.id, "' runs no point: its filters (",
                                    absl::StrJoin(c.points, ", "), ") match none at ", c.ranks,
                                    " ranks"));
    }
    plan.cells.push_back(PlannedCell{std::move(c), launcher, hash});
  }
  return plan;
}

std::string JobFilter(const PlannedJob& job, const CellPlan& cell) {
  // With several patterns, pass the one that lets the fewest points run; the records of the
  // others' non-matching points are dropped on collection.
  std::vector<std::string> candidates = cell.points;
  if (!job.filter.empty()) candidates.insert(candidates.begin(), job.filter);
  std::string best;
  size_t best_count = SIZE_MAX;
  for (const std::string& pattern : candidates) {
    size_t count = 0;
    for (const JobScenarioFile& f : job.files) {
      for (const ScenarioSpec& spec : f.specs) {
        absl::StatusOr<std::vector<Point>> points = ExpandPoints(spec, cell.ranks);
        if (!points.ok()) continue;
        for (const Point& p : *points) count += PointNameMatches(pattern, p.name) ? 1 : 0;
      }
    }
    if (count < best_count) {
      best = pattern;
      best_count = count;
    }
  }
  return best;
}

bool JobRunsSuperset(const PlannedJob& job, const CellPlan& cell) {
  return (job.filter.empty() ? 0 : 1) + cell.points.size() > 1;
}

std::vector<std::string> RunArguments(const PlannedJob& job, const CellPlan& cell,
                                      const std::string& run_dir, const std::string& version_dir) {
  std::vector<std::string> args = {"run"};
  for (const JobScenarioFile& f : job.files) args.push_back(f.path);
  args.insert(args.end(), {"--out", run_dir, "--backend", cell.backend});
  if (cell.share_gpu) args.push_back("--share-gpu");
  std::string filter = JobFilter(job, cell);
  if (!filter.empty()) args.insert(args.end(), {"--filter", filter});
  for (const std::string& a : cell.args) {
    args.push_back(absl::StrReplaceAll(a, {{"{version_dir}", version_dir}}));
  }
  return args;
}

}  // namespace gh::driver
