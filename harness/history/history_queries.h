// What the history says about points: per night, a point's verdict (the most severe outcome of
// its trials), its trials' outcomes and its metrics' means. Only sweep records count; a
// bisect's probes are stored but are no night's verdict. Nights are ordered by label (the
// nightly's default labels are UTC times, so that is time order).
//
// A point's series is its matrix, cell (flag axes) and name; in a matrix that sweeps several
// versions in one night (a version matrix), each version is a series of its own, so the
// versions of one night are never taken for trials of one point. The nightly's matrices sweep
// one version a night (tonight's build): there the series runs across versions.
#ifndef GPUHARNESS_HISTORY_HISTORY_QUERIES_H_
#define GPUHARNESS_HISTORY_HISTORY_QUERIES_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/history/history_db.h"

namespace gh {

struct HistoryPointKey {
  std::string matrix, cell, point;  // cell: flag axes "transport=p2p" (version axes left out)
  std::string version;              // in a version matrix, the series' version; else ""
  auto operator<=>(const HistoryPointKey&) const = default;
  std::string ToString() const;     // "matrix [cell] :: point", then " @ version" when set
};

struct NightResult {
  std::string night, version;
  // The most severe outcome of the trials that ran (infra only when every trial was infra:
  // the machinery failed, which is no verdict on the code).
  std::string verdict;
  std::vector<std::string> outcomes; // per trial, in trial order
  std::string signature;             // the first trial's with the verdict's outcome
  bool unmet = false;                // a trial did not meet its expectation
  std::string expected;              // the first trial's expected outcome ("" when not stored)
  std::map<std::string, double> metrics;  // name -> mean over trials
  std::map<std::string, std::string> units;
  int judged = 0;                    // trials with a verdict on the code (neither skip nor infra)
  int failed = 0;                    // of those, fail, error, timeout or crash
  // A verdict on the code: something ran that could be judged (not only infra trials).
  bool has_verdict() const { return verdict != "infra"; }
  // The verdict as a person reads it: "crash", "crash (expected)", "pass (expected fail)".
  std::string Described() const;
};

struct PointHistory {
  HistoryPointKey key;
  std::vector<NightResult> nights;  // in night order
};

// Every night with sweep records, in order.
absl::StatusOr<std::vector<std::string>> Nights(const HistoryDb& db);
// Every point's series across nights, or those whose point name matches one of `point_globs`
// (core/glob.h: '*' any run, '?' one character; a name without them matches itself).
absl::StatusOr<std::vector<PointHistory>> LoadHistories(const HistoryDb& db,
                                                        const std::vector<std::string>& point_globs = {});
bool IsFailure(const std::string& outcome);  // fail, error, timeout, crash

}  // namespace gh

#endif  // GPUHARNESS_HISTORY_HISTORY_QUERIES_H_
