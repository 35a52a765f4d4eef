// One line of records.jsonl: a point × trial's outcome, under a versioned schema
// (results/SCHEMA.md documents every field).
#ifndef GPUHARNESS_CORE_RECORD_H_
#define GPUHARNESS_CORE_RECORD_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/expectation.h"
#include "harness/core/outcome.h"
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
  // How the point's trials add up to its result (written only when trials > 1; YAML's form:
  // "any_failure" or {"failure_rate_above": 0.2}).
  TrialVerdictRule verdict;
  PointOutcome result;         // outcome, signature, per-rank details, metrics
  Expectation expected;
  bool matched = true;         // result meets `expected`
  bool gpu_shared = false;     // ranks shared a GPU (--share-gpu)
  // A skip because the job ended before this run could start (another point's timeout, a lost
  // CUDA context): it says nothing about the point, and a sweep runs it again in a new job.
  // Written only when true.
  bool not_run = false;
  std::string started_at;      // RFC 3339 UTC
  double duration_s = 0;       // wall time of the point × trial, harness work included
  std::map<std::string, std::string> cell;  // sweep-cell axis values (empty for plain runs)
};

nlohmann::json RecordToJson(const Record& record);
absl::StatusOr<Record> RecordFromJson(const nlohmann::json& json);

}  // namespace gh

#endif  // GPUHARNESS_CORE_RECORD_H_
