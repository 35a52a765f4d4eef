// One line of records.jsonl: a point × trial's outcome, under a versioned schema
// (results/SCHEMA.md documents every field).
#ifndef GPUHARNESS_CORE_RECORD_H_
#define GPUHARNESS_CORE_RECORD_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/expectation.h"
#include "harness/core/metric_expectation.h"
#include "harness/core/nccl_inspector_view.h"
#include "harness/core/outcome.h"
#include "harness/core/point.h"
#include "harness/core/scenario_spec.h"
#include "harness/core/trial_verdict.h"
#include "nlohmann/json.hpp"

namespace gh {

inline constexpr int kRecordSchemaVersion = 1;

struct Record {
  int schema_version = kRecordSchemaVersion;
  std::string scenario;        // ScenarioSpec::name
  std::string kind;
  std::string description;     // the scenario's description; written only when not empty
  std::string file;            // scenario file as given on the command line
  std::string point;           // Point::name
  nlohmann::json params = nlohmann::json::object();  // {"bytes": 1048576, "dtype": "f32", ...} every param, typed
  std::string backend;         // "host" / "cuda"
  int nranks = 1;
  int trial = 0;               // 0-based
  int trials = 1;
  // Which of the cell's processes measured it (`sweep --processes N`, N > 1: 0..N-1, each its
  // own job, one after another). Unset (not written) when the cell ran once: records of one
  // job then tell their processes apart only by restarting trial numbers.
  std::optional<int> process;
  // How the point's trials add up to its result (written only when trials > 1; YAML's form:
  // "any_failure" or {"failure_rate_above": 0.2}).
  TrialVerdictRule verdict;
  PointOutcome result;         // outcome, signature, per-rank details, metrics
  Expectation expected;
  bool matched = true;         // result meets `expected` (a known failure counts as met)
  // The result missed `expected` as its known issue says (Expectation::known): met, but shown
  // apart as a known failure. Written only when true.
  bool known_failure = false;
  // Bounds on the point's metrics that hold here (scenario `expect_metrics:`), judged over the
  // point's passing trials by the comparison (core/metric_expectation.h). Written in `expected`.
  std::vector<MetricBound> metric_bounds;
  bool gpu_shared = false;     // ranks shared a GPU (--share-gpu)
  // What the numbers were measured on, for deciding whether two runs' metrics compare: the GPU
  // model (rank 0's), or on the host backend "cpu: <model>". Written only when not empty.
  std::string hardware;
  int warmup = 0;              // the spec's untimed and timed iterations per trial; written
  int iterations = 0;          // (as `timing`) only when a metric carries samples
  // A skip because the job ended before this run could start (another point's timeout, a lost
  // CUDA context): it says nothing about the point, and a sweep runs it again in a new job.
  // Written only when true.
  bool not_run = false;
  std::string started_at;      // RFC 3339 UTC
  double duration_s = 0;       // wall time of the point × trial, harness work included
  std::map<std::string, std::string> cell;  // sweep-cell axis values (empty for plain runs)
  // NCCL's Inspector's per-collective summary of the point, or why there is none, when the
  // scenario asked for it (`nccl_inspector: true`); empty (not written) otherwise.
  NcclInspectorView nccl_inspector;
};

// The one constructor of a record: trial `trial` of `point` of `spec` (loaded from `file`), in
// a job whose environment `facts` describe (EnvironmentFingerprint::Facts(): backend, nranks,
// gpu_shared, nccl_version, env.NAME). The record's backend, nranks and gpu_shared are the
// facts' (nranks falls back to the point's); its expectation is the first rule of
// `spec.expect` whose conditions hold for the point in those facts; trials, verdict rule and
// description are the spec's. The result is a pass until SetResult; started_at, duration_s,
// not_run, cell and process are the caller's to fill.
Record MakeRecord(const ScenarioSpec& spec, const std::string& file, const Point& point,
                  int trial, const EnvironmentFacts& facts);

// Sets the result and whether it met the expectation: the one place `matched` and
// `known_failure` are decided.
void SetResult(Record& record, PointOutcome result);

// Every parameter of the point with its typed value (bytes as integers).
nlohmann::json PointParamsJson(const Point& point);

nlohmann::json RecordToJson(const Record& record);
absl::StatusOr<Record> RecordFromJson(const nlohmann::json& json);

}  // namespace gh

#endif  // GPUHARNESS_CORE_RECORD_H_
