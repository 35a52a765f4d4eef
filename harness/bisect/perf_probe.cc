#include "harness/bisect/perf_probe.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/core/perf_statistics.h"

namespace gh {
namespace {

struct Worse {
  double point = 0, low = 0, high = 0;
  bool ok = false;
};

// How much worse `now` is than `before` (fraction), with its interval.
Worse WorseThan(const std::vector<double>& before, const std::vector<double>& now, bool lower_is_worse,
                double confidence) {
  RatioInterval r = BootstrapMedianRatio(now, before, confidence);
  if (!std::isfinite(r.ratio) || !std::isfinite(r.low) || !std::isfinite(r.high)) return {};
  if (lower_is_worse) return {1 - r.ratio, 1 - r.high, 1 - r.low, true};
  return {r.ratio - 1, r.low - 1, r.high - 1, true};
}

std::string Describe(const PerfHunt& hunt, const Worse& w, double confidence, const char* than) {
  const char* word = w.point >= 0 ? "slower" : "faster";
  const double sign = w.point >= 0 ? 1 : -1;
  const double a = sign > 0 ? w.low : -w.high, b = sign > 0 ? w.high : -w.low;
  return absl::StrFormat("%s %s by %.1f %% (%g %% CI %.1f\u2013%.1f %%) than %s", hunt.metric, word,
                         sign * w.point * 100, confidence * 100, a * 100, b * 100, than);
}

}  // namespace

absl::StatusOr<bool> ParseDirection(std::string_view text) {
  if (text == "lower-is-worse") return true;
  if (text == "higher-is-worse") return false;
  return absl::InvalidArgumentError(absl::StrCat("--direction: expected lower-is-worse or higher-is-worse, got '",
                                                 std::string(text), "'"));
}

PerfJudgement JudgeBadEnd(const PerfHunt& hunt, bool lower_is_worse, const std::vector<double>& good,
                          const std::vector<double>& bad) {
  PerfJudgement out;
  const double confidence = 1 - hunt.significance;
  Worse w = WorseThan(good, bad, lower_is_worse, confidence);
  out.verdict = PerfClass::kLikeGood;
  if (!w.ok) {
    out.text = absl::StrCat(hunt.metric, ": no samples to compare");
    return out;
  }
  out.worse = w.point;
  out.worse_low = w.low;
  out.worse_high = w.high;
  out.split = w.point / 2;
  out.text = Describe(hunt, w, confidence, "the good end");
  const bool significant = MannWhitneyU(bad, good).p_value < hunt.significance;
  if (significant && w.low > 0 && w.point >= hunt.threshold) out.verdict = PerfClass::kLikeBad;
  return out;
}

PerfJudgement JudgeProbe(const PerfHunt& hunt, bool lower_is_worse, const std::vector<double>& good,
                         const std::vector<double>& bad, const std::vector<double>& probe, bool at_cap) {
  const double confidence = 1 - hunt.significance;
  PerfJudgement out;
  out.split = WorseThan(good, bad, lower_is_worse, confidence).point / 2;
  Worse w = WorseThan(good, probe, lower_is_worse, confidence);
  if (!w.ok) return out;
  out.worse = w.point;
  out.worse_low = w.low;
  out.worse_high = w.high;
  out.text = Describe(hunt, w, confidence, "the good end");
  if (w.low > out.split) {
    out.verdict = PerfClass::kLikeBad;
  } else if (w.high < out.split) {
    out.verdict = PerfClass::kLikeGood;
  } else if (at_cap) {
    out.verdict = w.point > out.split ? PerfClass::kLikeBad : PerfClass::kLikeGood;
    absl::StrAppend(&out.text, " (decided at the cap)");
  }
  return out;
}

bool PerfTrialRunner::LowerIsWorse() const {
  if (hunt_.lower_is_worse.has_value()) return *hunt_.lower_is_worse;
  return !(unit_ == "us" || unit_ == "ms" || unit_ == "s" || unit_ == "ns");
}

absl::Status PerfTrialRunner::MeasureMore(const std::vector<int>& versions) {
  std::vector<Request> batch;
  for (int v : versions) batch.push_back({v, measured_[v].trials});
  absl::StatusOr<std::vector<TrialResult>> results = jobs_.RunTrials(batch);
  if (!results.ok()) return results.status();
  if (results->size() != batch.size()) return absl::InternalError("trial runner returned a wrong number of results");
  for (size_t i = 0; i < batch.size(); ++i) {
    Measured& m = measured_[batch[i].version];
    const TrialResult& trial = (*results)[i];
    ++m.trials;
    if (m.first_dir.empty()) m.first_dir = trial.detail;
    if (m.first_point.empty()) m.first_point = trial.point;
    const Metric* metric = nullptr;
    for (const Metric& candidate : trial.metrics) {
      if (candidate.name == hunt_.metric && !candidate.samples.empty()) metric = &candidate;
    }
    if (trial.outcome != Outcome::kPass || trial.setup_failed || metric == nullptr) {
      if (!m.failed.has_value()) {
        m.failed = trial;
        if (trial.outcome == Outcome::kPass && !trial.setup_failed) {
          m.failed->outcome = Outcome::kError;
          m.failed->signature = absl::StrCat("metric ", hunt_.metric, " not recorded (with samples) by ",
                                             trial.point.empty() ? "the trial" : trial.point);
        }
      }
      continue;
    }
    if (unit_.empty()) unit_ = metric->unit;
    m.samples.insert(m.samples.end(), metric->samples.begin(), metric->samples.end());
  }
  return absl::OkStatus();
}

absl::Status PerfTrialRunner::EnsureEnds() {
  std::vector<int> need;
  for (int end : {good_, bad_}) {
    const Measured& m = measured_[end];
    if (!m.failed.has_value() && m.trials < hunt_.min_trials) need.push_back(end);
  }
  while (!need.empty()) {
    if (absl::Status s = MeasureMore(need); !s.ok()) return s;
    std::erase_if(need, [&](int end) {
      const Measured& m = measured_[end];
      return m.failed.has_value() || m.trials >= hunt_.min_trials;
    });
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<TrialResult>> PerfTrialRunner::RunTrials(const std::vector<Request>& batch) {
  if (absl::Status s = EnsureEnds(); !s.ok()) return s;
  const Measured& good = measured_[good_];
  const Measured& bad = measured_[bad_];
  std::map<int, TrialResult> decided;
  std::vector<int> open;
  auto finish = [&](int v, bool like_bad, const std::string& text) {
    TrialResult t;
    t.point = measured_[v].first_point;
    t.detail = measured_[v].first_dir;
    if (like_bad) {
      t.outcome = Outcome::kFail;
      t.signature = absl::StrCat("perf regression: ", text, ", ", measured_[v].trials, " trials");
    }
    decided[v] = t;
  };
  for (const Request& r : batch) {
    if (decided.count(r.version) != 0) continue;
    const Measured& m = measured_[r.version];
    if (m.failed.has_value()) {
      decided[r.version] = *m.failed;
    } else if (good.failed.has_value() && r.version != good_) {
      decided[r.version] = *good.failed;  // no reference: the good end's failure says why
    } else if (r.version == good_) {
      finish(good_, false, "");
    } else if (r.version == bad_) {
      PerfJudgement j = JudgeBadEnd(hunt_, LowerIsWorse(), good.samples, bad.samples);
      finish(bad_, j.verdict == PerfClass::kLikeBad, j.text);
      if (j.verdict != PerfClass::kLikeBad) {
        decided[bad_].outcome = Outcome::kPass;
        decided[bad_].signature = absl::StrCat("not worse by the threshold: ", j.text);
      }
    } else {
      open.push_back(r.version);
    }
  }
  while (!open.empty()) {
    if (absl::Status s = MeasureMore(open); !s.ok()) return s;
    std::erase_if(open, [&](int v) {
      const Measured& m = measured_[v];
      if (m.failed.has_value()) {
        decided[v] = *m.failed;
        return true;
      }
      if (m.trials < hunt_.min_trials) return false;
      PerfJudgement j = JudgeProbe(hunt_, LowerIsWorse(), good.samples, bad.samples, m.samples,
                                   m.trials >= hunt_.max_trials);
      if (j.verdict == PerfClass::kUndecided) return false;
      finish(v, j.verdict == PerfClass::kLikeBad, j.text);
      return true;
    });
  }
  std::vector<TrialResult> out;
  for (const Request& r : batch) out.push_back(decided.at(r.version));
  return out;
}

}  // namespace gh
