#include "harness/bisect/bisect_search.h"

#include <algorithm>
#include <cstdint>

namespace gh {

std::vector<int> SplitPositions(int m, int k) {
  k = std::min(k, m);
  std::vector<int> positions;
  for (int j = 1; j <= k; ++j) {
    // The j-th of k cuts through the m+1 gaps: parts of floor or ceil((m - k) / (k + 1)).
    positions.push_back(static_cast<int>((static_cast<int64_t>(j) * (m + 1)) / (k + 1)) - 1);
  }
  return positions;
}

BisectSearch::BisectSearch(int num_versions, int good, int bad, int jobs)
    : num_versions_(num_versions), good_end_(good), bad_end_(bad), jobs_(std::max(1, jobs)) {}

void BisectSearch::Record(int index, ProbeVerdict verdict) {
  if (index < 0 || index >= num_versions_) return;
  verdicts_[index] = verdict;
}

int BisectSearch::first_bad() const {
  for (const auto& [index, verdict] : verdicts_) {
    if (verdict == ProbeVerdict::kBad) return index;
  }
  return bad_end_;
}

int BisectSearch::last_good() const {
  const int bad = first_bad();
  int good = good_end_;
  for (const auto& [index, verdict] : verdicts_) {
    if (index < bad && verdict == ProbeVerdict::kGood) good = std::max(good, index);
  }
  return good;
}

std::vector<int> BisectSearch::Candidates() const {
  std::vector<int> out;
  for (int i = last_good() + 1; i < first_bad(); ++i) {
    if (!verdicts_.contains(i)) out.push_back(i);
  }
  return out;
}

std::vector<int> BisectSearch::NextRound() const {
  const std::vector<int> candidates = Candidates();
  std::vector<int> round;
  for (int position : SplitPositions(static_cast<int>(candidates.size()), jobs_)) {
    round.push_back(candidates[position]);
  }
  return round;
}

BisectAnswer BisectSearch::Answer() const {
  BisectAnswer answer;
  answer.first_bad = first_bad();
  answer.last_good = last_good();
  for (int i = answer.last_good + 1; i < answer.first_bad; ++i) answer.unclassified.push_back(i);
  for (const auto& [index, verdict] : verdicts_) {
    if (index > answer.first_bad && verdict == ProbeVerdict::kGood) {
      answer.contradictions.emplace_back(index, answer.first_bad);
    }
  }
  return answer;
}

}  // namespace gh
