#include "harness/bisect/answer_confirmation.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace gh {

double FlakyAnswerRisk(const std::map<int, VersionEvidence>& evidence, const RiskModel& model, int last_good,
                       int first_bad) {
  std::vector<std::pair<int, VersionEvidence>> points;  // versions with evidence, ascending
  for (const auto& [version, e] : evidence) {
    if (version >= model.good && version <= model.bad && (e.hunted > 0 || e.passes > 0)) points.emplace_back(version, e);
  }
  const size_t m = points.size();
  // Change points c in (points[i-1], points[i]] (i = m: after the last) see versions points[i..]
  // as bad, the others as good: one likelihood per segment.
  std::vector<int> hunted(m + 1, 0), passes(m + 1, 0);
  for (size_t i = m; i-- > 0;) {
    hunted[i] = hunted[i + 1] + points[i].second.hunted;
    passes[i] = passes[i + 1] + points[i].second.passes;
  }
  std::vector<double> good_side(m + 1, 1.0);
  for (size_t i = 0; i < m; ++i) {
    good_side[i + 1] = good_side[i] * std::pow(model.p_good, points[i].second.hunted) *
                       std::pow(1 - model.p_good, points[i].second.passes);
  }
  std::vector<double> wrong(m + 1, 0.0);  // change points in each segment outside the answer
  for (size_t i = 0; i <= m; ++i) {
    const int from = i == 0 ? model.good - 1 : points[i - 1].first;  // exclusive
    const int to = i == m ? model.bad : points[i].first;              // inclusive
    const int right = std::max(0, std::min(to, first_bad) - std::max(from, last_good));
    wrong[i] = std::max(0, to - from - right);
  }
  constexpr int kGrid = 40;
  double worst = 0;
  for (int j = 0; j <= kGrid; ++j) {
    const double q = model.min_rate + (1 - model.min_rate) * j / kGrid;
    double total = 0;
    for (size_t i = 0; i <= m; ++i) {
      if (wrong[i] > 0) total += wrong[i] * good_side[i] * std::pow(q, hunted[i]) * std::pow(1 - q, passes[i]);
    }
    worst = std::max(worst, total);
  }
  return worst;
}

namespace {

ProbeRecord* RecordOf(BisectResult& result, int version) {
  for (ProbeRecord& p : result.probes) {
    if (p.version == version) return &p;
  }
  return nullptr;
}

std::string Ordinal(int n) {
  const int tens = n % 100;
  const char* suffix = tens >= 11 && tens <= 13 ? "th" : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
  return absl::StrCat(n, suffix);
}

std::string Runs(int n) { return absl::StrCat(n, n == 1 ? " run" : " runs"); }

class Confirmation {
 public:
  Confirmation(const BisectConfig& config, TrialRunner& runner, const Hunt& hunt, BisectResult& result)
      : config_(config), runner_(runner), hunt_(hunt), result_(result),
        model_{config.good, config.bad, config.sprt.p_bad, config.sprt.p_good},
        lo_(result.answer.last_good), hi_(result.answer.first_bad) {
    for (const ProbeRecord& p : result.probes) {
      for (const TrialResult& t : p.trials) Add(p.version, t);
    }
  }

  absl::Status Run() {
    BisectEconomy& economy = result_.economy;
    economy.risk_bound = config_.sprt.beta;
    ProbeRecord* lo = RecordOf(result_, lo_);
    ProbeRecord* hi = RecordOf(result_, hi_);
    if (lo == nullptr || hi == nullptr) return absl::InternalError("confirmation: the answer's pair was never probed");
    for (;;) {
      std::vector<TrialRunner::Request> batch = NextBatch(*lo, *hi);
      if (batch.empty()) break;
      absl::StatusOr<std::vector<TrialResult>> ran = runner_.RunTrials(batch);
      if (!ran.ok()) return ran.status();
      if (ran->size() != batch.size()) return absl::InternalError("trial runner returned a wrong number of results");
      for (size_t i = 0; i < batch.size(); ++i) {
        ProbeRecord& record = batch[i].version == lo_ ? *lo : *hi;
        const TrialResult& trial = (*ran)[i];
        record.trials.push_back(trial);
        if (trial.unrunnable()) {
          unrunnable_.push_back(batch[i].version);  // cannot be confirmed: stop asking it
          continue;
        }
        ++result_.total_trials;
        Add(record.version, trial);
        if (economy.turned_flaky.empty()) economy.turned_flaky = Disagreement(record, trial);
      }
      Recount(*lo);
      Recount(*hi);
      if (!economy.turned_flaky.empty()) return absl::OkStatus();
    }
    economy.risk = Risk(evidence_);
    economy.confirmation = absl::StrCat("first bad ", hi->label, " failed ", hi->tally.hunted, " of ",
                                        Runs(hi->tally.trials), ", last good ", lo->label, " passed ",
                                        lo->tally.passes, " of ", Runs(lo->tally.trials));
    if (economy.risk > economy.risk_bound) {
      economy.risk_note = absl::StrCat("the pair is at the trial cap (", config_.sprt.max_trials, " per version)");
    }
    return absl::OkStatus();
  }

 private:
  void Add(int version, const TrialResult& trial) {
    switch (hunt_.Classify(trial)) {
      case Hunt::TrialClass::kHunted: ++evidence_[version].hunted; break;
      case Hunt::TrialClass::kPass: ++evidence_[version].passes; break;
      default: break;
    }
  }

  double Risk(const std::map<int, VersionEvidence>& evidence) const {
    return FlakyAnswerRisk(evidence, model_, lo_, hi_);
  }

  bool Open(const ProbeRecord& record, int pending) const {
    return static_cast<int>(record.trials.size()) + pending < config_.sprt.max_trials &&
           std::find(unrunnable_.begin(), unrunnable_.end(), record.version) == unrunnable_.end();
  }

  // Up to `jobs` trials, each where it lowers the risk most if it agrees: the first bad until it
  // has failed twice, then the last good or the first bad; none once the risk is within bound.
  std::vector<TrialRunner::Request> NextBatch(const ProbeRecord& lo, const ProbeRecord& hi) const {
    std::map<int, VersionEvidence> assumed = evidence_;
    int pending_lo = 0, pending_hi = 0;
    std::vector<TrialRunner::Request> batch;
    while (static_cast<int>(batch.size()) < config_.jobs) {
      const bool hi_open = Open(hi, pending_hi), lo_open = Open(lo, pending_lo);
      const bool again = hi_open && assumed[hi_].hunted < 2;  // the first bad fails again, always
      if (!again && Risk(assumed) <= config_.sprt.beta) break;
      bool take_hi = hi_open;
      if (!again && hi_open && lo_open) {
        std::map<int, VersionEvidence> if_hi = assumed, if_lo = assumed;
        ++if_hi[hi_].hunted;
        ++if_lo[lo_].passes;
        take_hi = Risk(if_hi) < Risk(if_lo);
      } else if (!hi_open) {
        take_hi = false;
      }
      if (take_hi) {
        batch.push_back({hi_, static_cast<int>(hi.trials.size()) + pending_hi++});
        ++assumed[hi_].hunted;
      } else if (lo_open) {
        batch.push_back({lo_, static_cast<int>(lo.trials.size()) + pending_lo++});
        ++assumed[lo_].passes;
      } else {
        break;
      }
    }
    return batch;
  }

  // Why `trial` contradicts its version's first trial, or "".
  std::string Disagreement(const ProbeRecord& record, const TrialResult& trial) const {
    const int n = static_cast<int>(record.trials.size());
    const Hunt::TrialClass c = hunt_.Classify(trial);
    if (record.version == hi_ && c == Hunt::TrialClass::kPass) {
      return absl::StrCat(record.label, " passed its ", Ordinal(n), " run after failing");
    }
    if (record.version == lo_ && c != Hunt::TrialClass::kPass) {
      return absl::StrCat(record.label, " failed its ", Ordinal(n), " run after passing (",
                          std::string(OutcomeName(trial.outcome)), ": ", std::string(WithoutRankList(trial.signature)), ")");
    }
    return "";
  }

  // The pair's counts cover every trial; the verdict is the search's.
  void Recount(ProbeRecord& record) const {
    ProbeTally all = CountEveryTrial(hunt_, record.trials);
    all.verdict = record.tally.verdict;
    all.truncated = record.tally.truncated;
    all.llr = record.tally.llr;
    record.tally = all;
  }

  const BisectConfig& config_;
  TrialRunner& runner_;
  const Hunt& hunt_;
  BisectResult& result_;
  RiskModel model_;
  int lo_, hi_;
  std::map<int, VersionEvidence> evidence_;
  std::vector<int> unrunnable_;
};

}  // namespace

absl::Status ConfirmAnswer(const BisectConfig& config, TrialRunner& runner, const Hunt& hunt, BisectResult& result) {
  return Confirmation(config, runner, hunt, result).Run();
}

}  // namespace gh
