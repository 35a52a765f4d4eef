// Bayesian bisection over the change point (as BBChop does for git): for a flaky failure, every
// trial of every version is evidence about where the failure starts, so the search keeps one
// posterior over "the first bad version is c" instead of deciding each probe alone. Good
// versions never show the hunted failure (a version that showed it is bad, never good); bad ones
// show it with an unknown rate q (uniform prior on a grid above p_bad, learnt from all trials,
// the bad end's included). Each next trial
// goes to the version whose outcome tells most about c (mutual information); the search ends
// when one answer holds 1 - error of the posterior. Pure logic: outcomes come from outside.
#ifndef GPUHARNESS_BISECT_POOLED_SEARCH_H_
#define GPUHARNESS_BISECT_POOLED_SEARCH_H_

#include <set>
#include <vector>

#include "harness/bisect/bisect_search.h"

namespace gh {

struct PooledSearchConfig {
  double error = 0.01;           // stop when the answer's posterior is >= 1 - error
  int max_trials_per_version = 20;
  // The unknown failure rate q of bad versions: a uniform prior over rate_grid points in
  // (min_rate, 1). min_rate is the SPRT's p_bad: a rarer failure cannot be told from a good
  // version's, and allowing it would let every pass be explained by a tiny rate.
  double min_rate = 0.3;
  int rate_grid = 40;
};

class PooledSearch {
 public:
  // Versions 0..num_versions-1; the first bad version c is in good..bad, where c = good means
  // the good end itself is bad (Answer().first_bad == good, last_good -1).
  PooledSearch(int num_versions, int good, int bad, PooledSearchConfig config);

  void Observe(int version, bool hunted);  // one trial: the hunted failure, or a pass
  void Exclude(int version);               // skip or other: carries no evidence, never probed

  // The version to try next, not in `busy` (trials in flight); none when Done().
  std::vector<int> Next(int count, const std::set<int>& busy = {}) const;
  bool Confident() const { return AnswerMass() >= 1 - config_.error; }
  bool Done() const { return Confident() || Next(1).empty(); }
  BisectAnswer Answer() const;  // the most probable answer (truncated when !Confident())
  double AnswerMass() const;    // its posterior probability
  // Posterior probability that `version` is bad (c <= version).
  double ProbabilityBad(int version) const;
  int trials(int version) const { return fails_[version] + passes_[version]; }

 private:
  struct Posterior {
    std::vector<double> mass;  // P(c), index c (0 outside good+1..bad)
    std::vector<double> rate;  // E[q | c]
  };
  Posterior Compute() const;
  int BlockOf(int c) const;
  double Rate(int j, int grid) const;  // the j-th grid point of q
  double Information(const Posterior& p, int version) const;

  int n_, good_, bad_;
  PooledSearchConfig config_;
  std::vector<int> fails_, passes_;
  std::vector<bool> excluded_;
};

}  // namespace gh

#endif  // GPUHARNESS_BISECT_POOLED_SEARCH_H_
