#include "harness/bisect/infra_retry.h"

#include "absl/strings/str_cat.h"

namespace gh {

std::string InfraRetryLine(const std::string& label, const TrialRunner::Request& retry, const TrialResult& failed,
                           int max_attempts) {
  return absl::StrCat(label, " trial ", retry.trial, ": ", failed.signature, ": running it again (attempt ",
                      retry.attempt, " of ", max_attempts, ")");
}

bool InfraRetryingTrialRunner::Retry(const Request& request, const TrialResult& result,
                                     std::vector<InfraAttempt>& attempts) {
  // A set-up failure is the version's own (and cached per version): not retried here.
  if (result.setup_failed || result.outcome != Outcome::kInfra || request.attempt >= max_attempts_) return false;
  attempts.push_back({result.signature, result.detail});
  ++retried_;
  if (note_) note_({request.version, request.trial, request.attempt + 1}, result);
  return true;
}

absl::StatusOr<std::vector<TrialResult>> InfraRetryingTrialRunner::RunTrials(const std::vector<Request>& batch) {
  absl::StatusOr<std::vector<TrialResult>> results = inner_.RunTrials(batch);
  if (!results.ok()) return results.status();
  if (results->size() != batch.size()) return absl::InternalError("trial runner returned a wrong number of results");
  std::vector<Request> requests = batch;
  std::vector<std::vector<InfraAttempt>> attempts(batch.size());
  for (;;) {
    std::vector<Request> again;
    std::vector<size_t> slots;
    for (size_t i = 0; i < requests.size(); ++i) {
      if (!Retry(requests[i], (*results)[i], attempts[i])) continue;
      ++requests[i].attempt;
      again.push_back(requests[i]);
      slots.push_back(i);
    }
    if (again.empty()) break;
    absl::StatusOr<std::vector<TrialResult>> ran = inner_.RunTrials(again);
    if (!ran.ok()) return ran.status();
    if (ran->size() != again.size()) return absl::InternalError("trial runner returned a wrong number of results");
    for (size_t j = 0; j < again.size(); ++j) (*results)[slots[j]] = std::move((*ran)[j]);
  }
  for (size_t i = 0; i < requests.size(); ++i) (*results)[i].infra_attempts = std::move(attempts[i]);
  return results;
}

absl::Status InfraRetryingTrialRunner::Start(const Request& request) { return inner_.Start(request); }

absl::StatusOr<TrialRunner::Finished> InfraRetryingTrialRunner::Wait() {
  for (;;) {
    absl::StatusOr<Finished> done = inner_.Wait();
    if (!done.ok()) return done.status();
    const std::pair<int, int> key{done->request.version, done->request.trial};
    std::vector<InfraAttempt>& attempts = rolling_attempts_[key];
    if (Retry(done->request, done->result, attempts)) {
      Request again = done->request;
      ++again.attempt;
      if (absl::Status st = inner_.Start(again); !st.ok()) return st;
      continue;
    }
    done->result.infra_attempts = std::move(attempts);
    rolling_attempts_.erase(key);
    done->request.attempt = 1;  // the caller's request, as it started it
    return done;
  }
}

}  // namespace gh
