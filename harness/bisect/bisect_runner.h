// Runs a bisect: checks both ends, resolves the failure being hunted from the bad end, then
// probes round by round (K versions per round for --jobs K), each probe running trials until
// its sequential test decides. Trials run through a TrialRunner so tests use fake versions.
#ifndef GPUHARNESS_BISECT_BISECT_RUNNER_H_
#define GPUHARNESS_BISECT_BISECT_RUNNER_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/bisect/bisect_search.h"
#include "harness/bisect/probe.h"
#include "harness/bisect/sprt.h"

namespace gh {

// Runs trials of versions. The requests of one batch are independent and may run concurrently;
// results come back in request order. A runner's own failure (not a version's) is an error.
class TrialRunner {
 public:
  struct Request {
    int version = 0;  // index into the version list
    int trial = 0;    // 0-based trial number of that version
  };
  virtual ~TrialRunner() = default;
  virtual absl::StatusOr<std::vector<TrialResult>> RunTrials(const std::vector<Request>& batch) = 0;
};

struct BisectConfig {
  std::vector<std::string> versions;  // labels, oldest first
  int good = 0;                       // index of the known good end
  int bad = 0;                        // index of the known bad end, > good
  int jobs = 1;
  HuntSpec hunt;
  SprtConfig sprt;
};

// InvalidArgument naming the flag for ends out of range or in the wrong order, jobs < 1, or an
// invalid SPRT configuration.
absl::Status ValidateBisectConfig(const BisectConfig& config);

struct ProbeRecord {
  int version = 0;
  std::string label;
  int round = 0;  // 0: the ends; 1, 2, ...: search rounds
  std::vector<TrialResult> trials;  // every trial run, including any past the deciding one
  ProbeTally tally;
};

enum class BisectStatus {
  kFound,           // answer holds the first bad and last good versions
  kGoodEndNotGood,  // the good end fails (or cannot be classified)
  kBadEndNotBad,    // the bad end passes, cannot be set up, or shows another failure
};
std::string_view BisectStatusName(BisectStatus status);  // "found", "good_end_not_good", ...

struct BisectResult {
  BisectStatus status = BisectStatus::kFound;
  std::string message;          // what stopped a bisect that found nothing
  std::string hunt;             // Hunt::ToString() of the failure hunted ("" if never resolved)
  Outcome hunt_outcome = Outcome::kFail;
  std::string hunt_signature;   // the regex
  std::vector<ProbeRecord> probes;  // in the order they were decided
  int rounds = 0;                   // search rounds after the ends
  int total_trials = 0;             // trials run, all probes
  BisectAnswer answer;              // meaningful when status == kFound
};

// Called after each probe is decided (progress on the console).
using ProbeCallback = std::function<void(const ProbeRecord&)>;

absl::StatusOr<BisectResult> RunBisect(const BisectConfig& config, TrialRunner& runner,
                                       const ProbeCallback& on_probe = nullptr);

// One probe on its own (minimize's tests): trials of `version` one at a time until the verdict
// under `hunt`, at most sprt.max_trials.
absl::StatusOr<ProbeRecord> RunProbe(TrialRunner& runner, int version, const std::string& label,
                                     const Hunt& hunt, const SprtConfig& sprt);

}  // namespace gh

#endif  // GPUHARNESS_BISECT_BISECT_RUNNER_H_
