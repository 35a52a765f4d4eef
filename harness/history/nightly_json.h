// nightly.json: what one night of ci/nightly.sh did, as data (results/SCHEMA.md, "nightly.json").
// `gpuharness history summary` writes it beside the night's summary.md; `history ingest` reads a
// night directory's label from it and the summary reads the baseline night's version from it.
#ifndef GPUHARNESS_HISTORY_NIGHTLY_JSON_H_
#define GPUHARNESS_HISTORY_NIGHTLY_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "harness/core/state_json.h"
#include "nlohmann/json.hpp"

namespace gh {

// The format's version, written as "schema_version"; a file without one is version 1 (written
// before the field existed, with the same fields); a newer one is refused.
inline constexpr int kNightlyJsonSchemaVersion = 1;
inline constexpr char kNightlyJsonFile[] = "nightly.json";

// What readers take from a night's nightly.json (the rest is for people and their tools).
struct NightlyHeadline {
  std::string night;             // the night's label
  std::string cluster;
  std::string version;           // the version the night swept
  int status = 0;                // ci/nightly.sh's exit status
  bool good = false;             // the night became the baseline
};

// The "schema_version" of the nightly's state files (nightly.json, regressions.json): absent is
// 1; below 1 or above `newest` is InvalidArgument "FILE: schema_version: 2 is newer than this
// gpuharness reads (1)".
absl::Status CheckSchemaVersion(const StateJson& root, int newest);

// Reads DIR/nightly.json strictly: InvalidArgument "FILE: key: ..." for a missing or mistyped
// field, a night label that is no label (core/name_rules.h), or a newer schema_version.
absl::StatusOr<NightlyHeadline> ReadNightlyJson(const std::string& night_dir);

}  // namespace gh

#endif  // GPUHARNESS_HISTORY_NIGHTLY_JSON_H_
