// The perf bisect's probe decision (`gpuharness bisect --hunt-metric NAME --threshold 5%
// --direction lower-is-worse|higher-is-worse`): whether a version's metric is like the good
// end's or like the bad end's, Pinpoint-style: measure a few trials, add one while the answer is
// ambiguous, stop at a cap. Each trial is its own job, so its own process, and a process settles
// in its own level (docs/performance.md: on the H200 two processes of one build differ by up to
// 76 %): the samples stay grouped per trial and every decision is on the process level, with the
// baseline comparison's own statistic (core/perf_comparison.h: a pooled t test on the logs of
// the processes' medians and its interval).
//
// The bisect itself is the ordinary one (search, resume, reports): PerfTrialRunner stands
// between it and the job runner and turns each probe's measurements into one trial the hunt
// classifies, a pass (like the good end) or a fail "perf regression: ..." (like the bad end).
#ifndef GPUHARNESS_BISECT_PERF_PROBE_H_
#define GPUHARNESS_BISECT_PERF_PROBE_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/bisect/bisect_runner.h"
#include "harness/bisect/probe.h"

namespace gh {

struct PerfHunt {
  std::string metric;                  // --hunt-metric
  double threshold = 0.05;             // --threshold: the ends must differ by at least this
  // --direction: whether a lower value is worse (bandwidth); unset: from the metric's unit
  // (times are higher-is-worse, everything else lower-is-worse).
  std::optional<bool> lower_is_worse;
  // The process-level test's level (PerfOptions::process_significance); intervals at
  // 1 - significance.
  double significance = 0.01;
  int min_trials = 3;                  // trials (processes) per end and per probe before any decision
  int max_trials = 12;                 // the cap: decided by the point estimate there
};

// A version's samples of the hunted metric, one vector per trial (process).
using ProcessSamplesOf = std::vector<std::vector<double>>;

// "lower-is-worse" -> true, "higher-is-worse" -> false; InvalidArgument naming both otherwise.
absl::StatusOr<bool> ParseDirection(std::string_view text);

// The hunt's outcome and signature regex: what a probe like the bad end reports.
inline constexpr char kPerfHuntSignature[] = "^perf regression: ";

enum class PerfClass { kUndecided, kLikeGood, kLikeBad };

struct PerfJudgement {
  PerfClass verdict = PerfClass::kUndecided;
  double worse = 0, worse_low = 0, worse_high = 0;  // vs the good end, fraction, worse-positive
  double split = 0;  // the fraction between the ends where like-good turns like-bad
  // "time_median_us slower by 9.8 % (99 % CI 7.1–12.6 %; 3 vs 3 processes) than the good end"
  std::string text;
};

// The bad end against the good end, as a baseline comparison compares now with the baseline
// (CompareProcessSamples): kLikeBad when it says slower (significant, interval above 0) and the
// change is at least the threshold; kLikeGood when the interval stays below the threshold (the
// bad end is not bad), or at the cap; else undecided (measure one more process per end).
PerfJudgement JudgeBadEnd(const PerfHunt& hunt, bool lower_is_worse, const ProcessSamplesOf& good,
                          const ProcessSamplesOf& bad, bool at_cap);

// A version between the ends: like bad when its process-level interval (vs the good end) lies
// above half the ends' difference, like good when below; at the cap, by the point estimate;
// else undecided (measure one more process of it).
PerfJudgement JudgeProbe(const PerfHunt& hunt, bool lower_is_worse, const ProcessSamplesOf& good,
                         const ProcessSamplesOf& bad, const ProcessSamplesOf& probe, bool at_cap);

class PerfTrialRunner : public TrialRunner {
 public:
  // `jobs` runs the real trials; `good` and `bad` are the ends' version indices.
  PerfTrialRunner(TrialRunner& jobs, PerfHunt hunt, int good, int bad)
      : jobs_(jobs), hunt_(std::move(hunt)), good_(good), bad_(bad) {}
  // One decided trial per request: the ends are measured first (min_trials each, then one more
  // each while JudgeBadEnd is undecided), then each requested version until JudgeProbe decides. A real trial that did not pass (or recorded no
  // samples of the metric) is returned as it is, so the hunt sees that failure.
  absl::StatusOr<std::vector<TrialResult>> RunTrials(const std::vector<Request>& batch) override;

 private:
  struct Measured {
    ProcessSamplesOf processes;  // one entry per passing trial
    int trials = 0;
    std::optional<TrialResult> failed;  // the first real trial that did not pass
    std::string first_dir;    // the first real trial's directory and point: what repro
    std::string first_point;  // scripts replay
  };
  absl::Status MeasureMore(const std::vector<int>& versions);
  // Measures the ends until the bad end is judged (bad_end_), unless an end failed.
  absl::Status EnsureEnds();
  bool LowerIsWorse() const;

  TrialRunner& jobs_;
  PerfHunt hunt_;
  int good_, bad_;
  std::string unit_;
  std::map<int, Measured> measured_;
  std::optional<PerfJudgement> bad_end_;
};

}  // namespace gh

#endif  // GPUHARNESS_BISECT_PERF_PROBE_H_
