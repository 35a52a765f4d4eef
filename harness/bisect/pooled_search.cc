#include "harness/bisect/pooled_search.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace gh {

namespace {

double Entropy(double p) {
  if (p <= 0 || p >= 1) return 0;
  return -p * std::log(p) - (1 - p) * std::log(1 - p);
}

}  // namespace

PooledSearch::PooledSearch(int num_versions, int good, int bad, PooledSearchConfig config)
    : n_(num_versions), good_(good), bad_(bad), config_(config), fails_(num_versions, 0),
      passes_(num_versions, 0), excluded_(num_versions, false) {}

void PooledSearch::Observe(int version, bool hunted) {
  if (version < 0 || version >= n_) return;
  ++(hunted ? fails_ : passes_)[version];
}

void PooledSearch::Exclude(int version) {
  if (version > good_ && version < bad_) excluded_[version] = true;
}

PooledSearch::Posterior PooledSearch::Compute() const {
  Posterior p{std::vector<double>(n_, 0.0), std::vector<double>(n_, 0.0)};
  // good_log[c]: log-likelihood of versions good..c-1 being good (0, or -inf once one of them
  // showed the failure); fail/pass_suffix[c]: counts of versions c..bad, which are bad under c.
  std::vector<double> good_log(n_ + 1, 0.0);
  for (int v = good_; v < bad_; ++v) good_log[v + 1] = fails_[v] > 0 ? -INFINITY : good_log[v];
  std::vector<int> fail_suffix(n_ + 1, 0), pass_suffix(n_ + 1, 0);
  for (int v = bad_; v >= good_; --v) {
    fail_suffix[v] = fail_suffix[v + 1] + fails_[v];
    pass_suffix[v] = pass_suffix[v + 1] + passes_[v];
  }
  const int grid = std::max(2, config_.rate_grid);
  std::vector<double> logw(static_cast<size_t>(n_) * grid, -INFINITY);
  double top = -INFINITY;
  for (int c = good_; c <= bad_; ++c) {
    for (int j = 0; j < grid; ++j) {
      const double q = Rate(j, grid);
      const double w = good_log[c] + fail_suffix[c] * std::log(q) + pass_suffix[c] * std::log(1 - q);
      logw[static_cast<size_t>(c) * grid + j] = w;
      top = std::max(top, w);
    }
  }
  double total = 0;
  for (int c = good_; c <= bad_; ++c) {
    double mass = 0, rate = 0;
    for (int j = 0; j < grid; ++j) {
      const double w = std::exp(logw[static_cast<size_t>(c) * grid + j] - top);
      mass += w;
      rate += w * Rate(j, grid);
    }
    p.mass[c] = mass;
    p.rate[c] = mass > 0 ? rate / mass : 0.5;
    total += mass;
  }
  for (double& m : p.mass) m /= total;
  return p;
}

double PooledSearch::Rate(int j, int grid) const {
  return config_.min_rate + (1 - config_.min_rate) * (j + 0.5) / grid;
}

int PooledSearch::BlockOf(int c) const {
  while (c < bad_ && excluded_[c]) ++c;
  return c;
}

double PooledSearch::Information(const Posterior& p, int version) const {
  double fail = 0, conditional = 0;
  for (int c = good_; c <= bad_; ++c) {
    const double rate = c <= version ? p.rate[c] : 0.0;
    fail += p.mass[c] * rate;
    conditional += p.mass[c] * Entropy(rate);
  }
  return Entropy(fail) - conditional;
}

std::vector<int> PooledSearch::Next(int count, const std::set<int>& busy) const {
  if (Confident()) return {};
  const Posterior p = Compute();
  std::vector<std::pair<double, int>> scored;
  for (int v = good_; v < bad_; ++v) {
    if (excluded_[v] || busy.contains(v) || trials(v) >= config_.max_trials_per_version) continue;
    const double information = Information(p, v);
    if (information > 1e-9) scored.emplace_back(-information, v);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<int> out;
  for (int i = 0; i < count && i < static_cast<int>(scored.size()); ++i) out.push_back(scored[i].second);
  return out;
}

double PooledSearch::AnswerMass() const {
  const Posterior p = Compute();
  std::vector<double> blocks(n_, 0.0);
  for (int c = good_; c <= bad_; ++c) blocks[BlockOf(c)] += p.mass[c];
  return *std::max_element(blocks.begin(), blocks.end());
}

BisectAnswer PooledSearch::Answer() const {
  const Posterior p = Compute();
  std::vector<double> blocks(n_, 0.0);
  for (int c = good_; c <= bad_; ++c) blocks[BlockOf(c)] += p.mass[c];
  BisectAnswer answer;
  answer.first_bad = static_cast<int>(std::max_element(blocks.begin(), blocks.end()) - blocks.begin());
  answer.last_good = answer.first_bad - 1;
  while (answer.last_good > good_ && excluded_[answer.last_good]) --answer.last_good;
  if (answer.first_bad == good_) answer.last_good = -1;  // the good end itself is bad
  for (int i = answer.last_good + 1; i < answer.first_bad; ++i) answer.unclassified.push_back(i);
  return answer;
}

double PooledSearch::ProbabilityBad(int version) const {
  const Posterior p = Compute();
  double bad = 0;
  for (int c = good_; c <= std::min(version, bad_); ++c) bad += p.mass[c];
  return bad;
}

}  // namespace gh
