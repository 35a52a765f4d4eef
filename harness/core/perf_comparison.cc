#include "harness/core/perf_comparison.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/core/perf_statistics.h"

namespace gh {
namespace {

std::string Percent(double fraction) { return absl::StrFormat("%.1f", fraction * 100); }
std::string SignedPercent(double fraction) { return absl::StrFormat("%+.1f", fraction * 100); }

}  // namespace

std::string_view PerfVerdictName(PerfVerdict verdict) {
  switch (verdict) {
    case PerfVerdict::kNoChange: return "no change";
    case PerfVerdict::kSlower: return "slower";
    case PerfVerdict::kFaster: return "faster";
  }
  return "no change";
}

bool HigherIsBetter(const Metric& metric) {
  return !(metric.unit == "us" || metric.unit == "ms" || metric.unit == "s" || metric.unit == "ns");
}

namespace {

// ", 1 process per side: counts only beyond 8 % (3 per side recommended)" and the like; "" at
// or above the recommended count.
std::string ProcessNote(const MetricChange& change) {
  const int fewest = std::min(change.baseline_processes, change.now_processes);
  if (fewest >= change.recommended_processes) return "";
  const std::string recommended = absl::StrCat(" (", change.recommended_processes, " per side recommended)");
  if (!change.process_level()) {
    return absl::StrCat(", 1 process per side: counts only beyond ", Percent(change.single_process_floor), " %",
                        recommended);
  }
  return absl::StrCat(", ", change.now_processes, " vs ", change.baseline_processes, " processes", recommended);
}

}  // namespace

std::string MetricChange::Text() const {
  const std::string level = absl::StrFormat("%g %% CI", confidence * 100);
  const std::string note = ProcessNote(*this);
  switch (verdict) {
    case PerfVerdict::kSlower:
      return absl::StrCat("slower by ", Percent(worse), " % (", level, " ", Percent(worse_low),
                          "\u2013", Percent(worse_high), " %)", note);
    case PerfVerdict::kFaster:
      return absl::StrCat("faster by ", Percent(-worse), " % (", level, " ", Percent(-worse_high),
                          "\u2013", Percent(-worse_low), " %)", note);
    case PerfVerdict::kNoChange:
      break;
  }
  return absl::StrCat("no change (", SignedPercent(worse), " %, ", level, " ", Percent(worse_low),
                      "\u2013", Percent(worse_high), " %)", note);
}

absl::StatusOr<double> ParsePercent(std::string_view text) {
  absl::string_view number = absl::StripAsciiWhitespace(absl::string_view(text.data(), text.size()));
  const bool has_sign = absl::EndsWith(number, "%");
  if (has_sign) number = absl::StripTrailingAsciiWhitespace(number.substr(0, number.size() - 1));
  double percent = 0;
  if (!has_sign && absl::SimpleAtod(number, &percent)) {  // 0.05: 5 % or 0.05 %? said, not guessed
    return absl::InvalidArgumentError(
        absl::StrCat("expected a percentage with its % sign such as 5%, got '", std::string(text), "'"));
  }
  if (!absl::SimpleAtod(number, &percent) || !(percent > 0 && percent < 100)) {
    return absl::InvalidArgumentError(absl::StrCat("expected a percentage above 0 and below 100 "
                                                   "such as 5%, got '", std::string(text), "'"));
  }
  return percent / 100;
}

namespace {

std::vector<double> Pooled(const std::vector<std::vector<double>>& processes) {
  std::vector<double> all;
  for (const std::vector<double>& samples : processes) all.insert(all.end(), samples.begin(), samples.end());
  return all;
}

int ProcessesWithSamples(const std::vector<std::vector<double>>& processes) {
  return static_cast<int>(std::count_if(processes.begin(), processes.end(),
                                         [](const std::vector<double>& s) { return !s.empty(); }));
}

// The ratio now / before and its interval, with the p value of the test behind them: on the
// process level when there are 3 processes or more, else on the iterations.
struct RatioTest {
  double ratio = 0, low = 0, high = 0, p_value = 1;
};

RatioTest TestRatio(const ProcessSamples& before, const ProcessSamples& now, const std::vector<double>& before_all,
                    const std::vector<double>& now_all, MetricChange& change) {
  if (change.process_level()) {
    const ProcessRatio r = ProcessMedianRatio(now.processes, before.processes, change.confidence);
    return {r.ratio, r.low, r.high, r.p_value};
  }
  const RatioInterval r = BootstrapMedianRatio(now_all, before_all, change.confidence);
  return {r.ratio, r.low, r.high, MannWhitneyU(now_all, before_all).p_value};
}

}  // namespace

MetricChange CompareProcessSamples(const ProcessSamples& before, const ProcessSamples& now,
                                   const PerfOptions& options) {
  MetricChange change;
  change.metric = now.name;
  change.unit = now.unit;
  change.higher_is_better = options.higher_is_better.value_or(HigherIsBetter(Metric{now.name, 0, now.unit, {}}));
  const std::vector<double> before_all = Pooled(before.processes), now_all = Pooled(now.processes);
  change.baseline_samples = static_cast<int>(before_all.size());
  change.now_samples = static_cast<int>(now_all.size());
  change.baseline_processes = ProcessesWithSamples(before.processes);
  change.now_processes = ProcessesWithSamples(now.processes);
  change.recommended_processes = options.recommended_processes;
  change.baseline_median = MedianOf(before_all);
  change.now_median = MedianOf(now_all);
  const bool process_level = change.process_level();
  const double significance = process_level ? options.process_significance : options.significance;
  change.confidence = 1 - significance;
  if (!process_level) change.single_process_floor = std::max(options.single_process_floor, options.threshold);
  if (change.baseline_processes == 0 || change.now_processes == 0) return change;
  const RatioTest ratio = TestRatio(before, now, before_all, now_all, change);
  if (!std::isfinite(ratio.ratio) || !std::isfinite(ratio.low) || !std::isfinite(ratio.high)) {
    return change;  // no usable samples: no change can be claimed
  }
  // Worse-positive: a longer time, a lower bandwidth.
  if (change.higher_is_better) {
    change.worse = 1 - ratio.ratio;
    change.worse_low = 1 - ratio.high;
    change.worse_high = 1 - ratio.low;
  } else {
    change.worse = ratio.ratio - 1;
    change.worse_low = ratio.low - 1;
    change.worse_high = ratio.high - 1;
  }
  change.p_value = ratio.p_value;
  const bool significant = change.p_value < significance;
  // One process per side cannot show the between-process noise: only a change beyond the floor
  // counts. Otherwise a change counts when its interval reaches the threshold.
  const bool slower = process_level ? change.worse_high >= options.threshold : change.worse >= change.single_process_floor;
  const bool faster = process_level ? -change.worse_low >= options.threshold : -change.worse >= change.single_process_floor;
  if (significant && change.worse_low > 0 && slower) {
    change.verdict = PerfVerdict::kSlower;
  } else if (significant && change.worse_high < 0 && faster) {
    change.verdict = PerfVerdict::kFaster;
  }
  return change;
}

namespace {
ProcessSamples OneProcess(const Metric& metric) {
  return ProcessSamples{metric.name, metric.unit, {metric.samples}, 0, {}};
}
}  // namespace

MetricChange CompareMetricSamples(const Metric& before, const Metric& now, const PerfOptions& options) {
  return CompareProcessSamples(OneProcess(before), OneProcess(now), options);
}

void AddTrialSamples(const std::vector<Metric>& metrics, int trial, std::optional<int> process,
                     std::vector<ProcessSamples>& into) {
  for (const Metric& metric : metrics) {
    if (metric.samples.empty()) continue;
    auto found = std::find_if(into.begin(), into.end(), [&](const ProcessSamples& m) { return m.name == metric.name; });
    if (found == into.end()) {
      into.push_back(ProcessSamples{metric.name, metric.unit, {}, -1, {}});
      found = into.end() - 1;
    }
    std::vector<double>* samples = nullptr;
    if (process.has_value()) {
      auto [slot, added] = found->by_process.try_emplace(*process, found->processes.size());
      if (added) found->processes.emplace_back();
      samples = &found->processes[slot->second];
    } else {
      if (found->processes.empty() || trial <= found->last_trial) found->processes.emplace_back();
      samples = &found->processes.back();
    }
    samples->insert(samples->end(), metric.samples.begin(), metric.samples.end());
    found->last_trial = trial;
  }
}

void PoolMetricSamples(const std::vector<Metric>& from, std::vector<Metric>& into) {
  for (const Metric& metric : from) {
    if (metric.samples.empty()) continue;
    auto found = std::find_if(into.begin(), into.end(), [&](const Metric& m) { return m.name == metric.name; });
    if (found == into.end()) {
      into.push_back(metric);
    } else {
      found->samples.insert(found->samples.end(), metric.samples.begin(), metric.samples.end());
    }
  }
}

std::vector<MetricChange> CompareMetrics(const std::vector<ProcessSamples>& before,
                                         const std::vector<ProcessSamples>& now, const PerfOptions& options) {
  std::vector<MetricChange> changes;
  for (const ProcessSamples& metric : now) {
    if (ProcessesWithSamples(metric.processes) == 0) continue;
    for (const ProcessSamples& old : before) {
      if (old.name == metric.name && ProcessesWithSamples(old.processes) > 0) {
        changes.push_back(CompareProcessSamples(old, metric, options));
        break;
      }
    }
  }
  return changes;
}

std::vector<MetricChange> CompareMetrics(const std::vector<Metric>& before,
                                         const std::vector<Metric>& now, const PerfOptions& options) {
  auto one_process_each = [](const std::vector<Metric>& metrics) {
    std::vector<ProcessSamples> out;
    for (const Metric& metric : metrics) out.push_back(OneProcess(metric));
    return out;
  };
  return CompareMetrics(one_process_each(before), one_process_each(now), options);
}

std::string IncomparableReason(const MeasuredOn& before, const MeasuredOn& now) {
  if (!before.backend.empty() && !now.backend.empty() && before.backend != now.backend) {
    return absl::StrCat("backend ", before.backend, " (baseline) vs ", now.backend);
  }
  if (!before.hardware.empty() && !now.hardware.empty() && before.hardware != now.hardware) {
    return absl::StrCat("measured on ", before.hardware, " (baseline) vs ", now.hardware);
  }
  if (before.gpu_shared != now.gpu_shared) {
    return now.gpu_shared ? "ranks shared a GPU now, not in the baseline"
                          : "ranks shared a GPU in the baseline, not now";
  }
  return "";
}

}  // namespace gh
