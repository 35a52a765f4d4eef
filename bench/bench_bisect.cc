// Bisect speed with fake versions (docs/bisect.md): the search and the SPRT driven through the
// TrialRunner seam, where a real bisect runs jobs. Prints the three claims with what was
// measured, then times the bisect machinery itself with Google Benchmark.
//   1. deterministic oracle, 100 versions, --jobs 1: probes after the ends (claim: <= 7)
//   2. the same with --jobs 3: rounds (claim: <= 4)
//   3. flaky oracle (bad versions fail half their trials), 100 simulated bisects: right answers
//      (claim: >= 99) and total trials against 10 fixed trials per probe (claim: fewer)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "harness/bisect/bisect_runner.h"

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

TrialResult Pass() { return {Outcome::kPass, "", false, "", 0, ""}; }
TrialResult WrongData() { return {Outcome::kFail, "wrong data [ranks 1]", false, "", 0, ""}; }

// A reproducible coin per (seed, version, trial): splitmix64.
bool Coin(uint64_t seed, int version, int trial) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull ^ (static_cast<uint64_t>(version) << 32) ^ static_cast<uint64_t>(trial);
  x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ull; x ^= x >> 27; x *= 0x94d049bb133111ebull; x ^= x >> 31;
  return x & 1;
}

BisectConfig Config(int n, int jobs, int max_trials) {
  BisectConfig config;
  for (int i = 0; i < n; ++i) config.versions.push_back(absl::StrCat("v", i));
  config.good = 0;
  config.bad = n - 1;
  config.jobs = jobs;
  config.hunt.outcome = Outcome::kFail;
  config.hunt.signature = "wrong data";
  config.sprt.max_trials = max_trials;
  return config;
}

void PrintClaims() {
  // 1 and 2: every first bad version 1..99 of 100, deterministic (one trial per probe).
  int worst_probes = 0, worst_rounds = 0;
  for (int first_bad = 1; first_bad <= 99; ++first_bad) {
    for (int jobs : {1, 3}) {
      FakeVersions versions([&](int v, int) { return v >= first_bad ? WrongData() : Pass(); });
      absl::StatusOr<BisectResult> r = RunBisect(Config(100, jobs, 1), versions);
      if (!r.ok() || r->answer.first_bad != first_bad) {
        std::printf("WRONG ANSWER: deterministic, first bad %d, jobs %d\n", first_bad, jobs);
        continue;
      }
      if (jobs == 1) worst_probes = std::max(worst_probes, static_cast<int>(r->probes.size()) - 2);
      if (jobs == 3) worst_rounds = std::max(worst_rounds, r->rounds);
    }
  }
  std::printf("deterministic, 100 versions, every first bad 1..99:\n");
  std::printf("  --jobs 1: at most %d probes after the ends (claim: <= 7) %s\n", worst_probes,
              worst_probes <= 7 ? "OK" : "FAILED");
  std::printf("  --jobs 3: at most %d rounds after the ends (claim: <= 4) %s\n", worst_rounds,
              worst_rounds <= 4 ? "OK" : "FAILED");

  // 3: flaky, 100 bisects with different first bad versions and coins; default SPRT.
  int right = 0;
  int64_t trials = 0, fixed = 0, probes = 0;
  int max_trials_one = 0;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    const int first_bad = 1 + static_cast<int>((seed * 37) % 99);
    FakeVersions versions([&](int v, int t) { return v >= first_bad && Coin(seed, v, t) ? WrongData() : Pass(); });
    absl::StatusOr<BisectResult> r = RunBisect(Config(100, 1, SprtConfig().max_trials), versions);
    if (!r.ok()) continue;
    if (r->status == BisectStatus::kFound && r->answer.first_bad == first_bad &&
        r->answer.last_good == first_bad - 1) {
      ++right;
    }
    trials += r->total_trials;
    fixed += 10 * static_cast<int64_t>(r->probes.size());
    probes += static_cast<int64_t>(r->probes.size());
    max_trials_one = std::max(max_trials_one, r->total_trials);
  }
  std::printf("flaky (bad versions fail half their trials), 100 bisects over 100 versions, SPRT %s:\n",
              SprtConfig().ToString().c_str());
  std::printf("  right answer in %d of 100 (claim: >= 99) %s\n", right, right >= 99 ? "OK" : "FAILED");
  std::printf("  %lld trials in all, %.1f per probe over %lld probes; 10 fixed trials per probe: %lld "
              "(claim: fewer) %s; worst bisect %d trials\n",
              static_cast<long long>(trials), static_cast<double>(trials) / static_cast<double>(probes),
              static_cast<long long>(probes), static_cast<long long>(fixed), trials < fixed ? "OK" : "FAILED",
              max_trials_one);
  std::fflush(stdout);
}

// The bisect machinery's own cost per bisect (search, SPRT, bookkeeping), fake versions free.
void BM_DeterministicBisect100(benchmark::State& state) {
  const int jobs = static_cast<int>(state.range(0));
  int first_bad = 1;
  for (auto _ : state) {
    FakeVersions versions([&](int v, int) { return v >= first_bad ? WrongData() : Pass(); });
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
    FakeVersions versions([&](int v, int t) { return v >= first_bad && Coin(seed, v, t) ? WrongData() : Pass(); });
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
