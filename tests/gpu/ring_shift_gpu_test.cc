// Whole-binary GPU tests: `gpuharness run` on the cuda backend, at 1 rank and with 2 and 4 ranks
// sharing one GPU (--share-gpu), asserting the records rank by rank. Where no GPU is visible the
// binary prints why and exits 77, which CTest reports as skipped (tests/gpu.cmake).
#include <stdlib.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "harness/runtime/cuda_resources.h"
#include "nlohmann/json.hpp"
#include "tests/common/harness_run.h"

namespace gh::testing {
namespace {

// Every point passed on every rank, each rank on the GPU its local rank maps to, with timings.
void ExpectAllPass(int np, const HarnessRun& run) {
  EXPECT_EQ(run.exit_code, 0) << run.console;
  std::vector<Record> records = ReadRecords(run);
  ASSERT_EQ(records.size(), 8u) << run.console;  // bytes {1000, 1M} x dtype {f32, bf16, i32, f64}
  const int gpus = VisibleGpuCount();
  std::set<std::string> points;
  for (const Record& record : records) {
    SCOPED_TRACE(record.point);
    points.insert(record.point);
    EXPECT_EQ(record.backend, "cuda");
    EXPECT_EQ(record.nranks, np);
    EXPECT_EQ(record.gpu_shared, np > gpus);
    ASSERT_NO_FATAL_FAILURE(ExpectPassedOnEveryRank(record, np));
    for (const RankOutcome& rank : record.result.ranks) {
      EXPECT_EQ(rank.device, rank.rank % gpus);  // one node: local rank = rank
      EXPECT_GT(MetricOr(rank.metrics, "bandwidth_GBps", -1), 0);
      EXPECT_GT(MetricOr(rank.metrics, "time_median_us", -1), 0);
      EXPECT_EQ(MetricOr(rank.metrics, "iterations", -1), 5);
    }
  }
  EXPECT_EQ(points.size(), 8u);
  EXPECT_EQ(points.count("gpu_ring_shift/bytes=1M/dtype=bf16/transport=nccl_p2p/np=" + std::to_string(np)), 1u);

  // The environment names the GPU and the NCCL that ran.
  nlohmann::json env = nlohmann::json::parse(ReadWholeFile(run.out_dir + "/environment.json"),
                                             nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(env.is_discarded());
  EXPECT_EQ(env.value("backend", ""), "cuda");
  EXPECT_EQ(env.value("gpu_shared", false), np > gpus);
  ASSERT_TRUE(env.contains("gpus") && env["gpus"].is_array() && !env["gpus"].empty());
  EXPECT_FALSE(env["gpus"][0].value("name", "").empty());
  EXPECT_FALSE(env.value("nccl_runtime", "").empty());
  EXPECT_FALSE(env.value("driver_version", "").empty());
  EXPECT_EQ(env.value("env", nlohmann::json::object()).value("NCCL_NVLS_ENABLE", ""), "0");
}

// `text` as NAME.yaml in a fresh temporary directory; its path, or "" when none could be made.
std::string WriteTempYaml(const std::string& name, const std::string& text) {
  std::string dir_template = "/tmp/gh_ring_shift_" + name + "_XXXXXX";
  if (mkdtemp(dir_template.data()) == nullptr) return "";
  const std::string yaml = dir_template + "/" + name + ".yaml";
  std::ofstream(yaml) << text;
  return yaml;
}

TEST(RingShiftGpu, OneRankAllDtypesPass) {
  ExpectAllPass(1, RunHarness(1, "tests/gpu/ring_shift_pass.yaml", "cuda"));
}
TEST(RingShiftGpu, TwoRanksSharingTheGpuPass) {
  ExpectAllPass(2, RunHarness(2, "tests/gpu/ring_shift_pass.yaml", "cuda"));
}
TEST(RingShiftGpu, FourRanksSharingTheGpuPass) {
  ExpectAllPass(4, RunHarness(4, "tests/gpu/ring_shift_pass.yaml", "cuda"));
}

TEST(RingShiftGpu, CorruptElementFailsNamingTheRank) {
  HarnessRun run = RunHarness(2, "tests/gpu/ring_shift_corrupt.yaml", "cuda");
  EXPECT_EQ(run.exit_code, 0) << run.console;  // `expect: fail` was met
  std::vector<Record> records = ReadRecords(run);
  ASSERT_EQ(records.size(), 2u);
  for (const Record& record : records) {
    SCOPED_TRACE(record.point);
    EXPECT_EQ(record.result.outcome, Outcome::kFail);
    EXPECT_TRUE(record.matched);
    EXPECT_NE(record.result.signature.find('1'), std::string::npos) << record.result.signature;
    ASSERT_EQ(record.result.ranks.size(), 2u);
    EXPECT_EQ(record.result.ranks[0].outcome, Outcome::kPass);
    const RankOutcome& bad = record.result.ranks[1];
    EXPECT_EQ(bad.outcome, Outcome::kFail);
    ASSERT_TRUE(bad.mismatch.has_value());
    const int64_t count = record.params.value("dtype", "") == "bf16" ? 32768 : 16384;
    EXPECT_EQ(bad.mismatch->wrong_elements, 1);
    EXPECT_EQ(bad.mismatch->checked_elements, count);
    EXPECT_EQ(bad.mismatch->first_index, count / 2);
    EXPECT_NE(bad.mismatch->expected, bad.mismatch->actual);
    EXPECT_NE(bad.mismatch->actual.find("0x"), std::string::npos) << bad.mismatch->actual;
  }
}

TEST(RingShiftGpu, StaleAndPartialBlocksFailWithExactCounts) {
  HarnessRun run = RunHarness(1, "tests/gpu/ring_shift_stale_partial.yaml", "cuda");
  std::vector<Record> records = RecordsOfCleanRun(run, 2u);
  for (const Record& record : records) {
    SCOPED_TRACE(record.point);
    EXPECT_EQ(record.result.outcome, Outcome::kFail);
    ASSERT_EQ(record.result.ranks.size(), 1u);
    const RankOutcome& rank = record.result.ranks[0];
    ASSERT_TRUE(rank.mismatch.has_value());
    EXPECT_EQ(rank.mismatch->checked_elements, 16384);
    if (record.scenario == "gpu_ring_shift_stale") {
      EXPECT_EQ(rank.mismatch->wrong_elements, 16384);  // every element from the older seed
      EXPECT_EQ(rank.mismatch->first_index, 0);
    } else {
      EXPECT_EQ(record.scenario, "gpu_ring_shift_partial");
      EXPECT_EQ(rank.mismatch->wrong_elements, 8192);  // the unwritten second half
      EXPECT_EQ(rank.mismatch->first_index, 8192);
      EXPECT_EQ(rank.mismatch->actual, "-1515870811 (0xa5a5a5a5)");  // the poison
    }
  }
}

TEST(RingShiftGpu, StalledRankTimesOutNamingItsStep) {
  HarnessRun run = RunHarness(2, "tests/gpu/ring_shift_stall.yaml", "cuda");
  EXPECT_LT(run.seconds, 8 + 60) << "the watchdog must end the job soon after the timeout";
  std::vector<Record> records = ReadRecords(run);
  ASSERT_EQ(records.size(), 1u) << run.console;
  const Record& record = records[0];
  EXPECT_EQ(record.result.outcome, Outcome::kTimeout);
  EXPECT_TRUE(record.matched);
  ASSERT_EQ(record.result.ranks.size(), 2u);
  EXPECT_EQ(record.result.ranks[1].outcome, Outcome::kTimeout);
  EXPECT_EQ(record.result.ranks[1].step, "exchange");
}

TEST(RingShiftGpu, LostContextOnOneRankEndsTheJobWithoutAHang) {
  HarnessRun run = RunHarness(2, "tests/gpu/ring_shift_device_fault.yaml", "cuda");
  EXPECT_EQ(run.exit_code, 3) << "no communicator can be built: an infrastructure failure";
  EXPECT_LT(run.seconds, 60) << "the healthy rank must not wait for the lost one";
  std::vector<Record> records = ReadRecords(run);
  ASSERT_EQ(records.size(), 3u) << run.console;
  const Record& faulted = records[0];
  EXPECT_EQ(faulted.result.outcome, Outcome::kError);
  EXPECT_TRUE(faulted.matched) << faulted.result.signature;
  ASSERT_EQ(faulted.result.ranks.size(), 2u);
  EXPECT_EQ(faulted.result.ranks[0].outcome, Outcome::kPass);
  EXPECT_EQ(faulted.result.ranks[1].outcome, Outcome::kError);
  EXPECT_EQ(faulted.result.ranks[1].signature.rfind(
                "cudaErrorIllegalAddress: an illegal memory access was encountered", 0),
            0u)
      << faulted.result.ranks[1].signature;
  EXPECT_EQ(faulted.result.ranks[1].step, "verify");
  for (size_t i = 1; i < records.size(); ++i) {
    EXPECT_EQ(records[i].result.outcome, Outcome::kSkip);
    EXPECT_FALSE(records[i].matched);
    EXPECT_EQ(records[i].result.signature,
              "not run: the NCCL communicator could not be re-created after an error in " +
                  faulted.point + ": the CUDA context of rank 1 is lost");
  }
}

// The copy-engine transport (nccl_ce: cudaMemcpyAsync into the neighbour's symmetric window)
// at 1 rank: a clean block passes with its bandwidth beside the in-run copy's; a half-written
// and a stale block fail with exact counts, as over NCCL send/recv.
TEST(RingShiftGpu, CopyEngineTransportPassesAndPlantedFaultsFail) {
  const std::string point = "kind: ring_shift\nranks: 1\ntimeout: 60s\nwarmup: 1\niterations: 3\n";
  std::ostringstream text;
  text << "name: gpu_ce\n" << point
       << "params: {transport: nccl_ce, dtype: [f32, bf16], bytes: [1000, 1M]}\n"
       << "---\nname: gpu_ce_partial\n" << point
       << "params: {transport: nccl_ce, dtype: i32, bytes: 64K, fault: partial_write, fault_rank: 0}\n"
       << "expect: fail\n"
       << "---\nname: gpu_ce_stale\n" << point
       << "params: {transport: nccl_ce, dtype: i32, bytes: 64K, fault: stale_block, fault_rank: 0}\n"
       << "expect: fail\n";
  const std::string yaml = WriteTempYaml("ce", text.str());
  ASSERT_FALSE(yaml.empty());
  HarnessRun run = RunHarness(1, yaml, "cuda");
  std::vector<Record> records = ReadRecords(run);
  ASSERT_EQ(records.size(), 6u) << run.console;
  if (records[0].result.outcome == Outcome::kSkip) {
    // NCCL without a device communicator at one rank (before 2.28.4): every point says so.
    GTEST_SKIP() << records[0].result.signature;
  }
  EXPECT_EQ(run.exit_code, 0) << run.console;
  for (const Record& record : records) {
    SCOPED_TRACE(record.point);
    ASSERT_EQ(record.result.ranks.size(), 1u);
    const RankOutcome& rank = record.result.ranks[0];
    if (record.scenario == "gpu_ce") {
      ASSERT_EQ(record.result.outcome, Outcome::kPass) << record.result.signature;
      EXPECT_EQ(MetricOr(rank.metrics, "iterations", -1), 3);
      EXPECT_GT(MetricOr(rank.metrics, "bandwidth_GBps", -1), 0);
      EXPECT_GT(MetricOr(rank.metrics, "copy_bandwidth_GBps", -1), 0);
      EXPECT_GT(MetricOr(rank.metrics, "bandwidth_vs_copy", -1), 0);
      EXPECT_GT(MetricOr(rank.metrics, "time_loop_mean_us", -1), 0);
      EXPECT_EQ(MetricOr(rank.metrics, "ctas", -1), -1) << "no kernel of its own";
      continue;
    }
    EXPECT_EQ(record.result.outcome, Outcome::kFail);
    EXPECT_TRUE(record.matched);
    ASSERT_TRUE(rank.mismatch.has_value());
    EXPECT_EQ(rank.mismatch->checked_elements, 16384);
    if (record.scenario == "gpu_ce_partial") {
      EXPECT_EQ(rank.mismatch->wrong_elements, 8192);  // the unwritten second half
      EXPECT_EQ(rank.mismatch->first_index, 8192);
      EXPECT_EQ(rank.mismatch->actual, "0xa5a5a5a5");  // the poison
    } else {
      EXPECT_EQ(record.scenario, "gpu_ce_stale");
      EXPECT_EQ(rank.mismatch->wrong_elements, 16384);  // nothing copied: the poison throughout
      EXPECT_EQ(rank.mismatch->first_index, 0);
    }
  }
}

// The device-initiated stores (nccl_device) at 1 rank, on sizes around the bulk copies' 32 KiB
// chunks (ring_shift_device_kernels.cu; they start at 8 chunks per CTA, 1056 chunks = 33 MiB on
// a 132-SM GPU): under one chunk, whole chunks below the start, the start itself, the start with
// a 4-byte (the tail's word path) and a 592-byte tail, and ~95 MiB. Every element is verified; a
// half-written block (the half is again 1056 chunks) fails with the exact count.
TEST(RingShiftGpu, DeviceStoresAreExactAroundTheBulkChunks) {
  const std::string point = "kind: ring_shift\nranks: 1\ntimeout: 60s\nwarmup: 1\niterations: 3\n";
  const std::vector<int64_t> sizes = {16, 4100, 98308, 34570240, 34603008, 34603012, 34603600,
                                      100000004};
  std::ostringstream text;
  text << "name: gpu_dev_sizes\n" << point << "params: {transport: nccl_device, dtype: i32, bytes: [";
  for (size_t i = 0; i < sizes.size(); ++i) text << (i ? ", " : "") << sizes[i];
  text << "]}\n"
       << "---\nname: gpu_dev_partial\n" << point
       << "params: {transport: nccl_device, dtype: i32, bytes: 69206016, fault: partial_write, fault_rank: 0}\n"
       << "expect: fail\n";
  const std::string yaml = WriteTempYaml("device_sizes", text.str());
  ASSERT_FALSE(yaml.empty());
  HarnessRun run = RunHarness(1, yaml, "cuda");
  std::vector<Record> records = ReadRecords(run);
  ASSERT_EQ(records.size(), sizes.size() + 1) << run.console;
  if (records[0].result.outcome == Outcome::kSkip) {
    // NCCL without a device communicator at one rank (before 2.28.4): every point says so.
    GTEST_SKIP() << records[0].result.signature;
  }
  EXPECT_EQ(run.exit_code, 0) << run.console;
  std::set<int64_t> passed;
  for (const Record& record : records) {
    SCOPED_TRACE(record.point);
    ASSERT_EQ(record.result.ranks.size(), 1u);
    if (record.scenario == "gpu_dev_sizes") {
      EXPECT_EQ(record.result.outcome, Outcome::kPass) << record.result.signature;
      passed.insert(record.params.value("bytes", int64_t{-1}));
      continue;
    }
    EXPECT_EQ(record.result.outcome, Outcome::kFail);
    EXPECT_TRUE(record.matched);
    const RankOutcome& rank = record.result.ranks[0];
    ASSERT_TRUE(rank.mismatch.has_value());
    EXPECT_EQ(rank.mismatch->checked_elements, 17301504);
    EXPECT_EQ(rank.mismatch->wrong_elements, 8650752);  // the unwritten second half
    EXPECT_EQ(rank.mismatch->first_index, 8650752);
  }
  EXPECT_EQ(passed, std::set<int64_t>(sizes.begin(), sizes.end()));
}

// A planted corrupt_element on rank 0 of a 64 KiB f32 block: fail, one wrong element, at the
// block's middle.
void ExpectRankZeroFlippedItsMiddleElement(const Record& record) {
  EXPECT_EQ(record.result.outcome, Outcome::kFail);
  ASSERT_TRUE(record.result.ranks[0].mismatch.has_value());
  EXPECT_EQ(record.result.ranks[0].mismatch->wrong_elements, 1);
  EXPECT_EQ(record.result.ranks[0].mismatch->first_index, 8192);
}

// graph_replays: the timed iterations captured once in a CUDA graph and replayed. At 1 rank and
// with 2 ranks sharing the GPU (over sockets) the point still passes its verification, and the
// graph metrics carry one sample per replay, each the mean over one replay's exchanges; a planted
// corrupt element still fails (the replays come before the verified exchange).
TEST(RingShiftGpu, GraphReplayRecordsOneSamplePerReplayAndStillVerifies) {
  const std::string point = "kind: ring_shift\nranks: {min: 1, max: 2}\ntimeout: 60s\nwarmup: 1\niterations: 4\n";
  std::ostringstream text;
  text << "name: gpu_graph\n" << point
       << "params: {transport: nccl_p2p, dtype: f32, bytes: [1000, 1M], graph_replays: 3}\n"
       << "---\nname: gpu_graph_corrupt\n" << point
       << "params: {transport: nccl_p2p, dtype: f32, bytes: 64K, graph_replays: 3, "
       << "fault: corrupt_element, fault_rank: 0}\n"
       << "expect: fail\n";
  const std::string yaml = WriteTempYaml("graph", text.str());
  ASSERT_FALSE(yaml.empty());
  for (int np : {1, 2}) {
    SCOPED_TRACE("np=" + std::to_string(np));
    for (const Record& record : RecordsOfCleanRun(RunHarness(np, yaml, "cuda"), 3u)) {
      SCOPED_TRACE(record.point);
      ASSERT_EQ(record.result.ranks.size(), static_cast<size_t>(np));
      if (record.scenario == "gpu_graph_corrupt") {
        ExpectRankZeroFlippedItsMiddleElement(record);
        continue;
      }
      ASSERT_NO_FATAL_FAILURE(ExpectPassedOnEveryRank(record, np));
      const double bytes = record.point.find("bytes=1M") != std::string::npos ? 1048576 : 1000;
      for (const RankOutcome& rank : record.result.ranks) {
        EXPECT_GT(MetricOr(rank.metrics, "time_graph_mean_us", -1), 0);
        EXPECT_GT(MetricOr(rank.metrics, "bandwidth_graph_GBps", -1), 0);
        EXPECT_GT(MetricOr(rank.metrics, "time_loop_mean_us", -1), 0);  // the other statistics stay
      }
      // The point's metrics carry the samples.
      const Metric* time = nullptr;
      const Metric* bandwidth = nullptr;
      for (const Metric& m : record.result.metrics) {
        if (m.name == "time_graph_mean_us") time = &m;
        if (m.name == "bandwidth_graph_GBps") bandwidth = &m;
      }
      ASSERT_NE(time, nullptr);
      ASSERT_NE(bandwidth, nullptr);
      EXPECT_EQ(time->unit, "us");
      EXPECT_EQ(bandwidth->unit, "GB/s");
      ASSERT_EQ(time->samples.size(), 3u);
      ASSERT_EQ(bandwidth->samples.size(), 3u);
      for (size_t r = 0; r < 3; ++r) {
        EXPECT_GT(time->samples[r], 0);
        EXPECT_NEAR(bandwidth->samples[r], bytes / (time->samples[r] * 1e3), 1e-9 * bandwidth->samples[r]);
      }
      std::vector<double> sorted = time->samples;
      std::sort(sorted.begin(), sorted.end());
      EXPECT_DOUBLE_EQ(time->value, sorted[1]);  // the median of three
    }
  }
}

// allocator: nccl_p2p's blocks from each device allocator (nccl-tests uses ncclMemAlloc). Every
// one passes at 1 rank and with 2 ranks sharing; a planted corrupt element in ncclMemAlloc
// memory still fails at its index; malloc (a host allocator) is a skip that says why.
TEST(RingShiftGpu, EveryDeviceAllocatorCarriesTheBlocks) {
  for (int np : {1, 2}) {
    SCOPED_TRACE("np=" + std::to_string(np));
    std::set<std::string> passed;
    for (const Record& record :
         RecordsOfCleanRun(RunHarness(np, "tests/gpu/ring_shift_allocators.yaml", "cuda"), 12u)) {
      SCOPED_TRACE(record.point);
      ASSERT_EQ(record.result.ranks.size(), static_cast<size_t>(np));
      if (record.scenario == "gpu_alloc_corrupt") {
        ExpectRankZeroFlippedItsMiddleElement(record);
      } else if (record.scenario == "gpu_alloc_host") {
        EXPECT_EQ(record.result.outcome, Outcome::kSkip);
        EXPECT_EQ(record.result.ranks[0].signature, "allocator malloc runs on the host backend");
      } else {
        ASSERT_NO_FATAL_FAILURE(ExpectPassedOnEveryRank(record, np));
        passed.insert(record.point);
      }
    }
    EXPECT_EQ(passed.size(), 10u);
    const std::string ncclmem =
        "gpu_alloc/bytes=1M/dtype=f32/transport=nccl_p2p/allocator=nccl_mem_alloc/np=" + std::to_string(np);
    EXPECT_EQ(passed.count(ncclmem), 1u) << ::testing::PrintToString(passed);
  }
}

}  // namespace
}  // namespace gh::testing

int main(int argc, char** argv) {
  return gh::testing::GpuTestMain(argc, argv, gh::VisibleGpuCount);
}
