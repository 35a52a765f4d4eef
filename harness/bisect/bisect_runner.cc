#include "harness/bisect/bisect_runner.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/bisect/answer_confirmation.h"
#include "harness/bisect/pooled_search.h"
#include "harness/bisect/rolling_search.h"

namespace gh {

std::string_view BisectStatusName(BisectStatus status) {
  switch (status) {
    case BisectStatus::kFound: return "found";
    case BisectStatus::kGoodEndNotGood: return "good_end_not_good";
    case BisectStatus::kBadEndNotBad: return "bad_end_not_bad";
  }
  return "found";
}

absl::Status TrialRunner::Start(const Request& request) {
  started_.push_back(request);
  return absl::OkStatus();
}

absl::StatusOr<TrialRunner::Finished> TrialRunner::Wait() {
  if (started_.empty()) return absl::InternalError("trial runner: Wait with no trial started");
  const Request request = started_.front();
  started_.erase(started_.begin());
  absl::StatusOr<std::vector<TrialResult>> ran = RunTrials({request});
  if (!ran.ok()) return ran.status();
  if (ran->size() != 1) return absl::InternalError("trial runner returned a wrong number of results");
  return Finished{request, std::move(ran->front())};
}

std::string_view BisectFindName(BisectFind find) {
  return find == BisectFind::kFix ? "fix" : "bug";
}

absl::StatusOr<BisectFind> ParseBisectFind(std::string_view name) {
  if (name == "bug") return BisectFind::kBug;
  if (name == "fix") return BisectFind::kFix;
  return absl::InvalidArgumentError(absl::StrCat("--find: expected bug or fix, got '", std::string(name), "'"));
}

std::string BisectEconomy::ToString() const {
  if (bad_end_runs == 0) return absl::StrCat("no estimate; probes decided by SPRT ", probe_sprt.ToString());
  std::string out = absl::StrCat("the bad end failed ", bad_end_hunted, " of ", bad_end_runs, " trials: ");
  if (deterministic && !turned_flaky.empty()) {
    absl::StrAppend(&out, "deterministic at first, one trial per probe; then ", turned_flaky,
                    ": flaky; one posterior over every trial of every probe",
                    absl::StrFormat(" (the answer at probability %.3f)", confidence));
  } else if (deterministic && one_trial_per_probe) {
    absl::StrAppend(&out, "deterministic; one trial per probe (as git bisect)");
    if (!confirmation.empty()) {
      absl::StrAppend(&out, "; the answer's pair: ", confirmation,
                      absl::StrFormat(". Risk taken: were the failure flaky (failing %.0f%% of runs or more) rather "
                                      "than deterministic, trials like these would come from a change elsewhere with "
                                      "probability at most %.2g%% (bound %.2g%%, --beta)",
                                      100 * probe_sprt.p_bad, 100 * risk, 100 * risk_bound));
      if (!risk_note.empty()) absl::StrAppend(&out, "; above the bound: ", risk_note);
    }
  } else if (deterministic) {
    absl::StrAppend(&out, "deterministic; probes decided by SPRT ", probe_sprt.ToString());
  } else if (pooled) {
    absl::StrAppend(&out, "flaky; one posterior over every trial of every probe",
                    absl::StrFormat(" (the answer at probability %.3f)", confidence));
  } else {
    absl::StrAppend(&out, "flaky; probes decided by SPRT ", probe_sprt.ToString());
  }
  return out;
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
  if (config.find == BisectFind::kFix && config.bad >= config.good) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--bad: '", config.versions[config.bad], "' must come before --good '", config.versions[config.good],
        "' in the version order (--find fix: the failure goes away in a later version)"));
  }
  if (config.find == BisectFind::kBug && config.good >= config.bad) {
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
// has failed, and every verdict waits for it. While the bad end estimates the failure rate, the
// other versions of the same run (the good end with --jobs >= 2) wait after their first trial
// and are decided under the test the estimate sets.
class ProbeSet {
 public:
  using BadEndHook = std::function<void(const ProbeRecord&)>;
  ProbeSet(const BisectConfig& config, TrialRunner& runner, BisectResult& result,
           std::optional<Hunt>& hunt, const ProbeRule& rule)
      : config_(config), runner_(runner), result_(result), hunt_(hunt), rule_(rule) {}

  // Called when the bad end is decided, before any other version is; sets the probes' test.
  void OnBadEnd(BadEndHook hook) { on_bad_end_ = std::move(hook); }
  // Pooled: versions other than the bad end are done after one trial, undecided, unreported
  // (the pooled search decides and reports them).
  void SetPooled(bool pooled) { pooled_ = pooled; }

  // Runs trials of `versions` in lockstep (one trial of each undecided version per batch; the
  // bad end's estimate takes the slots left) until every one is decided; appends their
  // ProbeRecords in decision order.
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
      std::vector<TrialRunner::Request> batch = NextBatch(open);
      absl::StatusOr<std::vector<TrialResult>> results = runner_.RunTrials(batch);
      if (!results.ok()) return results.status();
      if (results->size() != batch.size()) {
        return absl::InternalError("trial runner returned a wrong number of results");
      }
      for (size_t i = 0; i < batch.size(); ++i) {
        open.at(batch[i].version).trials.push_back((*results)[i]);
        if (!(*results)[i].unrunnable()) ++result_.total_trials;  // nothing of the version ran
      }
      if (absl::Status st = ResolveHunt(open); !st.ok()) return st;
      // The bad end first: its estimate sets the test the others are decided with.
      if (auto it = open.find(config_.bad); it != open.end() && BadEndDone(it->second)) {
        CountTheEstimate(it->second);
        Finish(it->second, on_probe);
        if (on_bad_end_) on_bad_end_(result_.probes.back());
        estimated_ = true;
        open.erase(it);
      }
      const bool bad_end_open = open.contains(config_.bad);
      for (auto it = open.begin(); it != open.end();) {
        if (it->first != config_.bad && OtherDone(it->second, bad_end_open)) {
          Finish(it->second, on_probe);
          it = open.erase(it);
        } else {
          ++it;
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  bool Estimating() const { return !estimated_ && config_.estimate_trials > 0; }
  int EstimateTrials() const { return std::min(config_.estimate_trials, config_.sprt.max_trials); }

  std::vector<TrialRunner::Request> NextBatch(const std::map<int, ProbeRecord>& open) const {
    std::vector<TrialRunner::Request> batch;
    int waiting = 0;
    for (const auto& [v, record] : open) {
      if (v == config_.bad) continue;
      if (Estimating() && open.contains(config_.bad) && !record.trials.empty()) continue;  // waits
      batch.push_back({v, static_cast<int>(record.trials.size())});
      ++waiting;
    }
    if (auto it = open.find(config_.bad); it != open.end()) {
      const int have = static_cast<int>(it->second.trials.size());
      // Estimating: the slots the others leave run more trials of the bad end at once.
      int count = Estimating() ? std::min(config_.jobs - waiting, EstimateTrials() - have) : 1;
      count = std::clamp(count, 1, config_.sprt.max_trials - have);
      for (int k = 0; k < count; ++k) batch.push_back({config_.bad, have + k});
    }
    return batch;
  }

  // While the bad end runs, the hunt is its most common failure so far (a bad end that also
  // fails otherwise now and then still names the failure it shows most); fixed once it is decided.
  absl::Status ResolveHunt(std::map<int, ProbeRecord>& open) {
    auto it = open.find(config_.bad);
    if (it == open.end()) return absl::OkStatus();
    absl::StatusOr<Hunt> hunt = Hunt::Resolve(config_.hunt, it->second.trials);
    if (hunt.ok()) {
      hunt_ = *std::move(hunt);
    } else if (!absl::IsNotFound(hunt.status())) {
      return hunt.status();
    }
    return absl::OkStatus();
  }

  void Tally(ProbeRecord& record) const {
    if (hunt_.has_value()) {
      record.tally = TallyTrials(*hunt_, rule_, record.trials);
    } else if (record.trials.back().unrunnable()) {
      MarkUnrunnable(record.trials.back(), record.tally);
    } else {
      record.tally = CountWithoutHunt(record.trials);
    }
  }

  // Decided, at the cap or unrunnable; a bad verdict waits for the estimate's trials unless
  // a pass has already shown the failure flaky.
  bool BadEndDone(ProbeRecord& record) const {
    Tally(record);
    const int trials = static_cast<int>(record.trials.size());
    if (trials >= config_.sprt.max_trials || record.trials.back().unrunnable()) return true;
    if (record.tally.verdict == ProbeVerdict::kUndecided) return false;
    if (record.tally.verdict != ProbeVerdict::kBad || !Estimating()) return true;
    bool passed = false;
    for (const TrialResult& t : record.trials) passed = passed || hunt_->Classify(t) == Hunt::TrialClass::kPass;
    return passed || trials >= EstimateTrials();
  }

  // The bad end's counts cover every trial of its estimate; its verdict stays its test's.
  void CountTheEstimate(ProbeRecord& record) const {
    if (!hunt_.has_value() || record.trials.back().unrunnable()) return;
    ProbeTally all = CountEveryTrial(*hunt_, record.trials);
    all.verdict = record.tally.verdict;
    all.truncated = record.tally.truncated;
    all.llr = record.tally.llr;
    record.tally = all;
  }

  bool OtherDone(ProbeRecord& record, bool bad_end_open) const {
    if (record.trials.empty()) return false;
    Tally(record);
    if (record.trials.back().unrunnable()) return true;
    if (bad_end_open && Estimating()) return false;  // waits for the test the estimate sets
    if (pooled_) return true;
    // Without a hunt (the bad end has not failed yet) nothing is decided until the cap.
    return record.tally.verdict != ProbeVerdict::kUndecided ||
           static_cast<int>(record.trials.size()) >= rule_.sprt.max_trials;
  }

  void Finish(ProbeRecord& record, const ProbeCallback& on_probe) {
    if (on_probe && !(pooled_ && record.version != config_.bad)) on_probe(record);
    result_.probes.push_back(std::move(record));
  }

  const BisectConfig& config_;
  TrialRunner& runner_;
  BisectResult& result_;
  std::optional<Hunt>& hunt_;
  const ProbeRule& rule_;
  BadEndHook on_bad_end_;
  bool estimated_ = false;
  bool pooled_ = false;
};

const ProbeRecord* FindProbe(const BisectResult& result, int version) {
  for (const ProbeRecord& probe : result.probes) {
    if (probe.version == version) return &probe;
  }
  return nullptr;
}

std::string Describe(const ProbeRecord& probe) {
  const ProbeVerdict v = probe.tally.verdict;
  std::string out = absl::StrCat("'", probe.label, "' ",
                                 v == ProbeVerdict::kOther || v == ProbeVerdict::kSkip ? "" : "is ",
                                 std::string(ProbeVerdictText(v)));
  if (std::string unrunnable = probe.tally.Unrunnable(); !unrunnable.empty()) {
    absl::StrAppend(&out, " (", unrunnable, ")");
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

namespace {

// The bad end's trials say how the probes are decided (BisectConfig::estimate_trials).
BisectEconomy Estimate(const BisectConfig& config, const Hunt& hunt, const ProbeRecord& bad_end) {
  BisectEconomy economy;
  economy.probe_sprt = config.sprt;
  if (config.estimate_trials <= 0) return economy;
  for (const TrialResult& trial : bad_end.trials) {
    const Hunt::TrialClass c = hunt.Classify(trial);
    if (c == Hunt::TrialClass::kHunted) ++economy.bad_end_hunted;
    if (c != Hunt::TrialClass::kSkip) ++economy.bad_end_runs;  // another failure counts against
  }
  if (economy.bad_end_runs == 0 || economy.bad_end_hunted == 0) return economy;
  if (economy.bad_end_hunted == economy.bad_end_runs) {
    // Every run failed: one trial per probe, as git bisect, and the answer's pair confirmed
    // until the bet on determinism risks at most beta (answer_confirmation.h).
    economy.deterministic = true;
    economy.one_trial_per_probe = true;
  } else {
    economy.pooled = config.pool_flaky;
  }
  return economy;
}

// Feeds one trial to the pooled search. A version that did not run, or failed only
// differently (no hunted failure among its trials), carries no evidence and is left out.
void Feed(PooledSearch& search, const Hunt& hunt, const ProbeRecord& record, const TrialResult& trial) {
  switch (hunt.Classify(trial)) {
    case Hunt::TrialClass::kHunted: search.Observe(record.version, true); break;
    case Hunt::TrialClass::kPass: search.Observe(record.version, false); break;
    case Hunt::TrialClass::kSkip: search.Exclude(record.version); break;
    case Hunt::TrialClass::kOther:
      if (CountEveryTrial(hunt, record.trials).hunted == 0) search.Exclude(record.version);
      break;
  }
}

// The verdicts the pooled answer gives each probed version, with every trial counted: the side
// of the answer it is on, unless it did not run (skip) or failed only differently (other).
void SettlePooled(const Hunt& hunt, const BisectAnswer& answer, bool confident, int bad_end, ProbeRecord& record) {
  if (record.version == bad_end) return;  // decided by its own test
  ProbeTally tally = CountEveryTrial(hunt, record.trials);
  auto unrunnable = std::find_if(record.trials.begin(), record.trials.end(),
                                 [](const TrialResult& t) { return t.unrunnable(); });
  if (unrunnable != record.trials.end()) {
    MarkUnrunnable(*unrunnable, tally);
  } else if (tally.skips > 0) {
    tally.verdict = ProbeVerdict::kSkip;
  } else if (tally.hunted == 0 && tally.others > 0) {
    tally.verdict = ProbeVerdict::kOther;
  } else {
    tally.verdict = record.version >= answer.first_bad ? ProbeVerdict::kBad
                    : record.version <= answer.last_good ? ProbeVerdict::kGood
                                                         : ProbeVerdict::kSkip;
    tally.truncated = !confident;
  }
  record.tally = tally;
}

// A flaky failure: trials go where they tell most about the change point, K at a time, until
// one answer holds 1 - min(alpha, beta) of the posterior (or no version can take more trials).
absl::Status RunPooled(const BisectConfig& config, TrialRunner& runner, const Hunt& hunt, BisectResult& result,
                       const ProbeCallback& on_probe) {
  const int n = static_cast<int>(config.versions.size());
  PooledSearch search(n, config.good, config.bad,
                      {std::min(config.sprt.alpha, config.sprt.beta), config.sprt.max_trials, config.sprt.p_bad, 40});
  std::vector<ProbeRecord> records = std::move(result.probes);
  std::map<int, size_t> at;  // version -> index in records
  for (size_t i = 0; i < records.size(); ++i) {
    at[records[i].version] = i;
    for (const TrialResult& t : records[i].trials) Feed(search, hunt, records[i], t);
  }
  for (std::vector<int> next = search.Next(config.jobs); !next.empty(); next = search.Next(config.jobs)) {
    ++result.rounds;
    std::vector<TrialRunner::Request> batch;
    for (int v : next) {
      if (!at.contains(v)) {
        at[v] = records.size();
        records.push_back(ProbeRecord{v, config.versions[v], result.rounds, {}, {}});
      }
      batch.push_back({v, static_cast<int>(records[at[v]].trials.size())});
    }
    absl::StatusOr<std::vector<TrialResult>> ran = runner.RunTrials(batch);
    if (!ran.ok()) return ran.status();
    if (ran->size() != batch.size()) return absl::InternalError("trial runner returned a wrong number of results");
    for (size_t i = 0; i < batch.size(); ++i) {
      ProbeRecord& record = records[at[batch[i].version]];
      record.trials.push_back((*ran)[i]);
      if (!(*ran)[i].unrunnable()) ++result.total_trials;
      Feed(search, hunt, record, record.trials.back());
    }
  }
  result.answer = search.Answer();
  result.economy.confidence = search.AnswerMass();
  for (ProbeRecord& record : records) {
    SettlePooled(hunt, result.answer, search.Confident(), config.bad, record);
    if (on_probe && record.version != config.bad) on_probe(record);
  }
  result.probes = std::move(records);
  if (result.answer.first_bad == config.good) {
    result.status = BisectStatus::kGoodEndNotGood;
    result.message = absl::StrCat("the good end ", Describe(*FindProbe(result, config.good)),
                                  " when hunting ", hunt.ToString(),
                                  absl::StrFormat(" (pooled over every trial: bad at probability %.3f)",
                                                  result.economy.confidence));
  }
  return absl::OkStatus();
}

// Plain or K-ary bisection, each probe decided by its own test.
void RunRounds(const BisectConfig& config, ProbeSet& probes, BisectResult& result, absl::Status& status,
               const ProbeCallback& on_probe) {
  BisectSearch search(static_cast<int>(config.versions.size()), config.good, config.bad, config.jobs);
  for (std::vector<int> round = search.NextRound(); !round.empty(); round = search.NextRound()) {
    ++result.rounds;
    const size_t first = result.probes.size();
    if (status = probes.Run(round, result.rounds, on_probe); !status.ok()) return;
    for (size_t i = first; i < result.probes.size(); ++i) {
      ProbeVerdict verdict = result.probes[i].tally.verdict;
      // Undecided at the cap (no hunt can't happen here) is unclassifiable, like a skip.
      if (verdict == ProbeVerdict::kUndecided) verdict = ProbeVerdict::kSkip;
      search.Record(result.probes[i].version, verdict);
    }
  }
  result.answer = search.Answer();
}

absl::StatusOr<BisectResult> RunForward(const BisectConfig& config, TrialRunner& runner,
                                        const ProbeCallback& on_probe) {
  BisectResult result;
  std::optional<Hunt> hunt;
  ProbeRule rule{config.sprt, false};
  ProbeSet probes(config, runner, result, hunt, rule);
  probes.OnBadEnd([&](const ProbeRecord& bad_end) {
    if (!hunt.has_value() || bad_end.tally.verdict != ProbeVerdict::kBad) return;
    result.economy = Estimate(config, *hunt, bad_end);
    rule.sprt = result.economy.probe_sprt;
    rule.first_trial_decides = result.economy.one_trial_per_probe;
    probes.SetPooled(result.economy.pooled);
  });

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
    result.hunt_family = hunt->family();
    result.hunt_example = hunt->example();
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
  const bool pooled = result.economy.pooled;
  // A good end that failed in any way is not good (pooled, a hunted failure makes the posterior
  // say so).
  if (good == nullptr || good->tally.others > 0 ||
      (pooled ? good->tally.verdict == ProbeVerdict::kSkip : good->tally.verdict != ProbeVerdict::kGood)) {
    result.status = BisectStatus::kGoodEndNotGood;
    result.message = absl::StrCat("the good end ", good ? Describe(*good) : "was not probed",
                                  " when hunting ", hunt->ToString());
    if (pooled && good != nullptr && on_probe) on_probe(*good);  // the pooled set-up held its line back
    return result;
  }
  if (pooled) {
    if (absl::Status s = RunPooled(config, runner, *hunt, result, on_probe); !s.ok()) return s;
    return result;
  }
  absl::Status status;
  if (config.jobs >= 2 && config.rolling) {
    status = RunRolling(config, runner, *hunt, rule, result, on_probe);
  } else {
    RunRounds(config, probes, result, status, on_probe);
  }
  if (!status.ok()) return status;
  if (!rule.first_trial_decides) return result;
  // One trial per probe was a bet on a deterministic failure: confirm the answer's pair, or,
  // when a confirming trial disagrees, search again with every trial pooled.
  if (absl::Status s = ConfirmAnswer(config, runner, *hunt, result); !s.ok()) return s;
  if (result.economy.turned_flaky.empty()) return result;
  result.economy.pooled = true;
  if (absl::Status s = RunPooled(config, runner, *hunt, result, on_probe); !s.ok()) return s;
  return result;
}

// Version i of the mirrored list is version n-1-i of the real one: a fix bisect is a bug
// bisect over the mirrored list, the user's list left as it is.
class MirrorRunner : public TrialRunner {
 public:
  MirrorRunner(TrialRunner& inner, int n) : inner_(inner), n_(n) {}
  absl::StatusOr<std::vector<TrialResult>> RunTrials(const std::vector<Request>& batch) override {
    std::vector<Request> real = batch;
    for (Request& r : real) r.version = n_ - 1 - r.version;
    return inner_.RunTrials(real);
  }
  absl::Status Start(const Request& request) override {
    return inner_.Start({n_ - 1 - request.version, request.trial, request.attempt});
  }
  absl::StatusOr<Finished> Wait() override {
    absl::StatusOr<Finished> done = inner_.Wait();
    if (done.ok()) done->request.version = n_ - 1 - done->request.version;
    return done;
  }

 private:
  TrialRunner& inner_;
  int n_;
};

absl::StatusOr<BisectResult> RunFix(const BisectConfig& config, TrialRunner& runner, const ProbeCallback& on_probe) {
  const int n = static_cast<int>(config.versions.size());
  auto real = [n](int i) { return i < 0 ? i : n - 1 - i; };
  BisectConfig mirrored = config;
  std::reverse(mirrored.versions.begin(), mirrored.versions.end());
  mirrored.good = real(config.good);
  mirrored.bad = real(config.bad);
  mirrored.find = BisectFind::kBug;
  MirrorRunner mirror(runner, n);
  absl::StatusOr<BisectResult> result = RunForward(mirrored, mirror, [&](const ProbeRecord& p) {
    if (!on_probe) return;
    ProbeRecord shown = p;
    shown.version = real(p.version);
    on_probe(shown);
  });
  if (!result.ok()) return result.status();
  result->find = BisectFind::kFix;
  for (ProbeRecord& p : result->probes) p.version = real(p.version);
  BisectAnswer& a = result->answer;
  a.first_bad = real(a.first_bad);  // the last version that fails
  a.last_good = real(a.last_good);  // the first that passes again
  for (int& i : a.unclassified) i = real(i);
  std::sort(a.unclassified.begin(), a.unclassified.end());
  for (auto& [good, bad] : a.contradictions) {
    good = real(good);
    bad = real(bad);
  }
  return result;
}

}  // namespace

absl::StatusOr<Hunt> HuntOf(const BisectResult& result, bool other_as_bad) {
  if (result.hunt_family) return Hunt::OfFamily(*result.hunt_family, other_as_bad);
  if (result.hunt.empty()) return absl::InvalidArgumentError("the bisect resolved no failure to hunt");
  return Hunt::Create(result.hunt_outcome, result.hunt_signature, other_as_bad, result.hunt_example);
}

HuntSpec InheritedHunt(const BisectResult& coarse, HuntSpec spec) {
  spec.outcome = coarse.hunt_outcome;
  spec.family = coarse.hunt_family;
  spec.signature.reset();
  if (!coarse.hunt_family) spec.signature = coarse.hunt_signature;
  return spec;
}

absl::StatusOr<BisectResult> RunBisect(const BisectConfig& config, TrialRunner& runner,
                                       const ProbeCallback& on_probe) {
  if (absl::Status status = ValidateBisectConfig(config); !status.ok()) return status;
  if (config.find == BisectFind::kFix) return RunFix(config, runner, on_probe);
  return RunForward(config, runner, on_probe);
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
