#include "harness/runtime/run_plan.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "harness/core/file_util.h"
#include "harness/core/point_filter.h"
#include "harness/core/run_list.h"

namespace gh {

absl::StatusOr<std::vector<PlannedRun>> PlanRuns(const std::vector<LoadedScenario>& scenarios,
                                                 const ScenarioRegistry& registry, int nranks,
                                                 Backend backend, const std::string& filter) {
  std::vector<PlannedRun> plan;
  for (const LoadedScenario& scenario : scenarios) {
    const ScenarioSpec& spec = scenario.spec;
    const KindInfo* kind = registry.Find(spec.kind);
    if (kind == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(spec.loc.ToString(), ": kind: '", spec.kind,
                                                     "' is not a registered scenario kind"));
    }
    absl::StatusOr<std::vector<Point>> points = ExpandPoints(spec, nranks);
    if (!points.ok()) return points.status();
    std::string skip_reason;
    if (!spec.ranks.Admits(nranks)) {
      skip_reason = absl::StrCat("needs ", spec.ranks.ToString(), " ranks, job has ", nranks);
    } else if (std::find(kind->backends.begin(), kind->backends.end(), backend) ==
               kind->backends.end()) {
      skip_reason = absl::StrCat("kind ", kind->name, " has no ", std::string(BackendName(backend)), " backend");
    }
    for (Point& point : *points) {
      if (!PointNameMatches(filter, point.name)) continue;
      for (int trial = 0; trial < spec.trials; ++trial) {
        plan.push_back(PlannedRun{&scenario, kind, point, trial, skip_reason});
      }
    }
  }
  return plan;
}

absl::StatusOr<std::vector<PlannedRun>> KeepListedRuns(std::vector<PlannedRun> plan,
                                                       const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return absl::InvalidArgumentError(absl::StrCat("--runs: ", text.status().message()));
  std::vector<int> lines;
  absl::StatusOr<std::vector<RunKey>> listed = ParseRunList(*text, path, &lines);
  if (!listed.ok()) return listed.status();
  std::map<RunKey, int> line_of;  // listed runs not found yet -> their line
  for (size_t i = 0; i < listed->size(); ++i) line_of[(*listed)[i]] = lines[i];
  std::vector<PlannedRun> kept;
  for (PlannedRun& run : plan) {
    if (line_of.erase(RunKey{run.point.name, run.trial}) > 0) kept.push_back(std::move(run));
  }
  if (!line_of.empty()) {
    auto first = std::min_element(line_of.begin(), line_of.end(),
                                  [](const auto& a, const auto& b) { return a.second < b.second; });
    return absl::InvalidArgumentError(absl::StrCat(path, ":", first->second, ": run '",
                                                   first->first.point, "' trial ",
                                                   first->first.trial,
                                                   " is not a run of these scenarios"));
  }
  return kept;
}

Record RecordFor(const PlannedRun& run, const EnvironmentFacts& facts) {
  return MakeRecord(run.scenario->spec, run.scenario->file, run.point, run.trial, facts);
}

PointOutcome SkipOutcome(const std::string& reason) { return PointOutcome::Skip(reason); }

std::string Rfc3339Utc(absl::Time time) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", time, absl::UTCTimeZone());
}

}  // namespace gh
