// Runs a bisect: checks both ends, resolves the failure being hunted from the bad end and
// estimates its failure rate there, then searches: a deterministic failure by bisection (K
// trials always in flight for --jobs K), each probe running trials until its sequential test
// decides; a flaky one by one posterior over every trial (pooled_search.h). Trials run through
// a TrialRunner so tests use fake versions.
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
    int attempt = 1;  // 2 and up: the trial again after its attempt ended infra (driver/job_pool.h)
  };
  struct Finished {
    Request request;
    TrialResult result;
  };
  virtual ~TrialRunner() = default;
  virtual absl::StatusOr<std::vector<TrialResult>> RunTrials(const std::vector<Request>& batch) = 0;

  // Rolling use (--jobs K without rounds): Start hands over one request; Wait returns the next
  // started request to finish, so the caller can start another as soon as a slot frees. The
  // caller keeps at most K started and not yet returned. Wait with nothing started is an
  // error. The default runs each started request alone, in order, through RunTrials.
  virtual absl::Status Start(const Request& request);
  virtual absl::StatusOr<Finished> Wait();

 private:
  std::vector<Request> started_;  // the default's queue
};

// What the bisect looks for: the first version showing the failure (a regression), or the first
// version after failing ones that no longer shows it (a fix; --good then comes after --bad).
enum class BisectFind { kBug, kFix };
std::string_view BisectFindName(BisectFind find);  // "bug", "fix"
absl::StatusOr<BisectFind> ParseBisectFind(std::string_view name);  // InvalidArgument naming --find

struct BisectConfig {
  std::vector<std::string> versions;  // labels, oldest first
  int good = 0;                       // index of the known good end
  int bad = 0;                        // index of the known bad end, > good (kFix: < good)
  int jobs = 1;
  HuntSpec hunt;
  SprtConfig sprt;
  BisectFind find = BisectFind::kBug;
  // Trials of the bad end that tell a deterministic failure from a flaky one (as V8's flake
  // bisect measures the failure rate first): when all of them show the hunted failure, probes
  // are decided by the SPRT with p_bad = n/(n+1) (3 passes make a version good); when some pass,
  // the failure is flaky and, with pool_flaky, one posterior pools every probe's trials
  // (PooledSearch). The bad end stops early at its first pass once the SPRT called it bad.
  // 0: no estimate, every probe runs `sprt` as given.
  int estimate_trials = 8;
  bool pool_flaky = true;
  // --jobs >= 2: start the next probe as soon as a slot frees, splitting what the probes in
  // flight leave (both halves of a running probe); false: rounds of K probes that wait for the
  // slowest.
  bool rolling = true;
};

// How the bisect spent its trials, from the bad end's estimate.
struct BisectEconomy {
  int bad_end_runs = 0;    // bad-end trials that passed or showed the hunted failure
  int bad_end_hunted = 0;  // of them, the hunted failure
  bool deterministic = false;
  bool pooled = false;     // flaky: PooledSearch over every trial
  SprtConfig probe_sprt;   // the test single probes were decided with (the ends, unpooled probes)
  double confidence = 0;   // pooled: posterior probability of the answer
  // "the bad end failed 8 of 8 trials: deterministic; probes decided by SPRT p_good=0.01
  // p_bad=0.889 ..." or "... 3 of 5 trials: flaky; one posterior over every trial (answer at
  // probability 0.993)".
  std::string ToString() const;
};

// InvalidArgument naming the flag for ends out of range or in the wrong order, jobs < 1, or an
// invalid SPRT configuration.
absl::Status ValidateBisectConfig(const BisectConfig& config);

struct ProbeRecord {
  int version = 0;
  std::string label;
  int round = 0;  // 0: the ends; 1, 2, ...: search rounds
  std::vector<TrialResult> trials = {};  // every trial run, including any past the deciding one
  ProbeTally tally = {};
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
  // Meaningful when status == kFound. first_bad and last_good are the failing and the passing
  // side of the change: with find == kFix, first_bad is the last version that fails and
  // last_good the first one that passes again (the fix), which comes after it.
  BisectAnswer answer;
  BisectFind find = BisectFind::kBug;
  BisectEconomy economy;
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
