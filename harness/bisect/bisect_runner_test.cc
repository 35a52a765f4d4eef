#include "harness/bisect/bisect_runner.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/bisect/answer_confirmation.h"
#include "harness/driver/job_pool.h"

namespace gh {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Fake versions: a function of (version, trial), and a log of the batches asked for.
class FakeVersions : public TrialRunner {
 public:
  using Oracle = std::function<TrialResult(int version, int trial)>;
  explicit FakeVersions(Oracle oracle) : oracle_(std::move(oracle)) {}
  absl::StatusOr<std::vector<TrialResult>> RunTrials(const std::vector<Request>& batch) override {
    batches.push_back(batch);
    std::vector<TrialResult> out;
    for (const Request& r : batch) out.push_back(oracle_(r.version, r.trial));
    return out;
  }
  std::vector<std::vector<Request>> batches;

 private:
  Oracle oracle_;
};

TrialResult Pass() { return {Outcome::kPass, "", false, "", 0, ""}; }
TrialResult WrongData() { return {Outcome::kFail, "wrong data [ranks 1]", false, "", 0, ""}; }
TrialResult Segv() { return {Outcome::kCrash, "SIGSEGV on rank 0 in step 'exchange'", false, "", 0, ""}; }

std::vector<std::string> Labels(int n) {
  std::vector<std::string> labels;
  for (int i = 0; i < n; ++i) labels.push_back(absl::StrCat("v", i));
  return labels;
}

BisectConfig Deterministic(int n, int jobs) {
  BisectConfig config;
  config.versions = Labels(n);
  config.good = 0;
  config.bad = n - 1;
  config.jobs = jobs;
  config.sprt.max_trials = 1;  // a deterministic range needs one trial per probe
  return config;
}

TEST(RunBisectTest, DeterministicFindsTheFirstBadVersion) {
  FakeVersions versions([](int v, int) { return v >= 37 ? WrongData() : Pass(); });
  std::vector<std::string> progress;
  absl::StatusOr<BisectResult> result = RunBisect(
      Deterministic(100, 1), versions,
      [&](const ProbeRecord& p) { progress.push_back(absl::StrCat(p.label, "=", std::string(ProbeVerdictName(p.tally.verdict)))); });
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->status, BisectStatus::kFound);
  EXPECT_EQ(result->answer.first_bad, 37);
  EXPECT_EQ(result->answer.last_good, 36);
  EXPECT_EQ(result->hunt, "fail \"wrong data\" (family: fail: 'wrong data')");
  EXPECT_EQ(result->hunt_example, "wrong data");
  ASSERT_TRUE(result->hunt_family.has_value());
  ASSERT_GE(progress.size(), 2u);
  EXPECT_EQ(progress[0], "v99=bad");  // one job: the bad end first, it names the hunt
  EXPECT_EQ(progress[1], "v0=good");
  EXPECT_LE(result->probes.size(), 2u + 7u);
  EXPECT_EQ(result->total_trials, static_cast<int>(result->probes.size()));
}

TEST(RunBisectTest, KaryProbesThreeVersionsPerRound) {
  FakeVersions versions([](int v, int) { return v >= 61 ? WrongData() : Pass(); });
  BisectConfig config = Deterministic(100, 3);
  config.rolling = false;  // rounds of K (the default starts each probe as a slot frees)
  absl::StatusOr<BisectResult> result = RunBisect(config, versions);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->answer.first_bad, 61);
  EXPECT_LE(result->rounds, 4);
  // The ends run together, then the first round splits 1..98 in four.
  ASSERT_GE(versions.batches.size(), 2u);
  ASSERT_EQ(versions.batches[0].size(), 2u);
  EXPECT_EQ(versions.batches[1].size(), 3u);
  EXPECT_EQ(versions.batches[1][0].version, 24);
  EXPECT_EQ(versions.batches[1][1].version, 49);
  EXPECT_EQ(versions.batches[1][2].version, 74);
  for (const auto& batch : versions.batches) EXPECT_LE(batch.size(), 3u);
}

TEST(RunBisectTest, OlderOtherFailureIsNotTheAnswer) {
  // Seed 002: old versions SIGSEGV (a different, older failure), then pass, then the hunted
  // failure. Versions 0..9 crash, 10..29 pass, 30.. fail. The good end is 12.
  FakeVersions versions([](int v, int) {
    if (v < 10) return Segv();
    return v >= 30 ? WrongData() : Pass();
  });
  BisectConfig config = Deterministic(40, 1);
  config.good = 12;
  config.sprt.max_trials = 2;
  absl::StatusOr<BisectResult> result = RunBisect(config, versions);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->answer.first_bad, 30);
  EXPECT_EQ(result->answer.last_good, 29);
}

TEST(RunBisectTest, OtherFailuresBetweenAreTreatedLikeSkips) {
  // 40..44 crash with another failure; the hunted failure starts at 45.
  FakeVersions versions([](int v, int) {
    if (v >= 45) return WrongData();
    if (v >= 40) return Segv();
    return Pass();
  });
  BisectConfig config = Deterministic(60, 1);
  config.sprt.max_trials = 2;
  config.hunt.outcome = Outcome::kFail;
  config.hunt.signature = "wrong data";
  absl::StatusOr<BisectResult> result = RunBisect(config, versions);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->answer.last_good, 39);
  EXPECT_EQ(result->answer.first_bad, 45);
  EXPECT_THAT(result->answer.unclassified, ElementsAre(40, 41, 42, 43, 44));

  config.hunt.other_as_bad = true;  // --other-as-bad: the crash counts as the failure
  FakeVersions again([](int v, int) {
    if (v >= 45) return WrongData();
    if (v >= 40) return Segv();
    return Pass();
  });
  result = RunBisect(config, again);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->answer.first_bad, 40);
  EXPECT_THAT(result->answer.unclassified, IsEmpty());
}

TEST(RunBisectTest, SetupFailureIsSkippedAndANeighbourProbed) {
  // Version 20 cannot be set up; bad from 20 on: the answer names 19..21 with 20 unclassified.
  FakeVersions versions([](int v, int) {
    if (v == 20) return TrialResult{Outcome::kError, "", true, "setup: exit status 1", 0, ""};
    return v >= 20 ? WrongData() : Pass();
  });
  absl::StatusOr<BisectResult> result = RunBisect(Deterministic(41, 1), versions);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->answer.last_good, 19);
  EXPECT_EQ(result->answer.first_bad, 21);
  EXPECT_THAT(result->answer.unclassified, ElementsAre(20));
  bool saw_setup = false;
  for (const ProbeRecord& p : result->probes) {
    if (p.version == 20) {
      saw_setup = true;
      EXPECT_EQ(p.tally.verdict, ProbeVerdict::kSkip);
      EXPECT_EQ(p.tally.setup_failure, "setup: exit status 1");
    }
  }
  EXPECT_TRUE(saw_setup);
}

// Fake versions whose trials' attempts are chosen per (version, trial, attempt), returned as the
// job trial runner returns them: its job pool runs an attempt that ended infra again, up to
// driver::kMaxJobAttempts, and hands back the trial that counted with the infra attempts under
// it, or infra when every attempt was. Every attempt is logged.
class InfraVersions : public TrialRunner {
 public:
  using Oracle = std::function<TrialResult(int version, int trial, int attempt)>;
  explicit InfraVersions(Oracle oracle) : oracle_(std::move(oracle)) {}
  absl::StatusOr<std::vector<TrialResult>> RunTrials(const std::vector<Request>& batch) override {
    std::vector<TrialResult> out;
    for (const Request& r : batch) {
      std::vector<InfraAttempt> attempts;
      for (int attempt = 1;; ++attempt) {
        requests.push_back({r.version, r.trial, attempt});
        TrialResult result = oracle_(r.version, r.trial, attempt);
        if (result.outcome != Outcome::kInfra || attempt == driver::kMaxJobAttempts) {
          result.infra_attempts = attempts;
          out.push_back(result);
          break;
        }
        attempts.push_back({result.signature, result.detail});
      }
    }
    return out;
  }
  std::vector<Request> requests;
  int AttemptsOf(int version) const {
    int n = 0;
    for (const Request& r : requests) n += r.version == version;
    return n;
  }

 private:
  Oracle oracle_;
};

constexpr char kStepRefused[] =
    "infrastructure: srun: error: Unable to create step for job 5: Socket timed out (job exited with status 1)";
TrialResult StepRefused() { return {Outcome::kInfra, kStepRefused, false, "probes/v5/trial0", 0, "p"}; }

// The nightly's case: v5's first job fails to start; the bisect still answers exactly.
TEST(InfraRetryTest, AFirstAttemptThatIsInfraIsRunAgainAndTheRetryDecides) {
  for (int jobs : {1, 3}) {
    SCOPED_TRACE(absl::StrCat("jobs ", jobs));
    InfraVersions versions([](int v, int trial, int attempt) {
      if (v == 5 && trial == 0 && attempt == 1) return StepRefused();
      return v >= 6 ? WrongData() : Pass();
    });
    BisectConfig config = Deterministic(10, jobs);
    config.estimate_trials = 0;
    config.sprt.max_trials = 3;
    absl::StatusOr<BisectResult> result = RunBisect(config, versions);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->status, BisectStatus::kFound);
    EXPECT_EQ(result->answer.first_bad, 6);
    EXPECT_EQ(result->answer.last_good, 5);
    EXPECT_THAT(result->answer.unclassified, IsEmpty());
    int trials_asked = 0;
    for (const ProbeRecord& p : result->probes) {
      trials_asked += static_cast<int>(p.trials.size());
      if (p.version != 5) {
        EXPECT_EQ(p.tally.infra_retried, 0);
        continue;
      }
      EXPECT_EQ(p.tally.verdict, ProbeVerdict::kGood);
      EXPECT_EQ(p.tally.skips, 0);
      EXPECT_EQ(p.tally.passes, p.tally.trials);  // the infra attempt is no trial
      EXPECT_EQ(p.tally.infra_retried, 1);
      ASSERT_EQ(p.trials.front().infra_attempts.size(), 1u);
      EXPECT_EQ(p.trials.front().infra_attempts[0].signature, kStepRefused);
      EXPECT_EQ(p.trials.front().outcome, Outcome::kPass);
      // One attempt more than trials: the retry of trial 0, as attempt 2.
      EXPECT_EQ(versions.AttemptsOf(5), static_cast<int>(p.trials.size()) + 1);
    }
    EXPECT_EQ(result->total_trials, trials_asked);
    EXPECT_EQ(static_cast<int>(versions.requests.size()), trials_asked + 1);
  }
}

TEST(InfraRetryTest, InfraOnEveryAttemptLeavesTheProbeSkippedAndSaysWhy) {
  InfraVersions versions([](int v, int, int) { return v == 5 ? StepRefused() : v >= 6 ? WrongData() : Pass(); });
  BisectConfig config = Deterministic(10, 1);
  absl::StatusOr<BisectResult> result = RunBisect(config, versions);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->answer.first_bad, 6);
  EXPECT_EQ(result->answer.last_good, 4);
  EXPECT_THAT(result->answer.unclassified, ElementsAre(5));
  EXPECT_EQ(versions.AttemptsOf(5), driver::kMaxJobAttempts);  // then no more
  std::vector<int> attempts;
  for (const TrialRunner::Request& r : versions.requests) {
    if (r.version == 5) attempts.push_back(r.attempt);
  }
  EXPECT_THAT(attempts, ElementsAre(1, 2, 3));
  for (const ProbeRecord& p : result->probes) {
    if (p.version != 5) continue;
    EXPECT_EQ(p.tally.verdict, ProbeVerdict::kSkip);
    EXPECT_EQ(p.tally.infra_failure, absl::StrCat(kStepRefused, " after 3 attempts"));
    EXPECT_EQ(p.tally.trials, 0);
    EXPECT_EQ(p.tally.infra_retried, 2);
  }
}

TEST(RunBisectTest, GoodEndThatFailsStops) {
  FakeVersions versions([](int, int) { return WrongData(); });
  absl::StatusOr<BisectResult> result = RunBisect(Deterministic(10, 1), versions);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->status, BisectStatus::kGoodEndNotGood);
  EXPECT_EQ(result->message,
            "the good end 'v0' is bad (1 trial: 1 hunted; most recent: wrong data [ranks 1]) when "
            "hunting fail \"wrong data\" (family: fail: 'wrong data')");
  EXPECT_EQ(result->probes.size(), 2u);  // nothing probed past the ends
}

TEST(RunBisectTest, BadEndThatPassesStops) {
  FakeVersions versions([](int, int) { return Pass(); });
  BisectConfig config = Deterministic(10, 1);
  config.sprt.max_trials = 3;
  absl::StatusOr<BisectResult> result = RunBisect(config, versions);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->status, BisectStatus::kBadEndNotBad);
  EXPECT_EQ(result->message, "the bad end 'v9' is undecided (3 trials: 3 pass): it never showed the failure to hunt");
  EXPECT_EQ(result->total_trials, 3);  // the good end was never run
}

TEST(RunBisectTest, BadEndWithAnotherFailureStops) {
  FakeVersions versions([](int, int) { return Segv(); });
  BisectConfig config = Deterministic(10, 2);
  config.hunt.outcome = Outcome::kFail;
  config.hunt.signature = "wrong data";
  config.sprt.max_trials = 2;
  absl::StatusOr<BisectResult> result = RunBisect(config, versions);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->status, BisectStatus::kBadEndNotBad);
  EXPECT_EQ(result->message,
            "the bad end 'v9' failed differently (2 trials: 2 other; most recent: SIGSEGV on rank 0 in step "
            "'exchange') when hunting fail ~ /wrong data/");
}

// A reproducible coin per (seed, version, trial).
bool Coin(uint64_t seed, int version, int trial) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull ^ (static_cast<uint64_t>(version) << 32) ^ trial;
  x ^= x >> 33; x *= 0xff51afd7ed558ccdull; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull; x ^= x >> 33;
  return x & 1;
}

BisectConfig Defaults(int n) {
  BisectConfig config;
  config.versions = Labels(n);
  config.good = 0;
  config.bad = n - 1;
  config.hunt.outcome = Outcome::kFail;
  config.hunt.signature = "wrong data";
  return config;  // the default test: SPRT trials 1..20, the bad end estimated over 2 trials
}

TEST(TrialEconomyTest, ADeterministicFailureTakesOneTrialPerProbeThenConfirmsThePair) {
  FakeVersions versions([](int v, int) { return v >= 37 ? WrongData() : Pass(); });
  absl::StatusOr<BisectResult> result = RunBisect(Defaults(100), versions);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->answer.first_bad, 37);
  EXPECT_EQ(result->answer.last_good, 36);
  const BisectEconomy& e = result->economy;
  EXPECT_TRUE(e.deterministic);
  EXPECT_TRUE(e.one_trial_per_probe);
  EXPECT_FALSE(e.pooled);
  EXPECT_EQ(e.bad_end_runs, 2);
  EXPECT_EQ(e.bad_end_hunted, 2);
  EXPECT_TRUE(e.turned_flaky.empty());
  EXPECT_GT(e.risk, 0);
  EXPECT_LE(e.risk, e.risk_bound);
  EXPECT_DOUBLE_EQ(e.risk_bound, 0.01);
  EXPECT_EQ(e.risk_note, "");
  EXPECT_LE(result->probes.size(), 2u + 7u);
  int confirming = 0;
  for (const ProbeRecord& p : result->probes) {
    const int n = static_cast<int>(p.trials.size());
    if (p.version == 99) {
      EXPECT_EQ(n, 2) << "the estimate";
    } else if (p.version == 37) {
      EXPECT_EQ(n, 2) << "the first bad fails again";
      EXPECT_EQ(p.tally.hunted, 2);
    } else if (p.version == 36) {
      EXPECT_GE(n, 2) << "the last good passes again";
      EXPECT_EQ(p.tally.passes, n);
      confirming += n - 1;
    } else {
      EXPECT_EQ(n, 1) << p.label;
    }
    EXPECT_FALSE(p.tally.truncated) << p.label;
    EXPECT_EQ(p.tally.verdict, p.version >= 37 ? ProbeVerdict::kBad : ProbeVerdict::kGood) << p.label;
  }
  EXPECT_EQ(result->total_trials, static_cast<int>(result->probes.size()) + 1 + 1 + confirming);
  EXPECT_EQ(e.confirmation, absl::StrCat("first bad v37 failed 2 of 2 runs, last good v36 passed ", confirming + 1,
                                         " of ", confirming + 1, " runs"));
  EXPECT_THAT(e.ToString(), ::testing::StartsWith(absl::StrCat(
                                "the bad end failed 2 of 2 trials: deterministic; one trial per probe (as git bisect); "
                                "the answer's pair: ", e.confirmation, ". Risk taken: were the failure flaky")));
}

TEST(FlakyAnswerRiskTest, MorePassesOfTheLastGoodAndFailuresOfTheFirstBadLowerIt) {
  // 0..9, the answer (4, 5]: the good end passed once, 4 passed, 5 and the bad end failed.
  const RiskModel model{0, 9, 0.3, 0.01};
  std::map<int, VersionEvidence> evidence = {{0, {0, 1}}, {4, {0, 1}}, {5, {1, 0}}, {9, {2, 0}}};
  const double base = FlakyAnswerRisk(evidence, model, 4, 5);
  // The worst q of: a change at 1..4 (0 good and passing, 4 bad and passing, 5 and 9 failing
  // three times), at 0 (two passes of bad versions), or later, at 6..9 (5 good and failing by
  // chance, 0 and 4 good and passing, 9 failing twice).
  double expected = 0;
  for (int j = 0; j <= 40; ++j) {
    const double q = 0.3 + 0.7 * j / 40;
    expected = std::max(expected, std::pow(q, 3) * (4 * 0.99 * (1 - q) + (1 - q) * (1 - q)) +
                                      4 * 0.01 * 0.99 * 0.99 * std::pow(q, 2));
  }
  EXPECT_NEAR(base, expected, 1e-12);
  evidence[4].passes += 2;
  const double more_passes = FlakyAnswerRisk(evidence, model, 4, 5);
  evidence[5].hunted += 1;
  const double failed_again = FlakyAnswerRisk(evidence, model, 4, 5);
  EXPECT_LT(more_passes, base);
  EXPECT_LT(failed_again, more_passes);
  // The answer's own range holds no risk: the same trials say little against a wider answer.
  EXPECT_LT(FlakyAnswerRisk(evidence, model, 0, 5), failed_again);
}

TEST(TrialEconomyTest, WithoutAnEstimateAGoodProbeTakesFourteenTrials) {
  // --estimate-trials 0: the test as given, 14 clean passes per good probe (the issue's 74
  // trials against 7).
  FakeVersions versions([](int v, int) { return v >= 37 ? WrongData() : Pass(); });
  BisectConfig config = Defaults(100);
  config.estimate_trials = 0;
  absl::StatusOr<BisectResult> result = RunBisect(config, versions);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->answer.first_bad, 37);
  EXPECT_EQ(result->economy.bad_end_runs, 0);
  for (const ProbeRecord& p : result->probes) {
    if (p.tally.verdict == ProbeVerdict::kGood) {
      EXPECT_EQ(p.trials.size(), 14u) << p.label;
    }
  }
}

TEST(TrialEconomyTest, AFlakyBadEndStopsAtItsFirstFailureOnceBad) {
  // The bad end fails, passes, fails: flaky at the pass, bad after the second failure.
  FakeVersions versions([](int v, int t) { return v >= 5 && (t % 3 != 1) ? WrongData() : Pass(); });
  absl::StatusOr<BisectResult> result = RunBisect(Defaults(10), versions);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_FALSE(result->probes.empty());
  EXPECT_EQ(result->probes[0].version, 9);
  EXPECT_EQ(result->probes[0].trials.size(), 3u);
  EXPECT_EQ(result->economy.bad_end_runs, 3);
  EXPECT_EQ(result->economy.bad_end_hunted, 2);
  EXPECT_TRUE(result->economy.pooled);
  EXPECT_EQ(result->status, BisectStatus::kFound);
  EXPECT_EQ(result->answer.first_bad, 5);
  EXPECT_EQ(result->answer.last_good, 4);
  EXPECT_GE(result->economy.confidence, 0.99);
}

// Each economy errs at most 1 % of the time (alpha, beta): the one-trial search's risk when a
// flaky failure looked deterministic at the bad end, the posterior's when it did not. Over 200
// flaky bisects at most 4 may name another pair.
TEST(TrialEconomyTest, PooledFlakyBisectNeedsAtMostHalfTheTrialsOfTenPerProbe) {
  int right = 0;
  int64_t trials = 0, fixed_trials = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    const int first_bad = 1 + static_cast<int>(seed * 37 % 99);
    FakeVersions versions([&](int v, int t) { return v >= first_bad && Coin(seed, v, t) ? WrongData() : Pass(); });
    absl::StatusOr<BisectResult> result = RunBisect(Defaults(100), versions);
    ASSERT_TRUE(result.ok()) << result.status();
    if (result->status == BisectStatus::kFound && result->answer.first_bad == first_bad &&
        result->answer.last_good == first_bad - 1) {
      ++right;
    }
    trials += result->total_trials;
    // The yardstick: 10 trials for each probe of a plain bisection of the same range.
    FakeVersions plain([&](int v, int) { return v >= first_bad ? WrongData() : Pass(); });
    absl::StatusOr<BisectResult> p = RunBisect(Deterministic(100, 1), plain);
    ASSERT_TRUE(p.ok());
    fixed_trials += 10 * static_cast<int64_t>(p->probes.size());
  }
  EXPECT_GE(right, 196);
  EXPECT_LE(2 * trials, fixed_trials) << trials << " trials against " << fixed_trials;
}

TEST(TrialEconomyTest, ADeterministicLookingBadEndThatTurnsOutFlakyIsPooled) {
  // Bad versions fail their first trial and every other one after; the bad end fails 3 of 3. The
  // one-trial search finds 30 and 29, then 30's second trial passes: the failure is flaky, and
  // the pooled search answers from every trial.
  FakeVersions versions([](int v, int t) { return v >= 30 && (v == 99 ? t < 3 || t % 2 == 0 : t % 2 == 0) ? WrongData() : Pass(); });
  std::vector<std::string> lines;
  absl::StatusOr<BisectResult> result =
      RunBisect(Defaults(100), versions, [&](const ProbeRecord& p) { lines.push_back(p.label); });
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->status, BisectStatus::kFound);
  EXPECT_EQ(result->answer.first_bad, 30);
  EXPECT_EQ(result->answer.last_good, 29);
  const BisectEconomy& e = result->economy;
  EXPECT_TRUE(e.deterministic);
  EXPECT_TRUE(e.pooled);
  EXPECT_EQ(e.turned_flaky, "v30 passed its 2nd run after failing");
  EXPECT_GE(e.confidence, 0.99);
  EXPECT_THAT(e.ToString(), ::testing::HasSubstr(
                                "deterministic at first, one trial per probe; then v30 passed its 2nd run after failing: "
                                "flaky; one posterior over every trial of every probe"));
  for (const ProbeRecord& p : result->probes) {
    EXPECT_EQ(p.tally.verdict, p.version >= 30 ? ProbeVerdict::kBad : ProbeVerdict::kGood) << p.label;
  }
}

TEST(TrialEconomyTest, ARewordedFirstBadVersionIsBadInBothEconomies) {
  // 0.7.0 (version 30) words the removed attribute's error otherwise than the releases after it.
  auto removed = [](int v) {
    return TrialResult{Outcome::kError,
                       v == 30 ? "AttributeError: fakelib.Sharding was removed in fakelib v0.7.0"
                               : "AttributeError: module 'fakelib' has no attribute 'Sharding'",
                       false, "", 0, "", "prog.py: s = fakelib.Sharding(devices)"};
  };
  for (bool flaky : {false, true}) {
    SCOPED_TRACE(flaky ? "flaky" : "deterministic");
    FakeVersions versions([&](int v, int t) { return v >= 30 && (!flaky || t % 2 == 0) ? removed(v) : Pass(); });
    BisectConfig config = Defaults(40);
    config.hunt = HuntSpec();  // the bad end's family
    absl::StatusOr<BisectResult> result = RunBisect(config, versions);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->economy.pooled, flaky);
    EXPECT_EQ(result->answer.first_bad, 30);
    EXPECT_EQ(result->answer.last_good, 29);
    EXPECT_THAT(result->answer.unclassified, IsEmpty());
    EXPECT_EQ(result->hunt_example, "AttributeError: module 'fakelib' has no attribute 'Sharding'");
    for (const ProbeRecord& p : result->probes) {
      if (p.version != 30) continue;
      EXPECT_EQ(p.tally.verdict, ProbeVerdict::kBad);
      EXPECT_GT(p.tally.hunted, 0);
      EXPECT_EQ(p.tally.reworded, p.tally.hunted);
      EXPECT_EQ(p.tally.others, 0);
    }
  }
}

TEST(TrialEconomyTest, AVersionThatFailedDifferentlyIsNeverGoodInEitherEconomy) {
  // 20 crashes now and then besides; the hunted failure starts at 25.
  for (bool flaky : {false, true}) {
    SCOPED_TRACE(flaky ? "flaky" : "deterministic");
    FakeVersions versions([&](int v, int t) {
      if (v == 20 && t % 3 == 0) return Segv();
      return v >= 25 && (!flaky || t % 2 == 0) ? WrongData() : Pass();
    });
    BisectConfig config = Defaults(40);
    absl::StatusOr<BisectResult> result = RunBisect(config, versions);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->answer.first_bad, 25);
    EXPECT_EQ(result->answer.last_good, 24);
    for (const ProbeRecord& p : result->probes) {
      const bool failed = std::any_of(p.trials.begin(), p.trials.end(),
                                      [](const TrialResult& t) { return t.outcome != Outcome::kPass; });
      if (failed) {
        EXPECT_NE(p.tally.verdict, ProbeVerdict::kGood) << p.label;
      }
      if (p.version == 20) {
        EXPECT_EQ(p.tally.verdict, ProbeVerdict::kOther);
      }
    }
  }
}

TEST(TrialEconomyTest, PooledSearchLeavesASetUpFailureUnclassified) {
  FakeVersions versions([](int v, int t) {
    if (v == 20) return TrialResult{Outcome::kError, "", true, "setup: exit status 1", 0, ""};
    return v >= 20 && t % 2 == 0 ? WrongData() : Pass();
  });
  absl::StatusOr<BisectResult> result = RunBisect(Defaults(41), versions);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->economy.pooled);
  EXPECT_EQ(result->answer.last_good, 19);
  EXPECT_EQ(result->answer.first_bad, 21);
  EXPECT_THAT(result->answer.unclassified, ElementsAre(20));
}

TEST(TrialEconomyTest, ThreeJobsRunTheBadEndsEstimateBesideTheGoodEnd) {
  FakeVersions versions([](int v, int) { return v >= 61 ? WrongData() : Pass(); });
  BisectConfig config = Defaults(100);
  config.jobs = 3;
  absl::StatusOr<BisectResult> result = RunBisect(config, versions);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->answer.first_bad, 61);
  ASSERT_GE(versions.batches.size(), 1u);
  // The good end's first trial and the bad end's two.
  ASSERT_EQ(versions.batches[0].size(), 3u);
  EXPECT_EQ(versions.batches[0][0].version, 0);
  EXPECT_EQ(versions.batches[0][1].version, 99);
  EXPECT_EQ(versions.batches[0][2].version, 99);
  EXPECT_EQ(versions.batches[0][2].trial, 1);
}

TEST(FindFixTest, FindsTheFirstGoodVersionAfterBadOnesWithoutReversingTheList) {
  // Versions 0..39 fail, 40.. pass again: --bad 0 --good 99 --find fix.
  FakeVersions versions([](int v, int) { return v < 40 ? WrongData() : Pass(); });
  BisectConfig config = Deterministic(100, 1);
  config.good = 99;
  config.bad = 0;
  config.find = BisectFind::kFix;
  std::vector<std::string> progress;
  absl::StatusOr<BisectResult> result = RunBisect(config, versions, [&](const ProbeRecord& p) {
    progress.push_back(absl::StrCat(p.label, "#", p.version, "=", std::string(ProbeVerdictName(p.tally.verdict))));
  });
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->status, BisectStatus::kFound);
  EXPECT_EQ(result->find, BisectFind::kFix);
  EXPECT_EQ(result->answer.first_bad, 39);  // the last that fails
  EXPECT_EQ(result->answer.last_good, 40);  // the fix
  ASSERT_GE(progress.size(), 2u);
  EXPECT_EQ(progress[0], "v0#0=bad");  // labels and indices are the user's order
  EXPECT_EQ(progress[1], "v99#99=good");
  for (const ProbeRecord& p : result->probes) {
    EXPECT_EQ(p.label, absl::StrCat("v", p.version));
    EXPECT_EQ(p.tally.verdict, p.version < 40 ? ProbeVerdict::kBad : ProbeVerdict::kGood) << p.label;
  }
  for (const auto& batch : versions.batches) {
    for (const auto& r : batch) EXPECT_TRUE(r.version >= 0 && r.version < 100);
  }
}

TEST(FindFixTest, TheBadEndMustComeFirst) {
  BisectConfig config = Deterministic(10, 1);
  config.find = BisectFind::kFix;  // good 0, bad 9: the wrong order for a fix
  EXPECT_EQ(ValidateBisectConfig(config).message(),
            "--bad: 'v9' must come before --good 'v0' in the version order (--find fix: the failure goes "
            "away in a later version)");
  EXPECT_EQ(ParseBisectFind("fixed").status().message(), "--find: expected bug or fix, got 'fixed'");
  EXPECT_EQ(*ParseBisectFind("fix"), BisectFind::kFix);
}

TEST(ValidateBisectConfigTest, NamesTheFlag) {
  BisectConfig config = Deterministic(10, 1);
  config.good = 5;
  config.bad = 2;
  EXPECT_EQ(ValidateBisectConfig(config).message(),
            "--good: 'v5' must come before --bad 'v2' in the version order");
  config = Deterministic(10, 0);
  EXPECT_EQ(ValidateBisectConfig(config).message(), "--jobs: must be >= 1, got 0");
  config = Deterministic(10, 1);
  config.sprt.p_bad = 2;
  EXPECT_EQ(ValidateBisectConfig(config).message(), "sprt: p_bad: must be in (p_good=0.01, 1), got 2");
}

}  // namespace
}  // namespace gh
