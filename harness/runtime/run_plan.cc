#include "harness/runtime/run_plan.h"

#include <algorithm>
#include <variant>

#include "absl/strings/str_cat.h"

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

nlohmann::json PointParamsJson(const Point& point) {
  nlohmann::json params = nlohmann::json::object();
  for (const PointParam& param : point.params) {
    std::visit([&](const auto& value) { params[param.name] = value; }, param.value);
  }
  return params;
}

Record RecordFor(const PlannedRun& run, Backend backend, int nranks, bool gpu_shared,
                 const EnvironmentFacts& facts) {
  Record record;
  const ScenarioSpec& spec = run.scenario->spec;
  record.scenario = spec.name;
  record.kind = spec.kind;
  record.description = spec.description;
  record.file = run.scenario->file;
  record.point = run.point.name;
  record.params = PointParamsJson(run.point);
  record.backend = std::string(BackendName(backend));
  record.nranks = nranks;
  record.trial = run.trial;
  record.trials = spec.trials;
  record.verdict = spec.verdict;
  record.expected = ExpectationFor(spec.expect, run.point, facts);
  record.gpu_shared = gpu_shared;
  return record;
}

void SetResult(Record& record, PointOutcome result) {
  record.result = std::move(result);
  record.matched =
      MeetsExpectation(record.expected, record.result.outcome, record.result.signature);
}

PointOutcome SkipOutcome(const std::string& reason) {
  PointOutcome outcome;
  outcome.outcome = Outcome::kSkip;
  outcome.signature = reason;
  return outcome;
}

std::string Rfc3339Utc(absl::Time time) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", time, absl::UTCTimeZone());
}

}  // namespace gh
