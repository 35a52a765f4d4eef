// The lines `gpuharness history` prints: as text for people (one line per finding, control
// characters escaped) or as TSV for scripts (fields escaped reversibly: history_text.h).
// docs/reference/history.md lists the TSV columns.
#ifndef GPUHARNESS_HISTORY_HISTORY_LISTING_H_
#define GPUHARNESS_HISTORY_HISTORY_LISTING_H_

#include <string>
#include <vector>

#include "harness/history/history_findings.h"
#include "harness/history/history_queries.h"
#include "harness/history/night_regressions.h"

namespace gh {

enum class ListingFormat { kText, kTsv };

// Each series night by night: night, version, verdict, trials, signature, metrics.
std::string ShowListing(const std::vector<PointHistory>& histories);
// What is broken now, since which night, the last good night; text starts with a headline.
std::string StatusListing(const std::vector<std::string>& nights, const std::vector<PointHistory>& histories,
                          ListingFormat format);
std::string FlipsListing(const std::vector<Flip>& flips, ListingFormat format);
std::string FlakyListing(const std::vector<Flaky>& flaky, ListingFormat format);
std::string RegressionsListing(const NightRegressions& regressions, ListingFormat format);

}  // namespace gh

#endif  // GPUHARNESS_HISTORY_HISTORY_LISTING_H_
