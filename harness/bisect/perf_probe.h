// The perf bisect's probe decision (`gpuharness bisect --hunt-metric NAME --threshold 5%
// --direction lower-is-worse|higher-is-worse`): whether a version's metric is like the good
// end's or like the bad end's, Pinpoint-style: measure a few trials, add one while the answer is
// ambiguous, stop at a cap. The samples are every timed iteration of the version's trials
// (Metric::samples), pooled.
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
  double significance = 0.05;          // test level; intervals at 1 - significance
  int min_trials = 3;                  // trials (jobs) measured before any decision
  int max_trials = 12;                 // the cap: decided by the point estimate there
};

// "lower-is-worse" -> true, "higher-is-worse" -> false; InvalidArgument naming both otherwise.
absl::StatusOr<bool> ParseDirection(std::string_view text);

// The hunt's outcome and signature regex: what a probe like the bad end reports.
inline constexpr char kPerfHuntSignature[] = "^perf regression: ";

enum class PerfClass { kUndecided, kLikeGood, kLikeBad };

struct PerfJudgement {
  PerfClass verdict = PerfClass::kUndecided;
  double worse = 0, worse_low = 0, worse_high = 0;  // vs the good end, fraction, worse-positive
  double split = 0;  // the fraction between the ends where like-good turns like-bad
  std::string text;  // "time_median_us slower by 9.8 % (95 % CI 9.1–10.4 %) than the good end"
};

// The bad end against the good end: kLikeBad when significantly worse (Mann-Whitney p below the
// significance, interval above 0) by at least the threshold; else kLikeGood (the bad end is not
// bad). `unit` words the text.
PerfJudgement JudgeBadEnd(const PerfHunt& hunt, bool lower_is_worse, const std::vector<double>& good,
                          const std::vector<double>& bad);

// A version between the ends: like bad when its interval (vs the good end) lies above half the
// ends' difference, like good when below; at the cap, by the point estimate; else undecided.
PerfJudgement JudgeProbe(const PerfHunt& hunt, bool lower_is_worse, const std::vector<double>& good,
                         const std::vector<double>& bad, const std::vector<double>& probe, bool at_cap);

class PerfTrialRunner : public TrialRunner {
 public:
  // `jobs` runs the real trials; `good` and `bad` are the ends' version indices.
  PerfTrialRunner(TrialRunner& jobs, PerfHunt hunt, int good, int bad)
      : jobs_(jobs), hunt_(std::move(hunt)), good_(good), bad_(bad) {}
  // One decided trial per request: the ends are measured first (min_trials each), then each
  // requested version until JudgeProbe decides. A real trial that did not pass (or recorded no
  // samples of the metric) is returned as it is, so the hunt sees that failure.
  absl::StatusOr<std::vector<TrialResult>> RunTrials(const std::vector<Request>& batch) override;

 private:
  struct Measured {
    std::vector<double> samples;
    int trials = 0;
    std::optional<TrialResult> failed;  // the first real trial that did not pass
    std::string first_dir;    // the first real trial's directory and point: what repro
    std::string first_point;  // scripts replay
  };
  absl::Status MeasureMore(const std::vector<int>& versions);
  absl::Status EnsureEnds();
  bool LowerIsWorse() const;

  TrialRunner& jobs_;
  PerfHunt hunt_;
  int good_, bad_;
  std::string unit_;
  std::map<int, Measured> measured_;
};

}  // namespace gh

#endif  // GPUHARNESS_BISECT_PERF_PROBE_H_
