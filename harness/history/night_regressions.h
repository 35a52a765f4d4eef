// A night's regressions, for ci/nightly.sh (`gpuharness history regressions`): one sweep of
// tonight against the same matrix's sweep on the baseline night, by the comparison every report
// uses (core/comparison.h): the version axes are left out when matching points (they differ
// every night), and a regression is a point whose baseline trials all passed and of which a
// trial failed tonight (fail, error, timeout, crash; infra is no verdict). It is *new* when the
// history shows its point turning to a failure on this night (history_findings.h FindFlips), so
// the nightly bisects each regression once. Written as <matrix>/regressions.json
// (results/SCHEMA.md).
#ifndef GPUHARNESS_HISTORY_NIGHT_REGRESSIONS_H_
#define GPUHARNESS_HISTORY_NIGHT_REGRESSIONS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/history/history_queries.h"
#include "nlohmann/json.hpp"

namespace gh {

inline constexpr int kRegressionsJsonSchemaVersion = 1;

struct NightRegression {
  std::string point;
  std::map<std::string, std::string> cell;  // flag axes only
  std::string cell_arg;                     // "axis=label,..." as `bisect --cell` takes it
  std::string now;                          // tonight's most severe outcome
  int failed_trials = 0, trials = 0;        // judged failures tonight, of all trials
  std::string signature;                    // tonight's first failure's
  std::string version, baseline_version;    // the version axis labels on each side ("" none)
  bool is_new = true;
};

struct NightRegressions {
  std::string matrix;
  std::vector<std::string> version_axes;  // left out when matching
  std::vector<NightRegression> regressions;
  std::vector<std::string> warnings;      // what was read but left out (not written)
  nlohmann::json ToJson() const;
  // Reads what ToJson wrote, strictly (core/state_json.h); `file` names it in errors.
  static absl::StatusOr<NightRegressions> FromJson(const nlohmann::json& json, const std::string& file);
};

// Compares results directory `night_dir` with `baseline_dir`. `histories` (the matrix's series)
// decide which regressions are new on `night`; with `night` empty every one is.
absl::StatusOr<NightRegressions> FindNightRegressions(const std::string& night_dir, const std::string& baseline_dir,
                                                      const std::vector<PointHistory>& histories,
                                                      const std::string& night);

}  // namespace gh

#endif  // GPUHARNESS_HISTORY_NIGHT_REGRESSIONS_H_
