// Trials whose job ended infra run again. An infrastructure failure (a Slurm step that failed to
// start under load, a node that died, mpirun refusing) says nothing about the version, so it is
// never counted as a trial: the trial runs again, up to driver::kMaxJobAttempts attempts (inside
// an allocation on the live nodes: JobTrialRunner leaves a dead node out). The result that comes
// back carries the retried attempts (TrialResult::infra_attempts); only infra on every attempt
// comes back infra, and its probe is skipped "... after 3 attempts".
//
// Sits below the state file's CachingTrialRunner, so the cache keeps the trial that counted
// together with the infra attempts under it.
#ifndef GPUHARNESS_BISECT_INFRA_RETRY_H_
#define GPUHARNESS_BISECT_INFRA_RETRY_H_

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "harness/bisect/bisect_runner.h"
#include "harness/driver/job_attempts.h"

namespace gh {

class InfraRetryingTrialRunner : public TrialRunner {
 public:
  // Called before each retry with the request about to run (attempt >= 2) and the infra result
  // of the attempt before it (progress on the console).
  using RetryNote = std::function<void(const Request& retry, const TrialResult& failed)>;

  explicit InfraRetryingTrialRunner(TrialRunner& inner, int max_attempts = driver::kMaxJobAttempts,
                                    RetryNote note = nullptr)
      : inner_(inner), max_attempts_(max_attempts), note_(std::move(note)) {}

  // The batch, then its infra trials again as one batch (concurrent, as the first), until none
  // is infra or each has had max_attempts.
  absl::StatusOr<std::vector<TrialResult>> RunTrials(const std::vector<Request>& batch) override;
  // Rolling: an attempt that ends infra is started again in its own slot before Wait looks for
  // the next trial to end.
  absl::Status Start(const Request& request) override;
  absl::StatusOr<Finished> Wait() override;

  int retried() const { return retried_; }  // infra attempts run again, in all

 private:
  // Whether `result` of `request` is to run again; then records the attempt and notes it.
  bool Retry(const Request& request, const TrialResult& result, std::vector<InfraAttempt>& attempts);

  TrialRunner& inner_;
  int max_attempts_;
  RetryNote note_;
  int retried_ = 0;
  // Rolling: the infra attempts so far of each (version, trial) retried and still running.
  std::map<std::pair<int, int>, std::vector<InfraAttempt>> rolling_attempts_;
};

// The console line before a retry: "v05 trial 0: infrastructure: ...: running it again (attempt 2
// of 3)".
std::string InfraRetryLine(const std::string& label, const TrialRunner::Request& retry, const TrialResult& failed,
                           int max_attempts = driver::kMaxJobAttempts);

}  // namespace gh

#endif  // GPUHARNESS_BISECT_INFRA_RETRY_H_
