// The three questions a nightly reader asks of the history, answered from the points' series
// (history_queries.h): what is broken now and since when (status), what changed on a night
// (flips), and what fails now and then (flaky, with how often). Nights a point ran only infra
// trials in (the machinery failed) are no verdict and are passed over.
#ifndef GPUHARNESS_HISTORY_HISTORY_FINDINGS_H_
#define GPUHARNESS_HISTORY_HISTORY_FINDINGS_H_

#include <string>
#include <vector>

#include "harness/history/failure_rate.h"
#include "harness/history/history_queries.h"

namespace gh {

// A point whose last result does not meet its expectation.
struct Broken {
  HistoryPointKey key;
  NightResult now;                 // its latest night with a verdict
  std::string since, since_version;          // the first night of the unmet run that ends now
  std::string last_good, last_good_version;  // the night before it, which met ("" never)
  int nights = 0;                  // nights of that run
  bool infra_tonight = false;      // the matrix's latest night gave it only infra trials
  std::string SinceText() const;     // "night2 (version n08), 2 nights"
  std::string LastGoodText() const;  // "night1 (version n03)", or "never"
};

struct Flip {
  HistoryPointKey key;
  std::string from, to;              // verdicts
  std::string night, version;        // where it changed
  std::string previous_night, previous_version;
  std::string signature;             // tonight's
  bool unmet = false;                // tonight's result does not meet its expectation
};

struct Flaky {
  HistoryPointKey key;
  int changes = 0;                   // verdict changes across nights
  std::vector<std::string> mixed_nights;  // nights whose trials disagree
  std::string strip;                 // verdict per night, "pass fail pass"
  FailureRate trials;                // failed trials of the judged ones, all nights
  int failed_nights = 0, nights = 0; // nights with a failure, of the nights with a verdict
};

// Points that ran on their matrix's latest night and whose last verdict there (or, when that
// night was infra only, before it) is unmet; most recently broken first, then by name.
std::vector<Broken> FindBroken(const std::vector<PointHistory>& histories);
// Every change of verdict between consecutive nights a point had a verdict in; `night` keeps
// only changes on that night.
std::vector<Flip> FindFlips(const std::vector<PointHistory>& histories, const std::string& night = "");
// Points whose verdict changed at least twice (one change is a regression or a fix) or whose
// trials disagreed on a night; highest failure rate first.
std::vector<Flaky> FindFlaky(const std::vector<PointHistory>& histories);

}  // namespace gh

#endif  // GPUHARNESS_HISTORY_HISTORY_FINDINGS_H_
