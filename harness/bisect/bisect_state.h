// The resumable state of a bisect: every trial's result, cached by (version, settings hash,
// trial) and written atomically to DIR/bisect_state.json after every batch (every trial, rolling). Running the same
// bisect again replays the search from the cache and runs only the trials it lacks.
#ifndef GPUHARNESS_BISECT_BISECT_STATE_H_
#define GPUHARNESS_BISECT_BISECT_STATE_H_

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/bisect/bisect_runner.h"
#include "nlohmann/json.hpp"

namespace gh {

inline constexpr int kBisectStateSchemaVersion = 1;

// A stable 16-hex-digit hash (FNV-1a 64) of the settings a trial depends on besides the version.
std::string SettingsHash(const nlohmann::json& settings);

class ProbeCache {
 public:
  using Key = std::tuple<std::string, std::string, int>;  // version label, settings hash, trial

  const TrialResult* Find(const Key& key) const;
  void Insert(const Key& key, const TrialResult& result);
  size_t size() const { return entries_.size(); }

  nlohmann::json ToJson() const;
  // `path` names the file in errors ("DIR/bisect_state.json: trials[3].outcome: ...").
  static absl::StatusOr<ProbeCache> FromJson(const nlohmann::json& json, const std::string& path);

  // A missing file is an empty cache; an unreadable or malformed one is InvalidArgument.
  static absl::StatusOr<ProbeCache> Load(const std::string& path);
  absl::Status Save(const std::string& path) const;  // atomic (temporary + rename)

 private:
  std::map<Key, TrialResult> entries_;
};

nlohmann::json TrialResultToJson(const TrialResult& trial);

// Serves trials from the cache and passes the rest to `inner`, then saves the cache to
// `state_path` (when not empty) after every batch, before returning. Unrunnable trials (set-up
// failures, infra on every attempt) are not cached: a later run retries them, as a sweep does.
// A trial's retried infra attempts are kept with it (infra_attempts).
class CachingTrialRunner : public TrialRunner {
 public:
  // `settings_hashes[i]` keys version i's trials (a version's own settings may be part of it).
  CachingTrialRunner(TrialRunner& inner, ProbeCache& cache, std::vector<std::string> labels,
                     std::vector<std::string> settings_hashes, std::string state_path)
      : inner_(inner), cache_(cache), labels_(std::move(labels)),
        settings_hashes_(std::move(settings_hashes)), state_path_(std::move(state_path)) {}
  // One settings hash for every version.
  CachingTrialRunner(TrialRunner& inner, ProbeCache& cache, std::vector<std::string> labels,
                     const std::string& settings_hash, std::string state_path)
      : CachingTrialRunner(inner, cache, labels, std::vector<std::string>(labels.size(), settings_hash),
                           std::move(state_path)) {}

  absl::StatusOr<std::vector<TrialResult>> RunTrials(const std::vector<Request>& batch) override;
  // Rolling trials: a cached one is finished at once; the others run in `inner`, and the state
  // file is saved after each.
  absl::Status Start(const Request& request) override;
  absl::StatusOr<Finished> Wait() override;

  int hits() const { return hits_; }
  int misses() const { return misses_; }
  int batches_run() const { return batches_run_; }  // batches that ran at least one trial

 private:
  TrialRunner& inner_;
  ProbeCache& cache_;
  std::vector<std::string> labels_;
  std::vector<std::string> settings_hashes_;
  std::string state_path_;
  int hits_ = 0;
  int misses_ = 0;
  int batches_run_ = 0;
  std::vector<Finished> cached_;  // rolling trials served from the cache, not yet waited for
};

}  // namespace gh

#endif  // GPUHARNESS_BISECT_BISECT_STATE_H_
