// The search of a bisect over an ordered list of versions: which versions to probe next (K at a
// time for --jobs K), and the answer once every version between the last good and the first
// bad one is probed or unclassifiable. Pure logic: the verdicts come from outside.
#ifndef GPUHARNESS_BISECT_BISECT_SEARCH_H_
#define GPUHARNESS_BISECT_BISECT_SEARCH_H_

#include <map>
#include <utility>
#include <vector>

#include "harness/bisect/probe.h"

namespace gh {

struct BisectAnswer {
  int last_good = -1;             // version index
  int first_bad = -1;
  std::vector<int> unclassified;  // indices strictly between them (skip or other), ascending
  // Good verdicts found after a bad one: the range is not monotone; the answer is about the
  // earliest bad version and the good one just before it.
  std::vector<std::pair<int, int>> contradictions;  // (good index, first bad index)
};

class BisectSearch {
 public:
  // Versions 0..num_versions-1 in order; `good` < `bad` are the ends, assumed good and bad
  // (the caller checks them first). `jobs` >= 1 probes at most that many per round.
  BisectSearch(int num_versions, int good, int bad, int jobs);

  // The next round: up to `jobs` unprobed versions strictly between the last good and the first
  // bad version, chosen to split the remaining candidates into jobs+1 equal parts (the middle one
  // for jobs = 1). Versions already found unclassifiable are left out, so a skipped version's
  // neighbour is probed next. Empty when the search is done.
  std::vector<int> NextRound() const;
  void Record(int index, ProbeVerdict verdict);
  bool Done() const { return NextRound().empty(); }
  BisectAnswer Answer() const;

  int last_good() const;
  int first_bad() const;
  const std::map<int, ProbeVerdict>& verdicts() const { return verdicts_; }

 private:
  std::vector<int> Candidates() const;
  int num_versions_;
  int good_end_;
  int bad_end_;
  int jobs_;
  std::map<int, ProbeVerdict> verdicts_;
};

// Positions (0-based, ascending) of k probes among m candidates splitting them into k+1 parts
// whose sizes differ by at most one. k is clamped to m.
std::vector<int> SplitPositions(int m, int k);

}  // namespace gh

#endif  // GPUHARNESS_BISECT_BISECT_SEARCH_H_
