#include "harness/bisect/rolling_search.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

namespace gh {

int SpeculativeNext(const BisectSearch& search, const std::set<int>& open) {
  const int low = search.last_good(), high = search.first_bad();
  std::vector<int> best, run;
  for (int v = low + 1; v <= high; ++v) {
    const bool cut = v == high || open.contains(v);
    if (!cut) {
      if (!search.verdicts().contains(v)) run.push_back(v);
      continue;
    }
    if (run.size() > best.size()) best = run;
    run.clear();
  }
  if (best.empty()) return -1;
  return best[SplitPositions(static_cast<int>(best.size()), 1).front()];
}

namespace {

struct OpenProbe {
  ProbeRecord record;
  bool running = false;
};

class Rolling {
 public:
  Rolling(const BisectConfig& config, TrialRunner& runner, const Hunt& hunt, const ProbeRule& rule,
          BisectResult& result, const ProbeCallback& on_probe)
      : config_(config), runner_(runner), hunt_(hunt), rule_(rule), result_(result), on_probe_(on_probe),
        search_(static_cast<int>(config.versions.size()), config.good, config.bad, config.jobs) {}

  absl::Status Run() {
    for (;;) {
      if (absl::Status st = Fill(); !st.ok()) return st;
      if (running_ == 0) break;
      absl::StatusOr<TrialRunner::Finished> done = runner_.Wait();
      if (!done.ok()) return done.status();
      auto it = open_.find(done->request.version);
      if (it == open_.end()) return absl::InternalError("trial runner returned a trial never started");
      it->second.running = false;
      --running_;
      it->second.record.trials.push_back(done->result);
      if (!done->result.unrunnable()) ++result_.total_trials;
      Settle(it);
    }
    result_.answer = search_.Answer();
    return absl::OkStatus();
  }

 private:
  bool Inside(int v) const { return v > search_.last_good() && v < search_.first_bad(); }

  // Starts trials until K are in flight: undecided probes still in range first, then new ones.
  absl::Status Fill() {
    while (running_ < config_.jobs) {
      int pick = -1;
      for (auto it = open_.begin(); it != open_.end();) {
        if (it->second.running) {
          ++it;
        } else if (!Inside(it->first)) {
          Finish(it++, /*decided=*/false);  // the others made it useless
        } else {
          pick = it->first;
          break;
        }
      }
      if (pick < 0) {
        std::set<int> in_flight;
        for (const auto& [v, probe] : open_) in_flight.insert(v);
        pick = SpeculativeNext(search_, in_flight);
        if (pick < 0) return absl::OkStatus();
        OpenProbe probe;
        probe.record.version = pick;
        probe.record.label = config_.versions[pick];
        probe.record.round = highest_decided_ + 1;
        open_.emplace(pick, std::move(probe));
      }
      OpenProbe& probe = open_.at(pick);
      if (absl::Status st = runner_.Start({pick, static_cast<int>(probe.record.trials.size())}); !st.ok()) return st;
      probe.running = true;
      ++running_;
    }
    return absl::OkStatus();
  }

  void Settle(std::map<int, OpenProbe>::iterator it) {
    ProbeRecord& record = it->second.record;
    record.tally = TallyTrials(hunt_, rule_, record.trials);
    const bool capped = static_cast<int>(record.trials.size()) >= rule_.sprt.max_trials;
    if (record.tally.verdict != ProbeVerdict::kUndecided || capped || record.trials.back().unrunnable()) {
      Finish(it, /*decided=*/true);
    } else if (!Inside(it->first)) {
      Finish(it, /*decided=*/false);
    }
  }

  void Finish(std::map<int, OpenProbe>::iterator it, bool decided) {
    ProbeRecord record = std::move(it->second.record);
    open_.erase(it);
    if (decided) {
      ProbeVerdict verdict = record.tally.verdict;
      // Undecided at the cap is unclassifiable, like a skip.
      if (verdict == ProbeVerdict::kUndecided) verdict = ProbeVerdict::kSkip;
      search_.Record(record.version, verdict);
      highest_decided_ = std::max(highest_decided_, record.round);
      result_.rounds = std::max(result_.rounds, record.round);
    }
    if (on_probe_) on_probe_(record);
    result_.probes.push_back(std::move(record));
  }

  const BisectConfig& config_;
  TrialRunner& runner_;
  const Hunt& hunt_;
  const ProbeRule& rule_;
  BisectResult& result_;
  const ProbeCallback& on_probe_;
  BisectSearch search_;
  std::map<int, OpenProbe> open_;
  int running_ = 0;
  int highest_decided_ = 0;
};

}  // namespace

absl::Status RunRolling(const BisectConfig& config, TrialRunner& runner, const Hunt& hunt, const ProbeRule& rule,
                        BisectResult& result, const ProbeCallback& on_probe) {
  return Rolling(config, runner, hunt, rule, result, on_probe).Run();
}

}  // namespace gh
