// A scenario as loaded from YAML: its axes, rank requirements, trials, timeout, expectation.
#ifndef GPUHARNESS_CORE_SCENARIO_SPEC_H_
#define GPUHARNESS_CORE_SCENARIO_SPEC_H_

#include <climits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "harness/core/expectation.h"
#include "harness/core/metric_expectation.h"
#include "harness/core/param.h"
#include "harness/core/trial_verdict.h"

namespace gh {

// A kind's own top-level block of a scenario (kind exec's `exec:`), read by the kind in its own
// layer (KindInfo::read_block) and held here as it read it; the kind casts it back.
struct KindBlock {
  virtual ~KindBlock() = default;
};

// Where a YAML node came from, for error messages ("file:line:column").
struct SourceLoc {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based
  std::string ToString() const;  // "scenarios/x.yaml:12:5"
};

// One parameter with every value it takes. A scalar in YAML is an axis of one value.
struct Axis {
  std::string name;
  ParamType type = ParamType::kInt;
  std::vector<ParamValue> values;
  bool from_yaml = false;  // false when filled from the kind's default (not part of point names)
  SourceLoc loc;
};

// `ranks: 4` (exact) or `ranks: {min: 2, max: 8}`.
struct RankRequirement {
  int min = 1;
  int max = INT_MAX;
  bool Admits(int nranks) const { return nranks >= min && nranks <= max; }
  std::string ToString() const;  // "4", ">=2", "2..8"
};

struct ScenarioSpec {
  std::string name;   // unique per file; first component of every point name
  std::string kind;   // a registered kind, e.g. "ring_shift"
  std::string description;
  SourceLoc loc;      // the document's start
  std::vector<Axis> axes;  // every parameter of the kind, in the kind's declared order
  RankRequirement ranks;
  int trials = 1;
  absl::Duration timeout = absl::Seconds(60);  // per point and trial
  int warmup = 5;       // untimed iterations before timing
  int iterations = 20;  // timed iterations
  ExpectationSet expect;  // default: pass
  // `valid_for:` where the expectations hold (core/validity_range.h): facts only, no parameters.
  // A point run outside it is a skip saying why. Unset: everywhere.
  std::optional<ExpectationRule> valid_for;
  // `expect_metrics:` bounds on metrics (core/metric_expectation.h); every rule whose
  // conditions hold applies.
  std::vector<MetricBoundRule> expect_metrics;
  // How the trials of a point add up to its result (`verdict:`; default any_failure). Only
  // consulted when trials > 1.
  TrialVerdictRule verdict;
  // `nccl_inspector: true`: run the job under NCCL's Inspector profiler plugin and attach its
  // per-collective summary to this scenario's records (docs/explanation/hangs.md).
  bool nccl_inspector = false;
  // The kind's own block (KindInfo::block_key, e.g. kind exec's `exec:` with the command and its
  // rules); null for a kind without one.
  std::shared_ptr<const KindBlock> block;
};

}  // namespace gh

#endif  // GPUHARNESS_CORE_SCENARIO_SPEC_H_
