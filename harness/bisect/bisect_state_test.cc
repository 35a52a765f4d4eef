#include "harness/bisect/bisect_state.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "absl/strings/str_cat.h"
#include "harness/driver/job_pool.h"
#include "harness/core/file_util.h"

namespace gh {
namespace {

class CountingRunner : public TrialRunner {
 public:
  absl::StatusOr<std::vector<TrialResult>> RunTrials(const std::vector<Request>& batch) override {
    std::vector<TrialResult> out;
    for (const Request& r : batch) {
      ++ran;
      out.push_back({r.version >= 2 ? Outcome::kFail : Outcome::kPass,
                     r.version >= 2 ? "wrong data" : "", false, "", 0.25, ""});
    }
    return out;
  }
  int ran = 0;
};

std::string TempDir() {
  std::string dir = ::testing::TempDir() + "/bisect_state_" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(SettingsHashTest, StableAndSensitive) {
  nlohmann::json a = {{"scenario", "x.yaml"}, {"points", "*"}};
  EXPECT_EQ(SettingsHash(a), SettingsHash(a));
  EXPECT_EQ(SettingsHash(a).size(), 16u);
  EXPECT_NE(SettingsHash(a), SettingsHash({{"scenario", "x.yaml"}, {"points", "a*"}}));
}

TEST(ProbeCacheTest, JsonRoundTrip) {
  ProbeCache cache;
  cache.Insert({"v1", "abc", 0}, {Outcome::kCrash, "SIGSEGV on rank 1", false, "log: x", 1.5, ""});
  cache.Insert({"v2", "abc", 3}, {Outcome::kError, "", true, "setup exited 1", 0, ""});
  absl::StatusOr<ProbeCache> back = ProbeCache::FromJson(cache.ToJson(), "state.json");
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->size(), 2u);
  const TrialResult* crash = back->Find({"v1", "abc", 0});
  ASSERT_NE(crash, nullptr);
  EXPECT_EQ(crash->outcome, Outcome::kCrash);
  EXPECT_EQ(crash->signature, "SIGSEGV on rank 1");
  EXPECT_EQ(crash->detail, "log: x");
  EXPECT_EQ(crash->wall_s, 1.5);
  const TrialResult* setup = back->Find({"v2", "abc", 3});
  ASSERT_NE(setup, nullptr);
  EXPECT_TRUE(setup->setup_failed);
  EXPECT_EQ(back->Find({"v2", "other-settings", 3}), nullptr);
}

TEST(ProbeCacheTest, MalformedStateNamesFileAndKey) {
  nlohmann::json json = {{"schema_version", 1},
                         {"trials", {{{"version", "v1"}, {"settings", "s"}, {"trial", 0},
                                      {"outcome", "exploded"}, {"signature", ""}, {"detail", ""},
                                      {"setup_failed", false}, {"wall_s", 0}}}}};
  absl::StatusOr<ProbeCache> cache = ProbeCache::FromJson(json, "out/bisect_state.json");
  ASSERT_FALSE(cache.ok());
  EXPECT_EQ(cache.status().message().substr(0, 44), "out/bisect_state.json: trials[0].outcome: un");
  json["schema_version"] = 9;
  EXPECT_EQ(ProbeCache::FromJson(json, "s.json").status().message(),
            "s.json: schema_version: unsupported version 9 (this build reads 1)");
  json = {{"schema_version", 1}, {"trials", {{{"version", "v1"}}}}};
  EXPECT_EQ(ProbeCache::FromJson(json, "s.json").status().message(),
            "s.json: trials[0].settings: missing or not a string");
}

TEST(ProbeCacheTest, LoadMissingIsEmptyAndGarbageIsAnError) {
  const std::string dir = TempDir();
  absl::StatusOr<ProbeCache> empty = ProbeCache::Load(dir + "/none.json");
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->size(), 0u);
  ASSERT_TRUE(WriteFileAtomically(dir + "/bad.json", "{not json").ok());
  absl::StatusOr<ProbeCache> bad = ProbeCache::Load(dir + "/bad.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), dir + "/bad.json: not valid JSON");
}

// A bisect over `config` through `cache` (saved to `state`, keyed by `settings_hash`) with
// `inner` (a fresh CountingRunner when null) behind it: its result, the trials the runner ran
// and the cache hits.
struct CachedBisect {
  absl::StatusOr<BisectResult> result;
  int ran = 0;
  int hits = 0;
};
CachedBisect RunCachedBisect(const BisectConfig& config, ProbeCache& cache, const std::string& settings_hash,
                             const std::string& state, CountingRunner* inner = nullptr) {
  CountingRunner fresh;
  if (inner == nullptr) inner = &fresh;
  CachingTrialRunner caching(*inner, cache, config.versions, settings_hash, state);
  CachedBisect run;
  run.result = RunBisect(config, caching);
  run.ran = inner->ran;
  run.hits = caching.hits();
  return run;
}

BisectConfig FiveVersions() {
  BisectConfig config;
  config.versions = {"a", "b", "c", "d", "e"};
  config.good = 0;
  config.bad = 4;
  config.sprt.max_trials = 2;
  return config;
}

TEST(CachingTrialRunnerTest, SavesAfterEveryBatchAndResumesWithoutRerunning) {
  const std::string state = TempDir() + "/bisect_state.json";
  BisectConfig config = FiveVersions();
  ProbeCache cache;
  const CachedBisect first = RunCachedBisect(config, cache, "h1", state);
  ASSERT_TRUE(first.result.ok()) << first.result.status();
  EXPECT_EQ(first.result->answer.first_bad, 2);
  EXPECT_EQ(first.ran, first.result->total_trials);

  // The whole state is on disk; a second run replays it and runs nothing.
  absl::StatusOr<ProbeCache> loaded = ProbeCache::Load(state);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->size(), static_cast<size_t>(first.ran));
  const CachedBisect second = RunCachedBisect(config, *loaded, "h1", state);
  ASSERT_TRUE(second.result.ok());
  EXPECT_EQ(second.ran, 0);
  EXPECT_EQ(second.result->answer.first_bad, 2);
  EXPECT_EQ(second.hits, first.result->total_trials);

  // Other settings miss the cache.
  const CachedBisect changed = RunCachedBisect(config, *loaded, "h2", state);
  ASSERT_TRUE(changed.result.ok());
  EXPECT_EQ(changed.ran, first.result->total_trials);
}

// Version b's trials fail to start (infra) on their first `bad_attempts` attempts. Returned as the
// job trial runner returns them, whose job pool runs an infra attempt again (up to
// driver::kMaxJobAttempts): the trial that counted with the infra attempts under it, or infra.
class InfraAtBRunner : public CountingRunner {
 public:
  explicit InfraAtBRunner(int bad_attempts) : bad_attempts_(bad_attempts) {}
  absl::StatusOr<std::vector<TrialResult>> RunTrials(const std::vector<Request>& batch) override {
    std::vector<TrialResult> out;
    for (const Request& r : batch) {
      const TrialResult infra = {Outcome::kInfra,
                                 "infrastructure: srun: error: Node failure on ghnode2 (job exited with status 0)",
                                 false, absl::StrCat("probes/b/trial", r.trial), 0, ""};
      if (r.version != 1 || bad_attempts_ == 0) {
        out.push_back(CountingRunner::RunTrials({r})->front());
        continue;
      }
      const int failed = std::min(bad_attempts_, driver::kMaxJobAttempts);
      ran += failed;
      retried += failed == driver::kMaxJobAttempts ? failed - 1 : failed;
      TrialResult result = failed == driver::kMaxJobAttempts ? infra : CountingRunner::RunTrials({r})->front();
      for (int a = 0; a < std::min(failed, driver::kMaxJobAttempts - 1); ++a) {
        result.infra_attempts.push_back({infra.signature, infra.detail});
      }
      out.push_back(result);
    }
    return out;
  }
  int retried = 0;  // infra attempts run again

 private:
  int bad_attempts_;
};

// A first run of FiveVersions() on `inner`, its state saved to `state` under settings "h1".
CachedBisect RunWithInfraAtB(const BisectConfig& config, InfraAtBRunner& inner, const std::string& state) {
  ProbeCache cache;
  CachedBisect ran = RunCachedBisect(config, cache, "h1", state, &inner);
  EXPECT_TRUE(ran.result.ok()) << ran.result.status();
  return ran;
}

TEST(CachingTrialRunnerTest, ARetriedTrialResumesWithItsInfraAttemptAndIsNotRunAgain) {
  const std::string state = TempDir() + "/bisect_state.json";
  const BisectConfig config = FiveVersions();
  InfraAtBRunner inner(/*bad_attempts=*/1);
  const CachedBisect ran = RunWithInfraAtB(config, inner, state);
  const absl::StatusOr<BisectResult>& first = ran.result;
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->answer.first_bad, 2);
  EXPECT_EQ(first->answer.last_good, 1);
  EXPECT_EQ(inner.retried, 2);  // b's two trials, once each
  EXPECT_EQ(ran.ran, first->total_trials + 2);

  // The state file keeps the trials that counted, each with the attempt under it.
  absl::StatusOr<ProbeCache> loaded = ProbeCache::Load(state);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->size(), static_cast<size_t>(first->total_trials));
  const TrialResult* b0 = loaded->Find({"b", "h1", 0});
  ASSERT_NE(b0, nullptr);
  EXPECT_EQ(b0->outcome, Outcome::kPass);
  ASSERT_EQ(b0->infra_attempts.size(), 1u);
  EXPECT_EQ(b0->infra_attempts[0].signature,
            "infrastructure: srun: error: Node failure on ghnode2 (job exited with status 0)");
  EXPECT_EQ(b0->infra_attempts[0].detail, "probes/b/trial0");

  const CachedBisect resumed = RunCachedBisect(config, *loaded, "h1", state);
  ASSERT_TRUE(resumed.result.ok()) << resumed.result.status();
  EXPECT_EQ(resumed.ran, 0);
  EXPECT_EQ(resumed.result->answer.last_good, 1);
  for (const ProbeRecord& p : resumed.result->probes) {
    EXPECT_EQ(p.tally.infra_retried, p.label == "b" ? 2 : 0) << p.label;
  }
}

TEST(CachingTrialRunnerTest, InfraOnEveryAttemptIsNotCachedAndARerunRetriesIt) {
  const std::string state = TempDir() + "/bisect_state.json";
  const BisectConfig config = FiveVersions();
  InfraAtBRunner inner(/*bad_attempts=*/3);
  const absl::StatusOr<BisectResult> first = RunWithInfraAtB(config, inner, state).result;
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->answer.last_good, 0);
  EXPECT_EQ(first->answer.unclassified, std::vector<int>{1});
  absl::StatusOr<ProbeCache> loaded = ProbeCache::Load(state);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->Find({"b", "h1", 0}), nullptr);

  // The infrastructure is back: the rerun runs b and answers exactly.
  const CachedBisect rerun = RunCachedBisect(config, *loaded, "h1", state);
  ASSERT_TRUE(rerun.result.ok()) << rerun.result.status();
  EXPECT_GT(rerun.ran, 0);
  EXPECT_EQ(rerun.result->answer.first_bad, 2);
  EXPECT_EQ(rerun.result->answer.last_good, 1);
  EXPECT_TRUE(rerun.result->answer.unclassified.empty());
}

TEST(ProbeCacheTest, MalformedInfraAttemptsNameTheKey) {
  nlohmann::json json = ProbeCache().ToJson();
  json["trials"] = {{{"version", "v1"}, {"settings", "h"}, {"trial", 0}, {"outcome", "pass"}, {"signature", ""},
                     {"setup_failed", false}, {"detail", ""}, {"wall_s", 1.0},
                     {"infra_attempts", {{{"signature", 3}, {"detail", ""}}}}}};
  absl::StatusOr<ProbeCache> back = ProbeCache::FromJson(json, "DIR/bisect_state.json");
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().message(),
            "DIR/bisect_state.json: trials[0].infra_attempts[0].signature: missing or not a string");
}

// Dies (returns an error) after `limit` trials: a bisect killed mid-way.
class DyingRunner : public CountingRunner {
 public:
  explicit DyingRunner(int limit) : limit_(limit) {}
  absl::StatusOr<std::vector<TrialResult>> RunTrials(const std::vector<Request>& batch) override {
    if (ran + static_cast<int>(batch.size()) > limit_) return absl::AbortedError("killed");
    return CountingRunner::RunTrials(batch);
  }

 private:
  int limit_;
};

TEST(CachingTrialRunnerTest, InterruptedBisectContinuesWhereItStopped) {
  const std::string state = TempDir() + "/bisect_state.json";
  BisectConfig config = FiveVersions();
  DyingRunner dying(3);
  ProbeCache cache;
  CachingTrialRunner caching(dying, cache, config.versions, "h", state);
  absl::StatusOr<BisectResult> killed = RunBisect(config, caching);
  ASSERT_FALSE(killed.ok());
  EXPECT_EQ(dying.ran, 3);

  absl::StatusOr<ProbeCache> loaded = ProbeCache::Load(state);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->size(), 3u);
  CountingRunner rest;
  CachingTrialRunner resumed(rest, *loaded, config.versions, "h", state);
  absl::StatusOr<BisectResult> done = RunBisect(config, resumed);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->answer.first_bad, 2);
  EXPECT_EQ(rest.ran + 3, done->total_trials);
  EXPECT_EQ(resumed.hits(), 3);
}

TEST(CachingTrialRunnerTest, RollingTrialsAreServedFromTheCacheAndSavedAfterEach) {
  const std::string state = TempDir() + "/bisect_state.json";
  const std::vector<std::string> labels = {"v0", "v1", "v2", "v3"};
  ProbeCache cache;
  cache.Insert({"v1", "h", 0}, {Outcome::kPass, "", false, "cached", 0, ""});
  CountingRunner inner;
  CachingTrialRunner caching(inner, cache, labels, "h", state);
  ASSERT_TRUE(caching.Start({3, 0}).ok());
  ASSERT_TRUE(caching.Start({1, 0}).ok());
  absl::StatusOr<TrialRunner::Finished> first = caching.Wait();
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->request.version, 1);  // the cached one, at once
  EXPECT_EQ(first->result.detail, "cached");
  EXPECT_EQ(inner.ran, 0);
  absl::StatusOr<TrialRunner::Finished> second = caching.Wait();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->request.version, 3);
  EXPECT_EQ(second->result.outcome, Outcome::kFail);
  EXPECT_EQ(inner.ran, 1);
  EXPECT_EQ(caching.hits(), 1);
  absl::StatusOr<ProbeCache> saved = ProbeCache::Load(state);
  ASSERT_TRUE(saved.ok()) << saved.status();
  EXPECT_EQ(saved->size(), 2u);
  ASSERT_NE(saved->Find({"v3", "h", 0}), nullptr);
  EXPECT_EQ(caching.Wait().status().message(), "trial runner: Wait with no trial started");
}

TEST(CachingTrialRunnerTest, RollingBisectResumesWithoutRerunning) {
  const std::string state = TempDir() + "/bisect_state.json";
  BisectConfig config = FiveVersions();
  for (int i = 5; i < 20; ++i) config.versions.push_back("v" + std::to_string(i));  // a to e, v5 to v19
  config.bad = 19;
  config.sprt = BisectConfig().sprt;
  config.jobs = 3;
  config.hunt = {Outcome::kFail, "wrong data"};
  ProbeCache cache;
  const CachedBisect ran = RunCachedBisect(config, cache, "h", state);
  ASSERT_TRUE(ran.result.ok()) << ran.result.status();
  EXPECT_EQ(ran.result->answer.first_bad, 2);
  absl::StatusOr<ProbeCache> loaded = ProbeCache::Load(state);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const CachedBisect again = RunCachedBisect(config, *loaded, "h", state);
  ASSERT_TRUE(again.result.ok()) << again.result.status();
  EXPECT_EQ(again.result->answer.first_bad, 2);
  EXPECT_EQ(again.ran, 0);
  EXPECT_EQ(again.hits, again.result->total_trials);
  EXPECT_EQ(again.result->total_trials, ran.result->total_trials);
}

}  // namespace
}  // namespace gh
