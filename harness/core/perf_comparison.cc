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

std::string MetricChange::Text() const {
  const std::string level = absl::StrFormat("%g %% CI", confidence * 100);
  switch (verdict) {
    case PerfVerdict::kSlower:
      return absl::StrCat("slower by ", Percent(worse), " % (", level, " ", Percent(worse_low),
                          "\u2013", Percent(worse_high), " %)");
    case PerfVerdict::kFaster:
      return absl::StrCat("faster by ", Percent(-worse), " % (", level, " ", Percent(-worse_high),
                          "\u2013", Percent(-worse_low), " %)");
    case PerfVerdict::kNoChange:
      break;
  }
  return absl::StrCat("no change (", SignedPercent(worse), " %, ", level, " ", Percent(worse_low),
                      "\u2013", Percent(worse_high), " %)");
}

absl::StatusOr<double> ParsePercent(std::string_view text) {
  absl::string_view number = absl::StripAsciiWhitespace(absl::string_view(text.data(), text.size()));
  if (absl::EndsWith(number, "%")) number = absl::StripTrailingAsciiWhitespace(number.substr(0, number.size() - 1));
  double percent = 0;
  if (!absl::SimpleAtod(number, &percent) || !(percent > 0 && percent < 100)) {
    return absl::InvalidArgumentError(absl::StrCat("expected a percentage above 0 and below 100 "
                                                   "such as 5%, got '", std::string(text), "'"));
  }
  return percent / 100;
}

MetricChange CompareMetricSamples(const Metric& before, const Metric& now, const PerfOptions& options) {
  MetricChange change;
  change.metric = now.name;
  change.unit = now.unit;
  change.higher_is_better = HigherIsBetter(now);
  change.baseline_samples = static_cast<int>(before.samples.size());
  change.now_samples = static_cast<int>(now.samples.size());
  change.baseline_median = MedianOf(before.samples);
  change.now_median = MedianOf(now.samples);
  change.confidence = 1 - options.significance;
  const RatioInterval ratio = BootstrapMedianRatio(now.samples, before.samples, change.confidence);
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
  change.p_value = MannWhitneyU(now.samples, before.samples).p_value;
  const bool significant = change.p_value < options.significance;
  if (significant && change.worse_low > 0 && change.worse >= options.threshold) {
    change.verdict = PerfVerdict::kSlower;
  } else if (significant && change.worse_high < 0 && -change.worse >= options.threshold) {
    change.verdict = PerfVerdict::kFaster;
  }
  return change;
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

std::vector<MetricChange> CompareMetrics(const std::vector<Metric>& before,
                                         const std::vector<Metric>& now, const PerfOptions& options) {
  std::vector<MetricChange> changes;
  for (const Metric& metric : now) {
    if (metric.samples.empty()) continue;
    for (const Metric& old : before) {
      if (old.name == metric.name && !old.samples.empty()) {
        changes.push_back(CompareMetricSamples(old, metric, options));
        break;
      }
    }
  }
  return changes;
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
