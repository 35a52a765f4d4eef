#include "harness/bisect/perf_probe.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/core/perf_comparison.h"

namespace gh {
namespace {

// `now` against `before` exactly as a baseline comparison tests them: on the process level with
// 3 processes or more in all (the perf bisect's min_trials is 3), at the hunt's level.
MetricChange CompareVersions(const PerfHunt& hunt, bool lower_is_worse, const ProcessSamplesOf& before,
                             const ProcessSamplesOf& now) {
  PerfOptions options;
  options.threshold = hunt.threshold;
  options.process_significance = hunt.significance;
  options.higher_is_better = lower_is_worse;  // a lower value worse: a higher one better
  return CompareProcessSamples(ProcessSamples{hunt.metric, "", before, -1, {}},
                               ProcessSamples{hunt.metric, "", now, -1, {}},
                               options);
}

bool HasSamples(const ProcessSamplesOf& processes) {
  for (const std::vector<double>& samples : processes) {
    if (!samples.empty()) return true;
  }
  return false;
}

// "time_median_us slower by 9.8 % (99 % CI 7.1–12.6 %; 3 vs 3 processes) than the good end".
std::string Describe(const std::string& metric, const MetricChange& c, const char* than) {
  const char* word = c.worse >= 0 ? "slower" : "faster";
  const double sign = c.worse >= 0 ? 1 : -1;
  const double a = sign > 0 ? c.worse_low : -c.worse_high, b = sign > 0 ? c.worse_high : -c.worse_low;
  const std::string processes =
      c.process_level() ? absl::StrCat(c.now_processes, " vs ", c.baseline_processes, " processes")
                        : std::string("1 vs 1 process, on the iterations");
  return absl::StrFormat("%s %s by %.1f %% (%g %% CI %.1f\u2013%.1f %%; %s) than %s", metric, word,
                         sign * c.worse * 100, c.confidence * 100, a * 100, b * 100, processes, than);
}

}  // namespace

absl::StatusOr<bool> ParseDirection(std::string_view text) {
  if (text == "lower-is-worse") return true;
  if (text == "higher-is-worse") return false;
  return absl::InvalidArgumentError(absl::StrCat("--direction: expected lower-is-worse or higher-is-worse, got '",
                                                 std::string(text), "'"));
}

PerfJudgement JudgeBadEnd(const PerfHunt& hunt, bool lower_is_worse, const ProcessSamplesOf& good,
                          const ProcessSamplesOf& bad, bool at_cap) {
  PerfJudgement out;
  out.verdict = PerfClass::kLikeGood;
  if (!HasSamples(good) || !HasSamples(bad)) {
    out.text = absl::StrCat(hunt.metric, ": no samples to compare");
    return out;
  }
  const MetricChange c = CompareVersions(hunt, lower_is_worse, good, bad);
  out.worse = c.worse;
  out.worse_low = c.worse_low;
  out.worse_high = c.worse_high;
  out.split = c.worse / 2;
  out.text = Describe(hunt.metric, c, "the good end");
  if (c.verdict == PerfVerdict::kSlower && c.worse >= hunt.threshold) {
    out.verdict = PerfClass::kLikeBad;
  } else if (c.worse_high < hunt.threshold) {
    out.verdict = PerfClass::kLikeGood;  // a change of the threshold's size is ruled out
  } else if (at_cap) {
    absl::StrAppend(&out.text, " (decided at the cap)");
  } else {
    out.verdict = PerfClass::kUndecided;
  }
  return out;
}

PerfJudgement JudgeProbe(const PerfHunt& hunt, bool lower_is_worse, const ProcessSamplesOf& good,
                         const ProcessSamplesOf& bad, const ProcessSamplesOf& probe, bool at_cap) {
  PerfJudgement out;
  if (!HasSamples(good) || !HasSamples(bad) || !HasSamples(probe)) return out;
  out.split = CompareVersions(hunt, lower_is_worse, good, bad).worse / 2;
  const MetricChange c = CompareVersions(hunt, lower_is_worse, good, probe);
  out.worse = c.worse;
  out.worse_low = c.worse_low;
  out.worse_high = c.worse_high;
  out.text = Describe(hunt.metric, c, "the good end");
  if (c.worse_low > out.split) {
    out.verdict = PerfClass::kLikeBad;
  } else if (c.worse_high < out.split) {
    out.verdict = PerfClass::kLikeGood;
  } else if (at_cap) {
    out.verdict = c.worse > out.split ? PerfClass::kLikeBad : PerfClass::kLikeGood;
    absl::StrAppend(&out.text, " (decided at the cap)");
  }
  return out;
}

bool PerfTrialRunner::LowerIsWorse() const {
  if (hunt_.lower_is_worse.has_value()) return *hunt_.lower_is_worse;
  return HigherIsBetter(Metric{hunt_.metric, 0, unit_, {}});
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
    m.processes.push_back(metric->samples);
  }
  return absl::OkStatus();
}

absl::Status PerfTrialRunner::EnsureEnds() {
  auto failed = [&] { return measured_[good_].failed.has_value() || measured_[bad_].failed.has_value(); };
  while (!bad_end_.has_value() && !failed()) {
    std::vector<int> need;
    const int target = std::max(hunt_.min_trials, std::max(measured_[good_].trials, measured_[bad_].trials));
    for (int end : {good_, bad_}) {
      if (measured_[end].trials < target) need.push_back(end);
    }
    if (need.empty()) {  // both ends at the same count: judge, or one more process each
      const bool at_cap = target >= hunt_.max_trials;
      PerfJudgement j = JudgeBadEnd(hunt_, LowerIsWorse(), measured_[good_].processes, measured_[bad_].processes, at_cap);
      if (j.verdict != PerfClass::kUndecided) {
        bad_end_ = j;
        break;
      }
      need = {good_, bad_};
    }
    if (absl::Status s = MeasureMore(need); !s.ok()) return s;
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
      t.signature = absl::StrCat("perf regression: ", text);
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
      const PerfJudgement& j = *bad_end_;
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
      PerfJudgement j = JudgeProbe(hunt_, LowerIsWorse(), good.processes, bad.processes, m.processes,
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
