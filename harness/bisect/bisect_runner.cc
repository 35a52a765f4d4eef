#include "harness/bisect/bisect_runner.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace gh {

std::string_view BisectStatusName(BisectStatus status) {
  switch (status) {
    case BisectStatus::kFound: return "found";
    case BisectStatus::kGoodEndNotGood: return "good_end_not_good";
    case BisectStatus::kBadEndNotBad: return "bad_end_not_bad";
  }
  return "found";
}

absl::Status ValidateBisectConfig(const BisectConfig& config) {
  const int n = static_cast<int>(config.versions.size());
  if (n < 2) {
    return absl::InvalidArgumentError(absl::StrCat("versions: need at least 2, got ", n));
  }
  if (config.good < 0 || config.good >= n) {
    return absl::InvalidArgumentError(absl::StrCat("--good: version index ", config.good, " out of range"));
  }
  if (config.bad < 0 || config.bad >= n) {
    return absl::InvalidArgumentError(absl::StrCat("--bad: version index ", config.bad, " out of range"));
  }
  if (config.good >= config.bad) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--good: '", config.versions[config.good], "' must come before --bad '",
        config.versions[config.bad], "' in the version order"));
  }
  if (config.jobs < 1) {
    return absl::InvalidArgumentError(absl::StrCat("--jobs: must be >= 1, got ", config.jobs));
  }
  if (absl::Status status = config.sprt.Validate(); !status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("sprt: ", status.message()));
  }
  return absl::OkStatus();
}

namespace {

// Counts for the report while the hunt is not known yet (only passes can have happened: a
// failure of the bad end resolves the hunt).
ProbeTally CountWithoutHunt(const std::vector<TrialResult>& trials) {
  ProbeTally tally;
  for (const TrialResult& trial : trials) {
    ++tally.trials;
    if (trial.outcome == Outcome::kPass) {
      ++tally.passes;
    } else if (trial.outcome == Outcome::kSkip) {
      ++tally.skips;
    } else {
      ++tally.others;
      ++tally.signatures[absl::StrCat(std::string(OutcomeName(trial.outcome)), ": ", trial.signature)];
    }
  }
  return tally;
}

// The probes in flight and the trials gathered so far; the hunt is resolved once the bad end
// has failed, and every verdict waits for it.
class ProbeSet {
 public:
  ProbeSet(const BisectConfig& config, TrialRunner& runner, BisectResult& result,
           std::optional<Hunt>& hunt)
      : config_(config), runner_(runner), result_(result), hunt_(hunt) {}

  // Runs trials of `versions` in lockstep (one trial of each undecided version per batch) until
  // every one is decided; appends their ProbeRecords in decision order.
  absl::Status Run(const std::vector<int>& versions, int round, const ProbeCallback& on_probe) {
    std::map<int, ProbeRecord> open;
    for (int v : versions) {
      ProbeRecord record;
      record.version = v;
      record.label = config_.versions[v];
      record.round = round;
      open.emplace(v, std::move(record));
    }
    while (!open.empty()) {
      std::vector<TrialRunner::Request> batch;
      for (auto& [v, record] : open) {
        batch.push_back({v, static_cast<int>(record.trials.size())});
      }
      absl::StatusOr<std::vector<TrialResult>> results = runner_.RunTrials(batch);
      if (!results.ok()) return results.status();
      if (results->size() != batch.size()) {
        return absl::InternalError("trial runner returned a wrong number of results");
      }
      for (size_t i = 0; i < batch.size(); ++i) {
        open.at(batch[i].version).trials.push_back((*results)[i]);
        if (!(*results)[i].setup_failed) ++result_.total_trials;  // a set-up failure ran nothing
      }
      if (!hunt_.has_value()) {
        if (auto it = open.find(config_.bad); it != open.end()) {
          absl::StatusOr<Hunt> hunt = Hunt::Resolve(config_.hunt, it->second.trials);
          if (hunt.ok()) {
            hunt_ = *std::move(hunt);
          } else if (!absl::IsNotFound(hunt.status())) {
            return hunt.status();
          }
        }
      }
      for (auto it = open.begin(); it != open.end();) {
        ProbeRecord& record = it->second;
        const bool capped = static_cast<int>(record.trials.size()) >= config_.sprt.max_trials;
        const bool setup_failed = record.trials.back().unrunnable();
        if (hunt_.has_value()) {
          record.tally = TallyTrials(*hunt_, config_.sprt, record.trials);
        } else if (setup_failed) {
          record.tally.verdict = ProbeVerdict::kSkip;
          record.tally.setup_failure = record.trials.back().unrunnable_reason();
        } else {
          record.tally = CountWithoutHunt(record.trials);
        }
        // Without a hunt (the bad end has not failed yet) nothing is decided until the cap.
        if (record.tally.verdict != ProbeVerdict::kUndecided || capped || setup_failed) {
          if (on_probe) on_probe(record);
          result_.probes.push_back(std::move(record));
          it = open.erase(it);
        } else {
          ++it;
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  const BisectConfig& config_;
  TrialRunner& runner_;
  BisectResult& result_;
  std::optional<Hunt>& hunt_;
};

const ProbeRecord* FindProbe(const BisectResult& result, int version) {
  for (const ProbeRecord& probe : result.probes) {
    if (probe.version == version) return &probe;
  }
  return nullptr;
}

std::string Describe(const ProbeRecord& probe) {
  std::string out = absl::StrCat("'", probe.label, "' is ", std::string(ProbeVerdictName(probe.tally.verdict)));
  if (!probe.tally.setup_failure.empty()) {
    absl::StrAppend(&out, " (set-up failed: ", probe.tally.setup_failure, ")");
  } else {
    absl::StrAppend(&out, " (", probe.tally.Counts());
    if (!probe.tally.signatures.empty()) {
      absl::StrAppend(&out, "; most recent: ", probe.trials.back().signature.empty()
                                                   ? std::string(OutcomeName(probe.trials.back().outcome))
                                                   : probe.trials.back().signature);
    }
    absl::StrAppend(&out, ")");
  }
  return out;
}

}  // namespace

absl::StatusOr<BisectResult> RunBisect(const BisectConfig& config, TrialRunner& runner,
                                       const ProbeCallback& on_probe) {
  if (absl::Status status = ValidateBisectConfig(config); !status.ok()) return status;
  BisectResult result;
  std::optional<Hunt> hunt;
  ProbeSet probes(config, runner, result, hunt);

  // Round 0: the ends, together when two jobs fit, else the bad end first (it names the hunt).
  if (config.jobs >= 2) {
    if (absl::Status s = probes.Run({config.good, config.bad}, 0, on_probe); !s.ok()) return s;
  } else {
    if (absl::Status s = probes.Run({config.bad}, 0, on_probe); !s.ok()) return s;
    const ProbeRecord* bad_end = FindProbe(result, config.bad);
    if (hunt.has_value() && bad_end != nullptr && bad_end->tally.verdict == ProbeVerdict::kBad) {
      if (absl::Status s = probes.Run({config.good}, 0, on_probe); !s.ok()) return s;
    }
  }
  if (hunt.has_value()) {
    result.hunt = hunt->ToString();
    result.hunt_outcome = hunt->outcome();
    result.hunt_signature = hunt->signature_regex();
  }
  const ProbeRecord* bad = FindProbe(result, config.bad);
  if (!hunt.has_value() || bad == nullptr || bad->tally.verdict != ProbeVerdict::kBad) {
    result.status = BisectStatus::kBadEndNotBad;
    result.message = absl::StrCat("the bad end ", bad ? Describe(*bad) : "was not probed",
                                  hunt ? absl::StrCat(" when hunting ", hunt->ToString())
                                       : std::string(": it never showed the failure to hunt"));
    return result;
  }
  const ProbeRecord* good = FindProbe(result, config.good);
  if (good == nullptr || good->tally.verdict != ProbeVerdict::kGood) {
    result.status = BisectStatus::kGoodEndNotGood;
    result.message = absl::StrCat("the good end ", good ? Describe(*good) : "was not probed",
                                  " when hunting ", hunt->ToString());
    return result;
  }

  BisectSearch search(static_cast<int>(config.versions.size()), config.good, config.bad, config.jobs);
  for (std::vector<int> round = search.NextRound(); !round.empty(); round = search.NextRound()) {
    ++result.rounds;
    const size_t first = result.probes.size();
    if (absl::Status s = probes.Run(round, result.rounds, on_probe); !s.ok()) return s;
    for (size_t i = first; i < result.probes.size(); ++i) {
      ProbeVerdict verdict = result.probes[i].tally.verdict;
      // Undecided at the cap (no hunt can't happen here) is unclassifiable, like a skip.
      if (verdict == ProbeVerdict::kUndecided) verdict = ProbeVerdict::kSkip;
      search.Record(result.probes[i].version, verdict);
    }
  }
  result.answer = search.Answer();
  return result;
}

absl::StatusOr<ProbeRecord> RunProbe(TrialRunner& runner, int version, const std::string& label,
                                     const Hunt& hunt, const SprtConfig& sprt) {
  ProbeRecord record;
  record.version = version;
  record.label = label;
  while (static_cast<int>(record.trials.size()) < sprt.max_trials) {
    absl::StatusOr<std::vector<TrialResult>> results =
        runner.RunTrials({{version, static_cast<int>(record.trials.size())}});
    if (!results.ok()) return results.status();
    if (results->size() != 1) return absl::InternalError("trial runner returned a wrong number of results");
    record.trials.push_back(results->front());
    record.tally = TallyTrials(hunt, sprt, record.trials);
    if (record.tally.verdict != ProbeVerdict::kUndecided) break;
  }
  return record;
}

}  // namespace gh
