// Bisect speed with fake versions (docs/reference/bisect.md): the search, the SPRT, the confirmation of a
// one-trial-per-probe answer and the pooled posterior driven through the TrialRunner seam, where
// a real bisect runs jobs. Every fake version's failure is an exception raised by one line of
// the user's program; the first bad version words it otherwise than the later ones (as a
// release that removes an API does), so only a failure family finds it. Prints the claims with
// what was measured, then times the bisect machinery itself with Google Benchmark.
//   1. deterministic oracle, 100 versions: trials per bisect (claim: <= 12 on average, 0 wrong),
//      probes after the ends (claim: <= 7); --jobs 3 with one trial per probe: rounds (claim: <= 4)
//   2. trials lasting 1..8 simulated seconds: --jobs 3 in rounds against rolling (no rounds)
//   3. flaky oracle (bad versions fail half their trials; a tenth of the versions between the
//      ends also crash in a fifth of their trials), 100 simulated bisects: right answers (claim: >= 99, no version
//      that failed called good) and trials against 10 per probe of a plain bisection
//      (claim: <= 0.5x)
//   4. flaky bad versions whose bad end fails its first trials (it looks deterministic): right
//      answers over 100 bisects
//   5. the trade the confirmation makes: for risk bounds (--beta) from 0.1 to 0.005, the
//      deterministic oracle's trials against the flaky oracle's right answers
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "harness/bisect/bisect_runner.h"
#include "harness/bisect/probe.h"

namespace gh {
namespace {

class FakeVersions : public TrialRunner {
 public:
  using Oracle = std::function<TrialResult(int version, int trial)>;
  explicit FakeVersions(Oracle oracle) : oracle_(std::move(oracle)) {}
  absl::StatusOr<std::vector<TrialResult>> RunTrials(const std::vector<Request>& batch) override {
    ++batches;
    std::vector<TrialResult> out;
    for (const Request& r : batch) out.push_back(oracle_(r.version, r.trial));
    return out;
  }
  int batches = 0;

 private:
  Oracle oracle_;
};

// Fake versions whose trials take time: each (version, trial) lasts 1..8 simulated seconds
// (reproducible). A batch (RunTrials) waits for its slowest trial; Start/Wait finish each trial
// at its own time. `now` is the simulated wall clock.
class TimedFakeVersions : public TrialRunner {
 public:
  using Oracle = std::function<TrialResult(int version, int trial)>;
  TimedFakeVersions(Oracle oracle, uint64_t seed) : oracle_(std::move(oracle)), seed_(seed) {}
  absl::StatusOr<std::vector<TrialResult>> RunTrials(const std::vector<Request>& batch) override {
    double longest = 0;
    std::vector<TrialResult> out;
    for (const Request& r : batch) {
      longest = std::max(longest, Duration(r));
      out.push_back(oracle_(r.version, r.trial));
    }
    now += longest;
    return out;
  }
  absl::Status Start(const Request& request) override {
    running_.push_back({now + Duration(request), request});
    return absl::OkStatus();
  }
  absl::StatusOr<Finished> Wait() override {
    auto first = std::min_element(running_.begin(), running_.end(),
                                  [](const auto& a, const auto& b) { return a.first < b.first; });
    now = std::max(now, first->first);
    Request request = first->second;
    running_.erase(first);
    return Finished{request, oracle_(request.version, request.trial)};
  }
  double now = 0;

 private:
  double Duration(const Request& r) const {
    uint64_t x = seed_ * 0x9E3779B97F4A7C15ull ^ (static_cast<uint64_t>(r.version) << 20) ^ static_cast<uint64_t>(r.trial);
    x ^= x >> 31; x *= 0xbf58476d1ce4e5b9ull; x ^= x >> 29;
    return 1 + static_cast<double>(x % 8);
  }
  Oracle oracle_;
  uint64_t seed_;
  std::vector<std::pair<double, Request>> running_;
};

TrialResult Pass() { return {Outcome::kPass, "", false, "", 0, ""}; }
// The hunted failure: an attribute the versions from the first bad on removed, raised by the
// same line of the user's program; the first bad version words it otherwise.
constexpr char kUsersLine[] = "prog.py: s = fakelib.sharding.Sharding(devices)";
TrialResult Removed() {
  return {Outcome::kError, "AttributeError: module 'fakelib.sharding' has no attribute 'Sharding' [ranks 0,1]",
          false, "", 0, "", kUsersLine};
}
TrialResult RemovedReworded() {
  return {Outcome::kError,
          "AttributeError: fakelib.sharding.Sharding was deprecated in fakelib v0.6.0 and removed in fakelib v0.7.0",
          false, "", 0, "", kUsersLine};
}
TrialResult Bad(int version, int first_bad) { return version == first_bad ? RemovedReworded() : Removed(); }
// Another failure: a crash while starting, on some versions, good or bad.
TrialResult Crash() { return {Outcome::kCrash, "SIGSEGV in step 'init' [ranks 1]", false, "", 0, ""}; }

// A reproducible coin per (seed, version, trial): splitmix64.
bool Coin(uint64_t seed, int version, int trial) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull ^ (static_cast<uint64_t>(version) << 32) ^ static_cast<uint64_t>(trial);
  x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ull; x ^= x >> 27; x *= 0x94d049bb133111ebull; x ^= x >> 31;
  return x & 1;
}

// A reproducible uniform number in [0, 1) per (seed, version, trial), apart from Coin's.
double Uniform(uint64_t seed, int version, int trial) {
  uint64_t x = (seed + 0x5851F42D4C957F2Dull) * 0xD1B54A32D192ED03ull ^ (static_cast<uint64_t>(version) << 24) ^
               static_cast<uint64_t>(trial);
  x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ull; x ^= x >> 27; x *= 0x94d049bb133111ebull; x ^= x >> 31;
  return static_cast<double>(x >> 11) / 9007199254740992.0;
}

BisectConfig Config(int n, int jobs, int max_trials) {
  BisectConfig config;
  for (int i = 0; i < n; ++i) config.versions.push_back(absl::StrCat("v", i));
  config.good = 0;
  config.bad = n - 1;
  config.jobs = jobs;  // the hunt: the bad end's failure family
  config.sprt.max_trials = max_trials;
  return config;
}

// Before this economy: no estimate at the bad end, every probe decided alone by the SPRT.
BisectConfig Unpooled(BisectConfig config) {
  config.estimate_trials = 0;
  config.pool_flaky = false;
  return config;
}

struct DeterministicStats {
  int worst_probes = 0;  // after the ends
  int64_t trials = 0;
  int wrong = 0;
};

DeterministicStats Deterministic(const BisectConfig& base) {
  DeterministicStats stats;
  for (int first_bad = 1; first_bad <= 99; ++first_bad) {
    FakeVersions versions([&](int v, int) { return v >= first_bad ? Bad(v, first_bad) : Pass(); });
    absl::StatusOr<BisectResult> r = RunBisect(base, versions);
    if (!r.ok() || r->answer.first_bad != first_bad || r->answer.last_good != first_bad - 1) {
      ++stats.wrong;
      continue;
    }
    stats.worst_probes = std::max(stats.worst_probes, static_cast<int>(r->probes.size()) - 2);
    stats.trials += r->total_trials;
  }
  return stats;
}

// A version that failed in any way is never called good.
bool NoFailedVersionGood(const BisectResult& r) {
  for (const ProbeRecord& p : r.probes) {
    const bool failed = std::any_of(p.trials.begin(), p.trials.end(), [](const TrialResult& t) {
      return !t.unrunnable() && t.outcome != Outcome::kPass && t.outcome != Outcome::kSkip;
    });
    if (failed && p.tally.verdict == ProbeVerdict::kGood) return false;
  }
  return true;
}

// Right: the answer brackets the change (last good < first bad version <= first bad) and every
// version between its pair failed differently, and no version that failed is called good.
// Exact: the pair is the change's own.
bool Right(const BisectResult& r, int first_bad, bool* exact) {
  *exact = false;
  if (r.status != BisectStatus::kFound || !NoFailedVersionGood(r)) return false;
  if (r.answer.last_good >= first_bad || r.answer.first_bad < first_bad) return false;
  for (int v = r.answer.last_good + 1; v < r.answer.first_bad; ++v) {
    auto probe = std::find_if(r.probes.begin(), r.probes.end(), [&](const ProbeRecord& p) { return p.version == v; });
    if (probe == r.probes.end() || probe->tally.verdict != ProbeVerdict::kOther) return false;
  }
  *exact = r.answer.first_bad == first_bad && r.answer.last_good == first_bad - 1;
  return true;
}

struct FlakyStats {
  int right = 0, exact = 0;
  int turned_flaky = 0, turned_flaky_right = 0;  // a confirming trial disagreed: pooled after all
  int64_t trials = 0, fixed = 0;
  int worst = 0;
};

// The flaky oracle: bad versions fail each trial with probability 1/2 (the first bad in its own
// words); one version in ten between the ends (the bad end crashing too would leave the failure
// to hunt ambiguous) crashes while starting in a fifth of its trials, good or bad. With
// `looks_deterministic`, the bad end's first 8 trials always fail.
TrialResult FlakyTrial(uint64_t seed, int first_bad, int v, int t, bool looks_deterministic) {
  const bool crashes = v > 0 && v < 99 && (v * 7 + static_cast<int>(seed)) % 10 == 3;
  if (crashes && Uniform(seed, v, t) < 0.2) return Crash();
  const bool forced = looks_deterministic && v == 99 && t < 8;
  return v >= first_bad && (forced || Coin(seed, v, t)) ? Bad(v, first_bad) : Pass();
}

// 100 bisects over 100 versions. The yardstick: 10 fixed trials for each probe of a plain
// bisection of the same range (its ends and its ceil(log2) probes).
FlakyStats Flaky(const BisectConfig& base, bool looks_deterministic = false) {
  FlakyStats stats;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    const int first_bad = 1 + static_cast<int>((seed * 37) % 99);
    FakeVersions versions([&](int v, int t) { return FlakyTrial(seed, first_bad, v, t, looks_deterministic); });
    absl::StatusOr<BisectResult> r = RunBisect(base, versions);
    FakeVersions plain([&](int v, int) { return v >= first_bad ? Bad(v, first_bad) : Pass(); });
    absl::StatusOr<BisectResult> p = RunBisect(Unpooled(Config(100, 1, 1)), plain);
    if (!r.ok() || !p.ok()) continue;
    bool exact = false;
    const bool right = Right(*r, first_bad, &exact);
    stats.right += right;
    stats.exact += exact;
    if (!r->economy.turned_flaky.empty()) {
      ++stats.turned_flaky;
      stats.turned_flaky_right += right;
    }
    stats.trials += r->total_trials;
    stats.fixed += 10 * static_cast<int64_t>(p->probes.size());
    stats.worst = std::max(stats.worst, r->total_trials);
  }
  return stats;
}

void PrintClaims() {
  const int cap = SprtConfig().max_trials;
  std::printf("deterministic, 100 versions, every first bad 1..99, SPRT %s:\n", SprtConfig().ToString().c_str());
  for (bool economy : {false, true}) {
    const BisectConfig config = economy ? Config(100, 1, cap) : Unpooled(Config(100, 1, cap));
    const DeterministicStats d = Deterministic(config);
    // The claims are judged on the "after" lines; "before" shows what they replace.
    auto verdict = [&](bool ok) { return economy ? (ok ? "OK" : "FAILED") : "-"; };
    const double mean = static_cast<double>(d.trials) / std::max(1, 99 - d.wrong);
    std::printf("  %s: %.1f trials per bisect (claim: <= 12) %s; %d wrong (claim: 0) %s; at most %d probes after "
                "the ends (claim: <= 7) %s\n",
                economy ? "after  (one trial per probe, pair confirmed)" : "before (no estimate, SPRT per probe)      ",
                mean, verdict(mean <= 12), d.wrong, verdict(d.wrong == 0), d.worst_probes, verdict(d.worst_probes <= 7));
  }
  int worst_rounds = 0;
  for (int first_bad = 1; first_bad <= 99; ++first_bad) {
    FakeVersions versions([&](int v, int) { return v >= first_bad ? Bad(v, first_bad) : Pass(); });
    absl::StatusOr<BisectResult> r = RunBisect(Config(100, 3, 1), versions);
    if (r.ok() && r->answer.first_bad == first_bad) worst_rounds = std::max(worst_rounds, r->rounds);
  }
  std::printf("  --jobs 3, one trial per probe: at most %d rounds after the ends (claim: <= 4) %s\n", worst_rounds,
              worst_rounds <= 4 ? "OK" : "FAILED");

  // --jobs: probes whose trials take 1..8 s; the simulated wall clock of all 99 bisects.
  std::printf("deterministic, trials lasting 1..8 s (simulated), every first bad 1..99, default test:\n");
  double serial = 0;
  for (int jobs : {1, 3}) {
    for (bool rolling : {false, true}) {
      if (jobs == 1 && rolling) continue;
      double total = 0;
      int wrong = 0;
      for (int first_bad = 1; first_bad <= 99; ++first_bad) {
        TimedFakeVersions versions([&](int v, int) { return v >= first_bad ? Bad(v, first_bad) : Pass(); }, first_bad);
        BisectConfig config = Config(100, jobs, cap);
        config.rolling = rolling;
        absl::StatusOr<BisectResult> r = RunBisect(config, versions);
        if (!r.ok() || r->answer.first_bad != first_bad) ++wrong;
        total += versions.now;
      }
      if (jobs == 1) serial = total;
      std::printf("  --jobs %d%s: %.0f s per bisect (%.2fx of --jobs 1)%s\n", jobs,
                  jobs == 1 ? "                    " : rolling ? ", rolling (no rounds)" : ", rounds of 3        ",
                  total / 99, total / serial, wrong ? " WRONG ANSWERS" : "");
    }
  }

  std::printf("flaky (bad versions fail half their trials, one version in ten between the ends also crashes in a fifth), 100 bisects "
              "over 100 versions:\n");
  for (bool economy : {false, true}) {
    const BisectConfig config = economy ? Config(100, 1, cap) : Unpooled(Config(100, 1, cap));
    const FlakyStats f = Flaky(config);
    const double ratio = static_cast<double>(f.trials) / static_cast<double>(f.fixed);
    auto verdict = [&](bool ok) { return economy ? (ok ? "OK" : "FAILED") : "-"; };
    std::printf("  %s: right in %d of 100 (claim: >= 99) %s, %d of them the exact pair; %lld trials, %.2fx of 10 "
                "fixed per probe of a plain bisection (%lld) (claim: <= 0.5x) %s; worst bisect %d trials\n",
                economy ? "after  (estimate, then pooled posterior)" : "before (SPRT per probe)                ",
                f.right, verdict(f.right >= 99), f.exact, static_cast<long long>(f.trials), ratio,
                static_cast<long long>(f.fixed), verdict(ratio <= 0.5), f.worst);
  }
  {
    const FlakyStats f = Flaky(Config(100, 1, cap), /*looks_deterministic=*/true);
    std::printf("  the same, the bad end failing its first 8 trials (it looks deterministic): right in %d of 100 "
                "(goal: >= 99) %s; %d turned flaky at a disagreeing trial and were pooled (%d of them right), %d "
                "stood as deterministic (%d right); %lld trials\n",
                f.right, f.right >= 99 ? "OK" : "MISSED", f.turned_flaky, f.turned_flaky_right, 100 - f.turned_flaky,
                f.right - f.turned_flaky_right, static_cast<long long>(f.trials));
  }

  std::printf("the confirmation's trade: risk bound (--beta) against deterministic trials and flaky right answers:\n");
  for (double beta : {0.1, 0.05, 0.02, 0.01, 0.005}) {
    BisectConfig config = Config(100, 1, cap);
    config.sprt.beta = beta;
    const DeterministicStats d = Deterministic(config);
    const FlakyStats f = Flaky(config);
    const FlakyStats g = Flaky(config, /*looks_deterministic=*/true);
    std::printf("  --beta %-5g: deterministic %.1f trials per bisect, %d wrong; flaky right in %d of 100 (%.2fx of "
                "fixed-10); looking deterministic right in %d of 100\n",
                beta, static_cast<double>(d.trials) / std::max(1, 99 - d.wrong), d.wrong, f.right,
                static_cast<double>(f.trials) / static_cast<double>(f.fixed), g.right);
  }
  std::fflush(stdout);
}

// The bisect machinery's own cost per bisect (search, SPRT, bookkeeping), fake versions free.
void BM_DeterministicBisect100(benchmark::State& state) {
  const int jobs = static_cast<int>(state.range(0));
  int first_bad = 1;
  for (auto _ : state) {
    FakeVersions versions([&](int v, int) { return v >= first_bad ? Bad(v, first_bad) : Pass(); });
    absl::StatusOr<BisectResult> r = RunBisect(Config(100, jobs, 1), versions);
    benchmark::DoNotOptimize(r);
    first_bad = first_bad % 99 + 1;
  }
}
BENCHMARK(BM_DeterministicBisect100)->Arg(1)->Arg(3);

void BM_FlakyBisect100(benchmark::State& state) {
  uint64_t seed = 1;
  for (auto _ : state) {
    const int first_bad = 1 + static_cast<int>((seed * 37) % 99);
    FakeVersions versions([&](int v, int t) { return FlakyTrial(seed, first_bad, v, t, false); });
    absl::StatusOr<BisectResult> r = RunBisect(Config(100, 1, 20), versions);
    benchmark::DoNotOptimize(r);
    ++seed;
  }
}
BENCHMARK(BM_FlakyBisect100);

}  // namespace
}  // namespace gh

int main(int argc, char** argv) {
  gh::PrintClaims();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
