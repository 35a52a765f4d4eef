// Comparison of a results set with its expectations and with a baseline results set.
// Records are grouped by key (cell, point); a key's trials are aggregated (n trials, k failed,
// signature counts), then each key is judged against its expectation (every trial `matched`)
// and against the same key in the baseline. No CUDA, no MPI: plain data in, plain data out.
#ifndef GPUHARNESS_CORE_COMPARISON_H_
#define GPUHARNESS_CORE_COMPARISON_H_

#include <compare>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "harness/core/expectation.h"
#include "harness/core/metric.h"
#include "harness/core/outcome.h"
#include "harness/core/perf_comparison.h"
#include "harness/core/record.h"
#include "harness/core/trial_verdict.h"
#include "nlohmann/json.hpp"

namespace gh {

// The canonical id of a sweep cell from its axis labels: "axis=label" pairs sorted by axis name
// and joined with ','. "" for a plain run (no cell). Baselines match cells by it, so the order in
// which a matrix lists its axes does not matter.
std::string CellKey(const std::map<std::string, std::string>& cell);

struct PointKey {
  std::string cell;   // CellKey(record.cell)
  std::string point;  // Point::name
  auto operator<=>(const PointKey&) const = default;
};

// Short form of a failure for tables: "FAILED_PRECONDITION" (an error's leading token),
// "crash (SIGSEGV)", "timeout", "wrong data", "swallowed"; "pass", "skip" and "infra" for those.
std::string ShortSignature(Outcome outcome, const std::string& signature);

// The signature with run-to-run noise removed, for deciding whether two failures are the same:
// the outcome name, the signature without a trailing " [ranks ...]", and digit runs as "#".
std::string SignatureClass(Outcome outcome, const std::string& signature);

// What one failing trial of a key left to read, for the reports to show beside its verdict
// (report/evidence.h): the trial, and each of its ranks that did not pass, with its step,
// signature, wrong element, stack and last output lines (kind exec); their metrics left out.
struct TrialEvidence {
  int trial = -1;  // 0-based; -1 when no trial of the key failed
  std::optional<int> process;  // Record::process
  std::vector<RankOutcome> ranks;
  bool empty() const { return trial < 0; }
};

// Every trial of one key.
struct PointTrials {
  PointKey key;
  std::map<std::string, std::string> cell;  // axis name -> label
  std::string scenario;
  std::string kind;
  nlohmann::json params;
  int nranks = 1;
  int trials = 0;   // records seen
  int passed = 0;
  int skipped = 0;
  int failed = 0;   // neither pass nor skip: fail, error, timeout, crash, infra
  int infra = 0;    // of `failed`, those the machinery failed (Outcome::kInfra): no verdict
  int unmet = 0;    // trials whose outcome did not meet the expectation
  Outcome worst = Outcome::kPass;       // most severe outcome over trials
  std::map<Outcome, int> outcome_counts;
  // Failed trials by short signature, most common first (ties by first occurrence).
  std::vector<std::pair<std::string, int>> failure_counts;
  std::vector<std::string> failure_classes;  // sorted, distinct SignatureClass of judged failures
  std::string first_failure_signature;       // full text, for tooltips and lists
  std::string first_unmet_signature;         // the first unmatched trial's signature (or outcome)
  std::string skip_reason;                   // of the first skipped trial
  // The first trial that did not meet its expectation, else the first that failed (neither pass
  // nor skip): what the reports show of it.
  TrialEvidence evidence;
  // The first trial that timed out with a hang report (every rank's place, where the ranks
  // diverged, NCCL's RAS view), and that trial's index; -1 when none did.
  HangReport first_hang;
  int first_hang_trial = -1;
  // The first trial's NCCL Inspector summary (`nccl_inspector: true`), empty when none has one.
  NcclInspectorView nccl_inspector;
  Expectation expected;                      // the first trial's
  // Per metric name, the median over passing trials, with every passing trial's samples.
  std::vector<Metric> metrics;
  // The same samples kept apart by process, which the baseline comparison tests.
  std::vector<ProcessSamples> perf_samples;
  std::vector<MetricBound> metric_bounds;  // the first trial's (Record::metric_bounds)
  // The signature of each missed metric bound (MissedMetricBounds); each counts as unmet.
  std::vector<std::string> metric_misses;
  MeasuredOn measured_on;                  // the first trial's backend, hardware, gpu_shared
  // Points run with `trials:` above 1 are judged as a whole by their verdict rule
  // (core/trial_verdict.h): `unmet` is then 0 when the trials together meet the expectation,
  // else at least 1, and `trial_summary` reads "10 trials, 10 failed (9 swallowed, 1 crash)".
  bool judged_by_verdict = false;
  std::string description;  // the scenario's, from the first record (may be empty)
  TrialVerdictRule verdict;
  TrialSummary trial_summary;

  // Some trial failed as the expectation's known issue says (Expectation::known): met, and
  // shown apart from regressions. `fixed_upstream`: the point is inside a known issue's versions
  // and met its expectation with no known failure: the issue's fix reached this version.
  bool known_failure = false;
  bool fixed_upstream = false;

  bool expectation_met() const { return unmet == 0; }
  bool all_pass() const { return trials > 0 && failed == 0 && passed > 0; }
  // Failed trials that are verdicts on the code (infra ones are not).
  int judged_failures() const { return failed - infra; }
  bool flaky() const { return judged_failures() > 0 && passed > 0; }
  const Metric* FindMetric(const std::string& name) const;
};

// Groups records by key, in order of each key's first record.
std::vector<PointTrials> AggregateTrials(const std::vector<Record>& records);

enum class BaselineChange {
  kNotCompared,       // no baseline given, or nothing judged now (only infra and skipped trials)
  kUnchanged,
  kRegression,        // baseline all pass -> now any failed trial
  kFix,               // baseline any failed trial -> now all pass
  kChangedSignature,  // failing in both, different signature classes
  kNew,               // key not in the baseline
  kVanished,          // key only in the baseline
};
std::string_view BaselineChangeName(BaselineChange change);  // "regression", "new point", ...

struct PointComparison {
  PointKey key;
  std::optional<PointTrials> now;       // absent for vanished keys
  std::optional<PointTrials> baseline;  // absent without a baseline or for new keys
  BaselineChange change = BaselineChange::kNotCompared;
  // With a baseline, for a key on both sides: each metric with samples on both sides compared
  // (core/perf_comparison.h), unless `incomparable` says why the two were measured on things
  // that do not compare.
  std::vector<MetricChange> perf;
  std::string incomparable;
  bool perf_regressed() const;  // some metric is slower
  bool perf_improved() const;   // some metric is faster and none slower
  bool expectation_met() const { return !now || now->expectation_met(); }
};

struct ComparisonCounts {
  int points = 0;  // keys in the current results
  int trials = 0;
  std::map<Outcome, int> points_by_worst;  // keys by their most severe outcome
  // Of those whose worst outcome is a failure (fail, error, timeout, crash), the keys that met
  // their expectation: a planted crash the scenario expects.
  std::map<Outcome, int> expected_by_worst;
  int flaky = 0;                           // keys with passing and failed trials
  int unmet = 0;                           // keys with an unmet expectation
  int known_failures = 0;                  // keys met as their known issue's failure
  int fixed_upstream = 0;                  // keys inside a known issue's versions that now meet
  int regressions = 0, fixes = 0, changed_signatures = 0, new_points = 0, vanished = 0,
      unchanged = 0;
  // Keys whose metrics got slower, faster, or could not be compared (vs the baseline).
  int perf_regressions = 0, perf_improvements = 0, perf_incomparable = 0;
};

struct Comparison {
  bool has_baseline = false;
  PerfOptions perf_options;  // how metrics were compared; warn_only keeps them off the exit status
  std::vector<PointComparison> points;  // current keys in record order, then vanished keys
  ComparisonCounts counts;
};

// How a current key finds its baseline key: the same point in the cell with the same labels,
// except on the axes in `ignore_axes`, which both sides leave out. So a sweep over
// nccl=2.28.9 compares with one over nccl=2.28.8: a version axis whose label changes from
// run to run (`--baseline-ignore nccl`).
struct BaselineMatch {
  std::set<std::string> ignore_axes;
  PerfOptions perf;  // how matched keys' metrics compare (core/perf_comparison.h)
};

// The cell key with the ignored axes left out.
std::string MatchCellKey(const std::map<std::string, std::string>& cell, const BaselineMatch& match);

// InvalidArgument when leaving the ignored axes out makes two different cells of `records` one
// ("--baseline-ignore nccl: cells 'nccl=2.28.3,proto=ll' and 'nccl=2.28.9,proto=ll' of
// <where> would compare as one").
absl::Status CheckBaselineMatch(const std::vector<Record>& records, const BaselineMatch& match,
                                const std::string& where);
// The same over cells' labels (a matrix's cells before they ran).
absl::Status CheckBaselineMatch(const std::vector<std::map<std::string, std::string>>& cells,
                                const BaselineMatch& match, const std::string& where);

// The baseline as the reports name it: its directory, and the axes left out when matching.
std::string BaselineLabel(const std::string& baseline_dir, const BaselineMatch& match);

// `baseline` null: no baseline comparison (every key kNotCompared).
Comparison CompareResults(const std::vector<Record>& now, const std::vector<Record>* baseline,
                          const BaselineMatch& match = {});

// The exit status the comparison gives: 3 (kExitInfrastructure) when any key ended infra, else 1
// when any expectation is unmet or any key regressed (in outcome, or in a metric unless
// perf_options.warn_only), else 0. Known failures and fixes upstream are neither.
int ComparisonExitStatus(const Comparison& comparison);

// One line: "12 points (14 trials): 10 pass, 1 skip, 1 error, 2 crash (all expected); 1 unmet
// expectation; vs baseline: 1 regression, 0 fixes, 0 changed signatures, 0 new, 0 vanished".
// A failure outcome that some keys expected says how many: "(1 expected)", "(expected)" for
// the one key, "(all expected)".
std::string ComparisonHeadline(const Comparison& comparison);

}  // namespace gh

#endif  // GPUHARNESS_CORE_COMPARISON_H_
