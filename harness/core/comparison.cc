#include "harness/core/comparison.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/core/exit_codes.h"
#include "harness/core/metric_expectation.h"
#include "harness/core/regex.h"

namespace gh {
namespace {

constexpr size_t kMaxShortSignature = 40;

std::string Truncate(std::string text, size_t max_chars) {
  if (text.size() <= max_chars) return text;
  text.resize(max_chars - 3);
  return text + "...";
}

std::string_view TrimSpaces(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// Drops the " [ranks 1,3]" that ReduceRankOutcomes appends when not every rank ended so.
std::string_view WithoutRankList(std::string_view signature) {
  signature = TrimSpaces(signature);
  if (!signature.empty() && signature.back() == ']') {
    size_t open = signature.rfind(" [ranks ");
    if (open != std::string_view::npos) signature = TrimSpaces(signature.substr(0, open));
  }
  return signature;
}

// "FAILED_PRECONDITION: during ..." -> "FAILED_PRECONDITION"; "Cuda failure 1 'x'" ->
// "Cuda failure"; "swallowed 3/200" -> "swallowed".
std::string LeadingToken(std::string_view signature) {
  signature = WithoutRankList(signature);
  size_t colon = signature.find(':');
  if (colon != std::string_view::npos && colon > 0) {
    std::string_view head = TrimSpaces(signature.substr(0, colon));
    if (!head.empty() && head.find(' ') == std::string_view::npos) {
      return Truncate(std::string(head), kMaxShortSignature);
    }
  }
  size_t stop = 0;
  while (stop < signature.size()) {
    char c = signature[stop];
    if (std::isdigit(static_cast<unsigned char>(c)) || std::string_view(":([{'\"").find(c) != std::string_view::npos) {
      break;
    }
    ++stop;
  }
  std::string_view head = TrimSpaces(signature.substr(0, stop));
  if (!head.empty()) return Truncate(std::string(head), kMaxShortSignature);
  return Truncate(std::string(signature), kMaxShortSignature);
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// Every point's metric bounds against its metrics (and its reference points', in the same
// cell): each missed bound makes the point unmet, the first one naming it when nothing else did.
void JudgeMetricBounds(std::vector<PointTrials>& points, const std::map<PointKey, size_t>& index) {
  for (PointTrials& point : points) {
    if (point.metric_bounds.empty() || point.passed == 0) continue;
    MetricLookup lookup = [&](const std::string& name, const std::string& metric) -> const Metric* {
      auto found = index.find(PointKey{point.key.cell, name});
      if (found == index.end()) return nullptr;
      return points[found->second].FindMetric(metric);
    };
    point.metric_misses = MissedMetricBounds(point.metric_bounds, point.key.point, lookup);
    if (point.metric_misses.empty()) continue;
    point.unmet += static_cast<int>(point.metric_misses.size());
    if (point.first_unmet_signature.empty()) point.first_unmet_signature = point.metric_misses.front();
  }
}

// Whether every trial that did not pass (nor skip) failed as the expectation's known issue says.
bool TrialsAreKnownFailures(const Expectation& expected, const std::vector<PointOutcome>& trials) {
  return std::all_of(trials.begin(), trials.end(), [&](const PointOutcome& trial) {
    return trial.outcome == Outcome::kPass || trial.outcome == Outcome::kSkip ||
           IsKnownFailure(expected, trial.outcome, trial.signature);
  });
}

TrialEvidence EvidenceOf(const Record& record) {
  TrialEvidence evidence;
  evidence.trial = record.trial;
  evidence.process = record.process;
  for (const RankOutcome& rank : record.result.ranks) {
    if (rank.outcome == Outcome::kPass) continue;
    evidence.ranks.push_back(rank);
    evidence.ranks.back().metrics.clear();
  }
  return evidence;
}

BaselineChange Judge(const PointTrials& now, const PointTrials& before) {
  // Nothing ran that could be judged (only infra and skips): no change can be claimed. Infra
  // trials are no failures of the code either way.
  if (now.infra > 0 && now.judged_failures() == 0 && now.passed == 0) return BaselineChange::kNotCompared;
  // A known upstream failure is reported as such, not as a regression of the code under test.
  if (before.all_pass() && now.judged_failures() > 0 && !now.known_failure) return BaselineChange::kRegression;
  if (before.judged_failures() > 0 && now.all_pass()) return BaselineChange::kFix;
  if (before.judged_failures() > 0 && now.judged_failures() > 0 &&
      before.failure_classes != now.failure_classes) {
    return BaselineChange::kChangedSignature;
  }
  return BaselineChange::kUnchanged;
}

}  // namespace

std::string CellKey(const std::map<std::string, std::string>& cell) {
  return absl::StrJoin(cell, ",", absl::PairFormatter("="));
}

std::string MatchCellKey(const std::map<std::string, std::string>& cell,
                         const BaselineMatch& match) {
  if (match.ignore_axes.empty()) return CellKey(cell);
  std::map<std::string, std::string> kept;
  for (const auto& [axis, label] : cell) {
    if (match.ignore_axes.count(axis) == 0) kept.emplace(axis, label);
  }
  return CellKey(kept);
}

absl::Status CheckBaselineMatch(const std::vector<Record>& records, const BaselineMatch& match,
                                const std::string& where) {
  if (match.ignore_axes.empty()) return absl::OkStatus();
  std::vector<std::map<std::string, std::string>> cells;
  cells.reserve(records.size());
  for (const Record& r : records) cells.push_back(r.cell);
  return CheckBaselineMatch(cells, match, where);
}

absl::Status CheckBaselineMatch(const std::vector<std::map<std::string, std::string>>& cells,
                                const BaselineMatch& match, const std::string& where) {
  if (match.ignore_axes.empty()) return absl::OkStatus();
  std::map<std::string, std::string> cell_of;  // match key -> the first full cell key
  for (const std::map<std::string, std::string>& cell : cells) {
    const std::string full = CellKey(cell);
    auto [it, inserted] = cell_of.emplace(MatchCellKey(cell, match), full);
    if (!inserted && it->second != full) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--baseline-ignore ", absl::StrJoin(match.ignore_axes, ","), ": cells '", it->second,
          "' and '", full, "' of ", where, " would compare as one"));
    }
  }
  return absl::OkStatus();
}

std::string BaselineLabel(const std::string& baseline_dir, const BaselineMatch& match) {
  if (match.ignore_axes.empty()) return baseline_dir;
  return absl::StrCat(baseline_dir, " (cells matched without ",
                      absl::StrJoin(match.ignore_axes, ", "), ")");
}

std::string ShortSignature(Outcome outcome, const std::string& signature) {
  switch (outcome) {
    case Outcome::kPass:
      return "pass";
    case Outcome::kSkip:
      return "skip";
    case Outcome::kTimeout:
      return "timeout";
    case Outcome::kInfra:
      return "infra";
    case Outcome::kCrash: {
      static const Regex kSignal = *Regex::Compile("SIG[A-Z]+[0-9]*");
      if (std::optional<std::vector<std::string>> match = kSignal.SearchGroups(signature)) {
        return absl::StrCat("crash (", (*match)[0], ")");
      }
      return "crash";
    }
    case Outcome::kFail:
      if (TrimSpaces(signature).empty()) return "wrong data";
      return LeadingToken(signature);
    case Outcome::kError:
      if (TrimSpaces(signature).empty()) return "error";
      return LeadingToken(signature);
  }
  return std::string(OutcomeName(outcome));
}

std::string SignatureClass(Outcome outcome, const std::string& signature) {
  std::string text = std::string(OutcomeName(outcome)) + ": ";
  bool in_digits = false;
  for (char c : WithoutRankList(signature)) {
    bool digit = std::isdigit(static_cast<unsigned char>(c)) != 0;
    if (digit && !in_digits) text.push_back('#');
    if (!digit) text.push_back(c);
    in_digits = digit;
  }
  return text;
}

const Metric* PointTrials::FindMetric(const std::string& name) const {
  for (const Metric& metric : metrics) {
    if (metric.name == name) return &metric;
  }
  return nullptr;
}

namespace {

// A point's first record: what every trial of it shares.
PointTrials NewPointTrials(const PointKey& key, const Record& record) {
  PointTrials fresh;
  fresh.key = key;
  fresh.cell = record.cell;
  fresh.scenario = record.scenario;
  fresh.kind = record.kind;
  fresh.params = record.params;
  fresh.nranks = record.nranks;
  fresh.expected = record.expected;
  fresh.description = record.description;
  fresh.metric_bounds = record.metric_bounds;
  fresh.measured_on = MeasuredOn{record.backend, record.hardware, record.gpu_shared};
  return fresh;
}

// A trial that did not pass (nor skip): counted by its short signature, and by class unless infra.
void AddFailedTrial(const Record& record, PointTrials& point, std::set<std::string>& classes) {
  const Outcome outcome = record.result.outcome;
  ++point.failed;
  if (outcome == Outcome::kInfra) ++point.infra;
  if (point.first_failure_signature.empty()) point.first_failure_signature = record.result.signature;
  if (point.first_hang_trial < 0 && !record.result.hang.empty()) {
    point.first_hang = record.result.hang;
    point.first_hang_trial = record.trial;
  }
  std::string label = ShortSignature(outcome, record.result.signature);
  auto found = std::find_if(point.failure_counts.begin(), point.failure_counts.end(),
                            [&](const auto& entry) { return entry.first == label; });
  if (found == point.failure_counts.end()) {
    point.failure_counts.push_back({label, 1});
  } else {
    ++found->second;
  }
  if (outcome != Outcome::kInfra) classes.insert(SignatureClass(outcome, record.result.signature));
}

}  // namespace

std::vector<PointTrials> AggregateTrials(const std::vector<Record>& records) {
  std::vector<PointTrials> points;
  std::map<PointKey, size_t> index;
  // Per key: metric name -> (unit, values), names in first-seen order.
  std::vector<std::vector<std::pair<Metric, std::vector<double>>>> metric_values;
  std::vector<std::set<std::string>> classes;
  std::vector<std::vector<PointOutcome>> outcomes;  // per key, for the trial verdict
  std::vector<bool> evidence_unmet;  // per key: its evidence is of an unmet trial
  for (const Record& record : records) {
    PointKey key{CellKey(record.cell), record.point};
    auto [it, inserted] = index.try_emplace(key, points.size());
    if (inserted) {
      points.push_back(NewPointTrials(key, record));
      metric_values.emplace_back();
      classes.emplace_back();
      outcomes.emplace_back();
      evidence_unmet.push_back(false);
    }
    PointTrials& point = points[it->second];
    if (record.trials > 1) {
      point.judged_by_verdict = true;
      point.verdict = record.verdict;
    }
    outcomes[it->second].push_back(record.result);
    const Outcome outcome = record.result.outcome;
    ++point.trials;
    ++point.outcome_counts[outcome];
    point.known_failure = point.known_failure || record.known_failure;
    if (!record.matched) {
      ++point.unmet;
      if (point.first_unmet_signature.empty()) {
        point.first_unmet_signature =
            record.result.signature.empty() ? std::string(OutcomeName(outcome)) : record.result.signature;
      }
    }
    if (outcome > point.worst) point.worst = outcome;
    if (point.nccl_inspector.empty()) point.nccl_inspector = record.nccl_inspector;
    const bool failed = outcome != Outcome::kPass && outcome != Outcome::kSkip;
    if (!evidence_unmet[it->second] && (!record.matched || (failed && point.evidence.empty()))) {
      point.evidence = EvidenceOf(record);
      evidence_unmet[it->second] = !record.matched;
    }
    if (outcome == Outcome::kPass) {
      ++point.passed;
      AddTrialSamples(record.result.metrics, record.trial, record.process, point.perf_samples);
      auto& values = metric_values[it->second];
      for (const Metric& metric : record.result.metrics) {
        auto found = std::find_if(values.begin(), values.end(),
                                  [&](const auto& entry) { return entry.first.name == metric.name; });
        if (found == values.end()) {
          values.push_back({metric, {}});
          found = values.end() - 1;
          found->first.samples.clear();  // pooled below, this trial's included
        }
        found->second.push_back(metric.value);
        found->first.samples.insert(found->first.samples.end(), metric.samples.begin(),
                                    metric.samples.end());
      }
    } else if (outcome == Outcome::kSkip) {
      ++point.skipped;
      if (point.skip_reason.empty()) point.skip_reason = record.result.signature;
    } else {
      AddFailedTrial(record, point, classes[it->second]);
    }
  }
  for (size_t i = 0; i < points.size(); ++i) {
    PointTrials& point = points[i];
    std::stable_sort(point.failure_counts.begin(), point.failure_counts.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    point.failure_classes.assign(classes[i].begin(), classes[i].end());
    if (point.judged_by_verdict) {
      point.trial_summary = SummarizeTrials(outcomes[i]);
      bool met = TrialsMeetExpectation(point.expected, point.trial_summary, point.verdict);
      if (!met && point.trial_summary.failed > 0 && TrialsAreKnownFailures(point.expected, outcomes[i])) {
        met = point.known_failure = true;
      }
      point.unmet = met ? 0 : std::max(point.unmet, 1);
      if (!met && point.first_unmet_signature.empty()) {
        point.first_unmet_signature = RenderTrialSummary(point.trial_summary);
      }
    }
    for (auto& [metric, values] : metric_values[i]) {
      Metric median = metric;
      median.value = Median(values);
      point.metrics.push_back(median);
    }
  }
  JudgeMetricBounds(points, index);
  for (PointTrials& point : points) {
    point.fixed_upstream = point.expected.known.has_value() && point.expectation_met() &&
                           !point.known_failure && point.passed + point.judged_failures() > 0;
  }
  return points;
}

std::string_view BaselineChangeName(BaselineChange change) {
  switch (change) {
    case BaselineChange::kNotCompared: return "not compared";
    case BaselineChange::kUnchanged: return "unchanged";
    case BaselineChange::kRegression: return "regression";
    case BaselineChange::kFix: return "fix";
    case BaselineChange::kChangedSignature: return "changed signature";
    case BaselineChange::kNew: return "new point";
    case BaselineChange::kVanished: return "vanished point";
  }
  return "unknown";
}

bool PointComparison::perf_regressed() const {
  return std::any_of(perf.begin(), perf.end(),
                     [](const MetricChange& c) { return c.verdict == PerfVerdict::kSlower; });
}

bool PointComparison::perf_improved() const {
  return !perf_regressed() &&
         std::any_of(perf.begin(), perf.end(),
                     [](const MetricChange& c) { return c.verdict == PerfVerdict::kFaster; });
}

namespace {

// The metrics of a key on both sides, or why they do not compare. Only passing trials carry
// metrics, so a key that failed on either side compares nothing.
void ComparePerf(PointComparison& entry, const PerfOptions& options) {
  const PointTrials& now = *entry.now;
  const PointTrials& before = *entry.baseline;
  std::vector<MetricChange> changes = CompareMetrics(before.perf_samples, now.perf_samples, options);
  if (changes.empty()) return;
  entry.incomparable = IncomparableReason(before.measured_on, now.measured_on);
  if (entry.incomparable.empty()) entry.perf = std::move(changes);
}

}  // namespace

Comparison CompareResults(const std::vector<Record>& now, const std::vector<Record>* baseline,
                          const BaselineMatch& match) {
  const PerfOptions& perf = match.perf;
  Comparison comparison;
  comparison.has_baseline = baseline != nullptr;
  comparison.perf_options = perf;
  std::vector<PointTrials> current = AggregateTrials(now);
  auto match_key = [&](const PointTrials& p) {
    return PointKey{MatchCellKey(p.cell, match), p.key.point};
  };
  std::vector<PointTrials> before;
  std::map<PointKey, size_t> before_index;
  if (baseline != nullptr) {
    before = AggregateTrials(*baseline);
    for (size_t i = 0; i < before.size(); ++i) before_index.emplace(match_key(before[i]), i);
  }
  std::set<PointKey> seen;
  ComparisonCounts& counts = comparison.counts;
  for (PointTrials& point : current) {
    PointComparison entry;
    entry.key = point.key;
    seen.insert(match_key(point));
    if (baseline != nullptr) {
      auto found = before_index.find(match_key(point));
      if (found == before_index.end()) {
        entry.change = BaselineChange::kNew;
      } else {
        entry.baseline = before[found->second];
        entry.change = Judge(point, *entry.baseline);
      }
    }
    ++counts.points;
    counts.trials += point.trials;
    ++counts.points_by_worst[point.worst];
    if (point.expectation_met() && point.worst != Outcome::kPass && point.worst != Outcome::kSkip) {
      ++counts.expected_by_worst[point.worst];
    }
    if (point.flaky()) ++counts.flaky;
    if (!point.expectation_met()) ++counts.unmet;
    if (point.known_failure && point.expectation_met()) ++counts.known_failures;
    if (point.fixed_upstream) ++counts.fixed_upstream;
    entry.now = std::move(point);
    if (entry.baseline.has_value()) ComparePerf(entry, perf);
    comparison.points.push_back(std::move(entry));
  }
  for (PointTrials& point : before) {
    if (seen.count(match_key(point)) != 0) continue;
    PointComparison entry;
    entry.key = point.key;
    entry.change = BaselineChange::kVanished;
    entry.baseline = std::move(point);
    comparison.points.push_back(std::move(entry));
  }
  for (const PointComparison& entry : comparison.points) {
    switch (entry.change) {
      case BaselineChange::kRegression: ++counts.regressions; break;
      case BaselineChange::kFix: ++counts.fixes; break;
      case BaselineChange::kChangedSignature: ++counts.changed_signatures; break;
      case BaselineChange::kNew: ++counts.new_points; break;
      case BaselineChange::kVanished: ++counts.vanished; break;
      case BaselineChange::kUnchanged: ++counts.unchanged; break;
      case BaselineChange::kNotCompared: break;
    }
    if (entry.perf_regressed()) ++counts.perf_regressions;
    if (entry.perf_improved()) ++counts.perf_improvements;
    if (!entry.incomparable.empty()) ++counts.perf_incomparable;
  }
  return comparison;
}

int ComparisonExitStatus(const Comparison& comparison) {
  if (comparison.counts.points_by_worst.count(Outcome::kInfra) != 0) return kExitInfrastructure;
  const ComparisonCounts& c = comparison.counts;
  const bool perf_regressed = c.perf_regressions > 0 && !comparison.perf_options.warn_only;
  return c.unmet > 0 || c.regressions > 0 || perf_regressed ? kExitUnmet : kExitOk;
}

namespace {
std::string Plural(int n, std::string_view one, std::string_view many) {
  return absl::StrCat(n, " ", std::string(n == 1 ? one : many));
}
}  // namespace

std::string ComparisonHeadline(const Comparison& comparison) {
  const ComparisonCounts& c = comparison.counts;
  std::vector<std::string> outcomes;
  for (const auto& [outcome, n] : c.points_by_worst) {
    outcomes.push_back(absl::StrCat(n, " ", std::string(OutcomeName(outcome))));
    auto expected = c.expected_by_worst.find(outcome);
    if (expected == c.expected_by_worst.end()) continue;
    absl::StrAppend(&outcomes.back(), expected->second < n ? absl::StrCat(" (", expected->second, " expected)")
                                      : n == 1                ? " (expected)"
                                                              : " (all expected)");
  }
  std::string line = absl::StrCat(Plural(c.points, "point", "points"), " (",
                                  Plural(c.trials, "trial", "trials"), ")");
  if (!outcomes.empty()) absl::StrAppend(&line, ": ", absl::StrJoin(outcomes, ", "));
  if (c.flaky > 0) absl::StrAppend(&line, " (", c.flaky, " flaky)");
  absl::StrAppend(&line, "; ", Plural(c.unmet, "unmet expectation", "unmet expectations"));
  if (c.known_failures > 0) absl::StrAppend(&line, "; ", Plural(c.known_failures, "known failure", "known failures"));
  if (c.fixed_upstream > 0) absl::StrAppend(&line, "; ", c.fixed_upstream, " fixed upstream");
  if (comparison.has_baseline) {
    absl::StrAppend(&line, "; vs baseline: ", Plural(c.regressions, "regression", "regressions"), ", ",
                    Plural(c.fixes, "fix", "fixes"), ", ",
                    Plural(c.changed_signatures, "changed signature", "changed signatures"), ", ",
                    c.new_points, " new, ", c.vanished, " vanished");
    if (c.perf_regressions + c.perf_improvements + c.perf_incomparable > 0) {
      absl::StrAppend(&line, "; perf: ", Plural(c.perf_regressions, "point slower", "points slower"),
                      ", ", c.perf_improvements, " faster");
      if (c.perf_incomparable > 0) absl::StrAppend(&line, ", ", c.perf_incomparable, " not comparable");
      if (comparison.perf_options.warn_only && c.perf_regressions > 0) absl::StrAppend(&line, " (warn only)");
    }
  }
  return line;
}

}  // namespace gh
