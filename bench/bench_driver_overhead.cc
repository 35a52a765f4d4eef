// The sweep driver's own cost, without the work of the jobs:
//   BM_SweepPerCell: a whole `gpuharness sweep` (plan, launch, poll, collect, write every
//     output) over cells whose job is /bin/true through the direct launcher; reported per cell.
//     Such a job records nothing: infrastructure, so each cell starts 3 times (job_pool.h).
//     Arg 0: cells; arg 1: the poll interval in ms (the latency a finished job may wait).
//   BM_CollectPerPoint: reading a job's records.jsonl and matching it to the expected points,
//     per point (arg: points in the job).
// docs/performance.md has the numbers and how to reproduce them.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "harness/core/file_util.h"
#include "harness/core/records_file.h"
#include "harness/core/registry.h"
#include "harness/core/scenario_loader.h"
#include "harness/driver/cell_records.h"
#include "harness/driver/sweep_outputs.h"
#include "harness/driver/sweep_runner.h"

namespace {

gh::KindInfo DescribeBenchKind() {
  gh::KindInfo k;
  k.name = "bench_kind";
  gh::ParamDef n;
  n.name = "n";
  n.type = gh::ParamType::kInt;
  n.default_value = int64_t{0};
  n.max = 1e9;
  k.params = {n};
  k.backends = {gh::Backend::kHost};
  return k;
}
GH_REGISTER_SCENARIO(bench_kind, DescribeBenchKind);

std::string BenchDir(const std::string& name) {
  std::string dir = (std::filesystem::temp_directory_path() / ("gh_bench_" + name)).string();
  std::filesystem::remove_all(dir);
  gh::MakeDirectories(dir).IgnoreError();
  return dir;
}

// A scenario with `points` points: n = 0..points-1.
std::string ScenarioText(int points) {
  std::string values;
  for (int i = 0; i < points; ++i) absl::StrAppend(&values, i == 0 ? "" : ", ", i);
  return absl::StrCat("name: b\nkind: bench_kind\nparams: {n: [", values, "]}\n");
}

void BM_SweepPerCell(benchmark::State& state) {
  const int cells = static_cast<int>(state.range(0));
  std::string dir = BenchDir("sweep");
  gh::WriteFileAtomically(dir + "/b.yaml", ScenarioText(1)).IgnoreError();
  std::string labels;
  for (int i = 0; i < cells; ++i) absl::StrAppend(&labels, i == 0 ? "" : ", ", "c", i);
  gh::WriteFileAtomically(dir + "/m.yaml",
                          absl::StrCat("name: bench\nscenarios: [b.yaml]\n"
                                       "defaults: {launcher: direct, timeout: 60s}\n"
                                       "axes: [{name: c, values: [", labels, "]}]\n"))
      .IgnoreError();
  gh::driver::PosixProcessRunner runner;
  gh::driver::RealClock clock;
  gh::driver::DriverEnv env;
  env.runner = &runner;
  env.clock = &clock;
  env.resources.slots = 1;  // one cell at a time: the overhead, not the parallelism
  env.base_env = gh::driver::CurrentEnvironment();
  env.progress = std::fopen("/dev/null", "w");
  gh::driver::SweepOptions options;
  options.matrix_path = dir + "/m.yaml";
  options.program = "/bin/true";
  options.poll_interval = absl::Milliseconds(state.range(1));
  int run = 0;
  for (auto _ : state) {
    options.out_dir = absl::StrCat(dir, "/out", run++);
    absl::StatusOr<gh::driver::SweepResult> r = gh::driver::RunSweep(options, env);
    if (!r.ok() || r->cells_run != cells) {
      state.SkipWithError("the sweep failed");
      break;
    }
  }
  std::fclose(env.progress);
  // Seconds of wall time per cell (printed in s; e.g. 5.1m = 5.1 ms).
  state.counters["per_cell"] = benchmark::Counter(
      cells, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_SweepPerCell)->Args({8, 20})->Args({8, 1})->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_CollectPerPoint(benchmark::State& state) {
  const int points = static_cast<int>(state.range(0));
  std::string dir = BenchDir(absl::StrCat("collect", points));
  gh::WriteFileAtomically(dir + "/b.yaml", ScenarioText(points)).IgnoreError();
  std::vector<gh::driver::JobScenarioFile> files(1);
  files[0].path = dir + "/b.yaml";
  files[0].specs = std::make_shared<const std::vector<gh::ScenarioSpec>>(
      *gh::LoadScenarioFile(files[0].path));
  std::vector<gh::driver::ExpectedPoint> expected = *gh::driver::ExpectedPoints(files, 2);
  gh::driver::JobRecordsInfo info{"host", 2, false, {{"proto", "ll"}, {"nccl", "2.28.9"}}};
  // The job's records, as `gpuharness run` writes them: every point passed, with metrics.
  std::vector<gh::Record> written;
  for (const gh::driver::ExpectedPoint& p : expected) {
    gh::Record r = gh::driver::SynthesizedRecord(p, 0, gh::driver::DriverKnownFacts(info), info.cell,
                                                 gh::Outcome::kPass, "");
    r.result.metrics = {{"time_median_us", 12.5, "us"}, {"bandwidth_GBps", 80.25, "GB/s"}};
    for (int rank = 0; rank < 2; ++rank) {
      gh::RankOutcome ro;
      ro.rank = rank;
      ro.host = "node0";
      r.result.ranks.push_back(ro);
    }
    written.push_back(std::move(r));
  }
  gh::MakeDirectories(dir + "/job").IgnoreError();
  gh::WriteFileAtomically(dir + "/job/records.jsonl", gh::RecordsToJsonl(written))
      .IgnoreError();
  gh::driver::JobEnd end;
  end.run_dir = dir + "/job";
  end.log_path = dir + "/job.log";
  for (auto _ : state) {
    absl::StatusOr<std::vector<gh::Record>> records =
        gh::driver::CollectJobRecords(expected, end, info);
    if (!records.ok() || records->size() != expected.size()) {
      state.SkipWithError("collection failed");
      break;
    }
    benchmark::DoNotOptimize(records);
  }
  state.counters["per_point"] = benchmark::Counter(
      points, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_CollectPerPoint)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
