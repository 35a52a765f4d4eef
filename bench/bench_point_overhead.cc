// The harness's own work per point on the host backend with tiny payloads, stage by stage and
// all together: expansion, each rank's outcome encoded and decoded (what the gather moves),
// the reduction to rank 0, the expectation match, the crash record rank 0 pre-renders, and the
// record rendered and appended to records.jsonl. Target (issue 2): well under 1 ms per point.
// The end-to-end counterpart, a 1000-point job under mpirun, is in docs/performance.md.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "harness/core/outcome.h"
#include "harness/core/records_file.h"
#include "harness/core/registry.h"
#include "harness/core/scenario_loader.h"
#include "harness/core/timing_stats.h"
#include "harness/runtime/crash_record.h"
#include "harness/runtime/rank_outcome_codec.h"
#include "harness/runtime/run_plan.h"

namespace gh {
namespace {

class Idle : public Scenario {
 public:
  RankOutcome Run(PointContext&) override { return {}; }
};

// A kind shaped like ring_shift: five parameters, host backend.
const ScenarioRegistry& Registry() {
  static const ScenarioRegistry* registry = [] {
    auto* r = new ScenarioRegistry();
    KindInfo kind;
    kind.name = "ring_like";
    auto add = [&](const char* name, ParamType type, ParamValue value,
                   std::vector<std::string> choices = {}) {
      ParamDef def;
      def.name = name;
      def.type = type;
      def.default_value = value;
      def.choices = std::move(choices);
      kind.params.push_back(def);
    };
    add("bytes", ParamType::kBytes, int64_t{4096});
    add("dtype", ParamType::kEnum, std::string("f32"), {"f32", "bf16", "i32", "f64"});
    add("transport", ParamType::kEnum, std::string("mpi_p2p"), {"mpi_p2p", "mpi_put"});
    add("fault", ParamType::kEnum, std::string("none"), {"none", "stall"});
    add("fault_rank", ParamType::kInt, int64_t{1});
    kind.backends = {Backend::kHost};
    kind.make = [] { return std::make_unique<Idle>(); };
    r->Register(std::move(kind));
    return r;
  }();
  return *registry;
}

// 1000 points: 125 sizes x 4 dtypes x 2 transports, with an expectation rule to evaluate.
constexpr char kScenario[] =
    "name: overhead\nkind: ring_like\nparams:\n  bytes: [RANGE]\n  dtype: [f32, bf16, i32, f64]\n"
    "  transport: [mpi_p2p, mpi_put]\nwarmup: 0\niterations: 1\nexpect:\n"
    "  - when: {transport: mpi_put, dtype: f64}\n    outcome: pass\n    reason: bench\n";

std::vector<LoadedScenario> LoadBenchScenario() {
  std::string sizes;
  for (int i = 1; i <= 125; ++i) sizes += (i > 1 ? ", " : "") + std::to_string(i * 8);
  std::string text = kScenario;
  text.replace(text.find("RANGE"), 5, sizes);
  absl::StatusOr<std::vector<ScenarioSpec>> specs = LoadScenarioText(text, "bench.yaml", Registry());
  if (!specs.ok()) {
    std::fprintf(stderr, "%s\n", std::string(specs.status().message()).c_str());
    std::abort();
  }
  return {LoadedScenario{"bench.yaml", std::move((*specs)[0])}};
}

RankOutcome TinyPayloadOutcome(int rank) {
  RankOutcome outcome;
  outcome.rank = rank;
  outcome.host = "node-0";
  outcome.metrics = TimingMetrics(SummarizeTimings({3.5}), 4096);
  return outcome;
}

void BM_PlanThousandPoints(benchmark::State& state) {
  const std::vector<LoadedScenario> scenarios = LoadBenchScenario();
  for (auto _ : state) {
    absl::StatusOr<std::vector<PlannedRun>> plan = PlanRuns(scenarios, Registry(), 4, Backend::kHost, "");
    benchmark::DoNotOptimize(plan);
  }
  state.SetItemsProcessed(state.iterations() * 1000);  // items = points
}
BENCHMARK(BM_PlanThousandPoints)->Unit(benchmark::kMillisecond);

void BM_EncodeDecodeRankOutcome(benchmark::State& state) {
  const RankOutcome outcome = TinyPayloadOutcome(1);
  for (auto _ : state) {
    absl::StatusOr<RankOutcome> decoded = DecodeRankOutcome(EncodeRankOutcome(outcome));
    benchmark::DoNotOptimize(decoded);
  }
}
BENCHMARK(BM_EncodeDecodeRankOutcome)->Unit(benchmark::kMicrosecond);

// Everything rank 0 does for one point besides the scenario itself and the MPI transfer,
// at `nranks` ranks; each iteration is one point of the 1000-point plan.
void BM_PerPointBookkeeping(benchmark::State& state) {
  const int nranks = static_cast<int>(state.range(0));
  const std::vector<LoadedScenario> scenarios = LoadBenchScenario();
  absl::StatusOr<std::vector<PlannedRun>> plan =
      PlanRuns(scenarios, Registry(), nranks, Backend::kHost, "");
  char path[] = "/tmp/gh_bench_records_XXXXXX";
  const int fd = mkstemp(path);
  close(fd);
  absl::StatusOr<RecordsWriter> writer = RecordsWriter::Open(path);
  EnvironmentFacts facts;
  facts.values = {{"backend", "host"}, {"nranks", std::to_string(nranks)}};
  std::vector<RankOutcome> outcomes;
  for (int r = 0; r < nranks; ++r) outcomes.push_back(TinyPayloadOutcome(r));
  size_t index = 0;
  for (auto _ : state) {
    const PlannedRun& run = (*plan)[index++ % plan->size()];
    // Rank 0 pre-renders the crash record before the point runs.
    Record crash = RecordFor(run, facts);
    crash.result.ranks = outcomes;
    benchmark::DoNotOptimize(RenderCrashRecordTemplate(std::move(crash)));
    // Every rank encodes its outcome; rank 0 decodes them all (the gather's payload).
    std::vector<RankOutcome> gathered;
    gathered.reserve(nranks);
    for (const RankOutcome& outcome : outcomes) {
      gathered.push_back(*DecodeRankOutcome(EncodeRankOutcome(outcome)));
    }
    Record record = RecordFor(run, facts);
    record.started_at = Rfc3339Utc(absl::Now());
    SetResult(record, ReduceRankOutcomes(std::move(gathered)));
    benchmark::DoNotOptimize(writer->Append(record));
  }
  state.SetItemsProcessed(state.iterations());
  unlink(path);
}
BENCHMARK(BM_PerPointBookkeeping)->Arg(1)->Arg(4)->Arg(64)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace gh

BENCHMARK_MAIN();
