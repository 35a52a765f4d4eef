#include "harness/bisect/bisect_state.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/core/file_util.h"
#include "harness/core/stable_hash.h"

namespace gh {

std::string SettingsHash(const nlohmann::json& settings) {
  // Its own basis (one digit short of FNV's) since the first state files: cached trials stay found.
  return absl::StrFormat("%016x", Fnv1a64(settings.dump(), 1469598103934665603ull));
}

const TrialResult* ProbeCache::Find(const Key& key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second;
}

void ProbeCache::Insert(const Key& key, const TrialResult& result) { entries_[key] = result; }

nlohmann::json TrialResultToJson(const TrialResult& trial) {
  nlohmann::json json = {{"outcome", std::string(OutcomeName(trial.outcome))},
                         {"signature", trial.signature},
                         {"setup_failed", trial.setup_failed},
                         {"detail", trial.detail},
                         {"wall_s", trial.wall_s},
                         {"point", trial.point}};
  if (!trial.infra_attempts.empty()) {
    nlohmann::json attempts = nlohmann::json::array();
    for (const InfraAttempt& a : trial.infra_attempts) {
      attempts.push_back({{"signature", a.signature}, {"detail", a.detail}});
    }
    json["infra_attempts"] = std::move(attempts);
  }
  return json;
}

nlohmann::json ProbeCache::ToJson() const {
  nlohmann::json trials = nlohmann::json::array();
  for (const auto& [key, result] : entries_) {
    nlohmann::json entry = TrialResultToJson(result);
    entry["version"] = std::get<0>(key);
    entry["settings"] = std::get<1>(key);
    entry["trial"] = std::get<2>(key);
    trials.push_back(std::move(entry));
  }
  return {{"schema_version", kBisectStateSchemaVersion}, {"trials", std::move(trials)}};
}

absl::StatusOr<ProbeCache> ProbeCache::FromJson(const nlohmann::json& json, const std::string& path) {
  auto bad = [&](const std::string& key, const std::string& message) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", key, ": ", message));
  };
  if (!json.is_object()) return bad("(top level)", "expected an object");
  if (!json.contains("schema_version") || !json["schema_version"].is_number_integer()) {
    return bad("schema_version", "missing or not an integer");
  }
  if (json["schema_version"].get<int>() != kBisectStateSchemaVersion) {
    return bad("schema_version", absl::StrCat("unsupported version ", json["schema_version"].get<int>(),
                                              " (this build reads ", kBisectStateSchemaVersion, ")"));
  }
  if (!json.contains("trials") || !json["trials"].is_array()) return bad("trials", "missing or not an array");
  ProbeCache cache;
  const nlohmann::json& trials = json["trials"];
  for (size_t i = 0; i < trials.size(); ++i) {
    const nlohmann::json& entry = trials[i];
    const std::string at = absl::StrCat("trials[", i, "]");
    if (!entry.is_object()) return bad(at, "expected an object");
    for (const char* key : {"version", "settings", "outcome", "signature", "detail"}) {
      if (!entry.contains(key) || !entry[key].is_string()) return bad(absl::StrCat(at, ".", key), "missing or not a string");
    }
    if (!entry.contains("trial") || !entry["trial"].is_number_integer()) return bad(at + ".trial", "missing or not an integer");
    if (!entry.contains("setup_failed") || !entry["setup_failed"].is_boolean()) return bad(at + ".setup_failed", "missing or not a boolean");
    if (!entry.contains("wall_s") || !entry["wall_s"].is_number()) return bad(at + ".wall_s", "missing or not a number");
    absl::StatusOr<Outcome> outcome = ParseOutcome(entry["outcome"].get<std::string>());
    if (!outcome.ok()) return bad(at + ".outcome", std::string(outcome.status().message()));
    TrialResult result;
    result.outcome = *outcome;
    result.signature = entry["signature"].get<std::string>();
    result.setup_failed = entry["setup_failed"].get<bool>();
    result.detail = entry["detail"].get<std::string>();
    result.wall_s = entry["wall_s"].get<double>();
    if (entry.contains("point") && entry["point"].is_string()) result.point = entry["point"].get<std::string>();
    if (entry.contains("infra_attempts")) {  // absent: none (and in files older than the retry)
      const nlohmann::json& attempts = entry["infra_attempts"];
      if (!attempts.is_array()) return bad(at + ".infra_attempts", "not an array");
      for (size_t k = 0; k < attempts.size(); ++k) {
        const std::string a_at = absl::StrCat(at, ".infra_attempts[", k, "]");
        if (!attempts[k].is_object()) return bad(a_at, "expected an object");
        for (const char* key : {"signature", "detail"}) {
          if (!attempts[k].contains(key) || !attempts[k][key].is_string()) {
            return bad(absl::StrCat(a_at, ".", key), "missing or not a string");
          }
        }
        result.infra_attempts.push_back(
            {attempts[k]["signature"].get<std::string>(), attempts[k]["detail"].get<std::string>()});
      }
    }
    cache.Insert({entry["version"].get<std::string>(), entry["settings"].get<std::string>(),
                  entry["trial"].get<int>()},
                 result);
  }
  return cache;
}

absl::StatusOr<ProbeCache> ProbeCache::Load(const std::string& path) {
  std::ifstream probe(path);
  if (!probe.is_open()) {
    if (errno == ENOENT) return ProbeCache();
    return absl::InvalidArgumentError(absl::StrCat(path, ": cannot read: ", std::strerror(errno)));
  }
  probe.close();
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return absl::InvalidArgumentError(text.status().message());
  nlohmann::json json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return absl::InvalidArgumentError(absl::StrCat(path, ": not valid JSON"));
  return FromJson(json, path);
}

absl::Status ProbeCache::Save(const std::string& path) const {
  return WriteFileAtomically(path, ToJson().dump(1) + "\n");
}

absl::StatusOr<std::vector<TrialResult>> CachingTrialRunner::RunTrials(const std::vector<Request>& batch) {
  std::vector<TrialResult> results(batch.size());
  std::vector<Request> misses;
  std::vector<size_t> miss_slots;
  for (size_t i = 0; i < batch.size(); ++i) {
    const ProbeCache::Key key{labels_.at(batch[i].version), settings_hashes_.at(batch[i].version), batch[i].trial};
    if (const TrialResult* hit = cache_.Find(key)) {
      results[i] = *hit;
      ++hits_;
    } else {
      misses.push_back(batch[i]);
      miss_slots.push_back(i);
    }
  }
  if (misses.empty()) return results;
  absl::StatusOr<std::vector<TrialResult>> ran = inner_.RunTrials(misses);
  if (!ran.ok()) return ran.status();
  if (ran->size() != misses.size()) return absl::InternalError("trial runner returned a wrong number of results");
  ++batches_run_;
  for (size_t j = 0; j < misses.size(); ++j) {
    results[miss_slots[j]] = (*ran)[j];
    if (!(*ran)[j].unrunnable()) {
      cache_.Insert({labels_.at(misses[j].version), settings_hashes_.at(misses[j].version), misses[j].trial},
                    (*ran)[j]);
    }
    ++misses_;
  }
  if (!state_path_.empty()) {
    if (absl::Status saved = cache_.Save(state_path_); !saved.ok()) return saved;
  }
  return results;
}

absl::Status CachingTrialRunner::Start(const Request& request) {
  const ProbeCache::Key key{labels_.at(request.version), settings_hashes_.at(request.version), request.trial};
  if (const TrialResult* hit = cache_.Find(key)) {
    cached_.push_back({request, *hit});
    ++hits_;
    return absl::OkStatus();
  }
  return inner_.Start(request);
}

absl::StatusOr<TrialRunner::Finished> CachingTrialRunner::Wait() {
  if (!cached_.empty()) {
    Finished done = std::move(cached_.front());
    cached_.erase(cached_.begin());
    return done;
  }
  absl::StatusOr<Finished> done = inner_.Wait();
  if (!done.ok()) return done.status();
  ++misses_;
  ++batches_run_;
  if (!done->result.unrunnable()) {
    cache_.Insert({labels_.at(done->request.version), settings_hashes_.at(done->request.version), done->request.trial},
                  done->result);
  }
  if (!state_path_.empty()) {
    if (absl::Status saved = cache_.Save(state_path_); !saved.ok()) return saved;
  }
  return done;
}

}  // namespace gh
