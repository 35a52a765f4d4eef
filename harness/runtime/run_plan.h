// What a job will do: every point × trial of every scenario, in order, each either to run or
// to skip with the reason (the job's rank count or backend does not suit it). Every rank plans
// the same list, so ranks agree on what runs without talking.
#ifndef GPUHARNESS_RUNTIME_RUN_PLAN_H_
#define GPUHARNESS_RUNTIME_RUN_PLAN_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/expectation.h"
#include "harness/core/point.h"
#include "harness/core/record.h"
#include "harness/core/registry.h"
#include "harness/core/scenario_spec.h"

namespace gh {

struct LoadedScenario {
  std::string file;  // as given on the command line
  ScenarioSpec spec;
};

struct PlannedRun {
  const LoadedScenario* scenario = nullptr;
  const KindInfo* kind = nullptr;
  Point point;
  int trial = 0;
  std::string skip_reason;  // empty: run it
};

// `scenarios` must outlive the plan (points point at their specs). Points whose names do not
// match `filter` are left out. Skips: "needs <req> ranks, job has N" and "kind K has no B
// backend". Expansion errors are InvalidArgument naming the file.
absl::StatusOr<std::vector<PlannedRun>> PlanRuns(const std::vector<LoadedScenario>& scenarios,
                                                 const ScenarioRegistry& registry, int nranks,
                                                 Backend backend, const std::string& filter);

// Keeps the runs the file at `path` lists (core/run_list.h), in plan order. A listed run the
// plan does not hold, an unreadable or malformed file: InvalidArgument naming path:line.
absl::StatusOr<std::vector<PlannedRun>> KeepListedRuns(std::vector<PlannedRun> plan,
                                                       const std::string& path);

// The record of `run` in a job whose environment `facts` describe (MakeRecord): the result a
// pass until SetResult, started_at and duration_s the caller's.
Record RecordFor(const PlannedRun& run, const EnvironmentFacts& facts);

// A point-level skip with no per-rank details.
PointOutcome SkipOutcome(const std::string& reason);

// RFC 3339 UTC with milliseconds, "2026-11-29T09:16:09.123Z".
std::string Rfc3339Utc(absl::Time time);

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_RUN_PLAN_H_
