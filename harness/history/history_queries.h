// What the history says about points: per night, a point's verdict (the most severe outcome of
// its trials), its trials' outcomes and its metrics' means. Only sweep records count; a
// bisect's probes are stored but are no night's verdict. Nights are ordered by label (the
// nightly's default labels are UTC times, so that is time order).
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
  auto operator<=>(const HistoryPointKey&) const = default;
  std::string ToString() const;     // "matrix [cell] :: point"
};

struct NightResult {
  std::string night, version;
  std::string verdict;               // the most severe trial outcome
  std::vector<std::string> outcomes; // per trial, in trial order
  std::string signature;             // the first non-pass trial's
  bool unmet = false;                // a trial did not meet its expectation
  std::map<std::string, double> metrics;  // name -> mean over trials
  std::map<std::string, std::string> units;
};

struct PointHistory {
  HistoryPointKey key;
  std::vector<NightResult> nights;  // in night order
};

struct Flip {
  HistoryPointKey key;
  std::string from, to;              // verdicts
  std::string night, version;        // where it changed
  std::string previous_night, previous_version;
  std::string signature;             // tonight's
};

struct Flaky {
  HistoryPointKey key;
  int changes = 0;                   // verdict changes across nights
  std::vector<std::string> mixed_nights;  // nights whose trials disagree
  std::string strip;                 // verdict per night, "pass fail pass"
};

absl::StatusOr<std::vector<std::string>> Nights(const HistoryDb& db);
// Every point (point == "" ) or the one named, across nights.
absl::StatusOr<std::vector<PointHistory>> LoadHistories(const HistoryDb& db, const std::string& point = "");
// Every change of verdict between consecutive nights a point ran in; `night` keeps only
// changes on that night.
std::vector<Flip> FindFlips(const std::vector<PointHistory>& histories, const std::string& night = "");
std::vector<Flaky> FindFlaky(const std::vector<PointHistory>& histories);
bool IsFailure(const std::string& outcome);  // fail, error, timeout, crash

}  // namespace gh

#endif  // GPUHARNESS_HISTORY_HISTORY_QUERIES_H_
