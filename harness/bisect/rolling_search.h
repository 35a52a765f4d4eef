// --jobs K without rounds: K trials always in flight. When one finishes its probe's next trial,
// or a new probe, starts at once; a new probe splits the largest run of candidates the probes in
// flight leave, so while the middle runs both of its halves are probed speculatively. Each probe
// is decided by its own rule (a sequential test, or its first trial); a probe the others have made useless (outside the last
// good..first bad range) takes no more trials.
#ifndef GPUHARNESS_BISECT_ROLLING_SEARCH_H_
#define GPUHARNESS_BISECT_ROLLING_SEARCH_H_

#include <set>

#include "absl/status/status.h"
#include "harness/bisect/bisect_runner.h"
#include "harness/bisect/bisect_search.h"

namespace gh {

// The version a new probe should take: the middle candidate of the largest run of unprobed
// versions between the last good version, the first bad one and the versions in `open`
// (ties: the earliest run). -1 when none is left.
int SpeculativeNext(const BisectSearch& search, const std::set<int>& open);

// Runs the search after the ends through runner.Start/Wait; appends each probe to
// result.probes when it is decided (round: 1 + the highest round decided when it started) and
// sets result.rounds and result.answer.
absl::Status RunRolling(const BisectConfig& config, TrialRunner& runner, const Hunt& hunt, const ProbeRule& rule,
                        BisectResult& result, const ProbeCallback& on_probe);

}  // namespace gh

#endif  // GPUHARNESS_BISECT_ROLLING_SEARCH_H_
