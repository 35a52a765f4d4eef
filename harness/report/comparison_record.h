// What a results directory was compared with, written beside its reports as DIR/comparison.json
// (results/SCHEMA.md) by the sweep and by `gpuharness report --baseline`: the baseline (where it
// was, relative to DIR and absolute, and which records it held: their count and a hash of its
// records.jsonl), the axes left out when matching cells, the point filter the baseline was
// narrowed by, and how metrics were compared. `gpuharness report DIR` reads it back to write the
// same reports again, and says so when the baseline is no longer there or no longer the same.
#ifndef GPUHARNESS_REPORT_COMPARISON_RECORD_H_
#define GPUHARNESS_REPORT_COMPARISON_RECORD_H_

#include <optional>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "harness/core/perf_comparison.h"
#include "nlohmann/json.hpp"

namespace gh {

inline constexpr int kComparisonRecordSchemaVersion = 1;
inline constexpr char kComparisonRecordFile[] = "comparison.json";

// Which baseline it was: where, and what it held.
struct BaselineIdentity {
  std::string relative;      // its directory relative to the results directory ("../2026-11-28")
  std::string absolute;      // and its absolute path, when it was recorded
  std::string records_hash;  // StableHash (core/stable_hash.h) of its records.jsonl
  int records = 0;           // the records in it
};

struct ComparisonRecord {
  std::optional<BaselineIdentity> baseline;  // none: compared with expectations only
  std::set<std::string> ignore_axes;          // --baseline-ignore
  std::string filter;                         // --filter the baseline was narrowed by; "" none
  PerfOptions perf;                           // threshold and warn_only are recorded

  nlohmann::json ToJson() const;
  // InvalidArgument "FILE: key: ..." for a malformed record or a newer schema_version.
  static absl::StatusOr<ComparisonRecord> FromJson(const nlohmann::json& json, const std::string& file);
};

// The identity of the results directory `baseline_dir` as seen from `results_dir`.
// InvalidArgument when its records.jsonl cannot be read.
absl::StatusOr<BaselineIdentity> IdentifyBaseline(const std::string& baseline_dir, const std::string& results_dir);

// The identity as a comparison.json in `to_dir` names it: the relative path, recorded from
// `from_dir`, rebased (`gpuharness report DIR --out DIR2` writes DIR's comparison into DIR2).
BaselineIdentity RebasedBaseline(BaselineIdentity identity, const std::string& from_dir, const std::string& to_dir);

// Where the recorded baseline is now: its path relative to `results_dir` first (the two moved
// together), then its absolute path.
struct LocatedBaseline {
  enum class State { kSame, kChanged, kMissing };
  State state = State::kMissing;
  std::string dir;  // the directory found (as a path usable from here); "" when missing
  // Why it cannot be the baseline the reports were written with ("" for kSame):
  // "../base (/abs/base) is gone: moved or removed since the comparison was recorded" or
  // "../base holds other records than when the comparison was recorded (now 21, hash ...; then
  // 20, hash ...)".
  std::string problem;
};
LocatedBaseline LocateBaseline(const BaselineIdentity& identity, const std::string& results_dir);

// DIR/comparison.json, nullopt when there is none; InvalidArgument naming the file when it is
// malformed.
absl::StatusOr<std::optional<ComparisonRecord>> ReadComparisonRecord(const std::string& results_dir);

}  // namespace gh

#endif  // GPUHARNESS_REPORT_COMPARISON_RECORD_H_
