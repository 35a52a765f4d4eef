// GPU (docs/explanation/hangs.md): 2 ranks sharing one GPU run AllReduce points under NCCL's Inspector
// plugin; every point's record carries the per-collective summary, with count == the number
// of collectives issued where one per point ran, and NCCL's sequence numbers that account for
// every collective where the plugin sampled fewer. At a timeout the hang report
// names each rank's last completed collective. Skips (77) without a GPU or without a plugin
// (GH_NCCL_INSPECTOR_PLUGIN; scripts/build-nccl-inspector.sh builds one).
#include <cstdlib>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/runtime/cuda_resources.h"
#include "tests/common/harness_run.h"

namespace gh::testing {
namespace {

constexpr uint64_t kSliceBytes = 15 * 256 * 4;  // rows [0,15) of f32[19,256]

std::string Plugin() {
  const char* plugin = std::getenv("GH_NCCL_INSPECTOR_PLUGIN");
  return plugin == nullptr ? "" : plugin;
}

// summary.md, as `gpuharness report DIR` writes it.
std::string SummaryOf(const HarnessRun& job) {
  HarnessOptions report;
  report.args = "report " + job.out_dir;
  EXPECT_EQ(RunHarness(report).exit_code, 0);
  return ReadWholeFile(job.out_dir + "/summary.md");
}

HarnessRun RunUnderInspector(const std::vector<std::string>& yamls) {
  HarnessOptions options;
  options.np = 2;
  options.yamls = yamls;
  options.backend = "cuda";
  options.share_gpu = true;
  options.mpirun_env = {"NCCL_NVLS_ENABLE", "OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"};
  options.args = "--nccl-inspector " + Plugin();  // the flag, not the environment
  return RunHarness(options);
}

// The one AllReduce group of a record, both ranks reporting it.
const InspectorCollSummary* OnlyAllReduce(const Record& record) {
  EXPECT_EQ(record.result.outcome, Outcome::kPass) << record.point << ": " << record.result.signature;
  EXPECT_EQ(record.nccl_inspector.note, "") << record.point;
  EXPECT_EQ(record.nccl_inspector.collectives.size(), 1u) << record.point;
  if (record.nccl_inspector.collectives.size() != 1) return nullptr;
  const InspectorCollSummary& c = record.nccl_inspector.collectives[0];
  EXPECT_EQ(c.coll, "AllReduce") << record.point;
  EXPECT_EQ(c.bytes, kSliceBytes) << record.point;
  EXPECT_EQ(c.ranks, (std::vector<int>{0, 1})) << record.point;
  EXPECT_GT(c.exec_us_max, 0) << record.point;
  EXPECT_LE(c.exec_us_min, c.exec_us_median);
  EXPECT_LE(c.exec_us_median, c.exec_us_max);
  EXPECT_GT(c.busbw_gbs_median, 0) << record.point;
  EXPECT_EQ(record.nccl_inspector.last.size(), 2u) << record.point;
  return &c;
}

TEST(InspectorGpu, TwoRanksSharingTheGpuRecordEveryCollective) {
  const HarnessRun job = RunUnderInspector(
      {"tests/inspector/gpu_all_reduce_once.yaml", "tests/inspector/gpu_all_reduce_many.yaml"});
  ASSERT_EQ(job.exit_code, 0) << job.console;
  const std::vector<Record> records = ReadRecords(job);
  const std::vector<Record> once = RecordsOf(records, "inspector_once");
  const std::vector<Record> many = RecordsOf(records, "inspector_many");
  ASSERT_EQ(once.size(), 3u) << job.console;
  ASSERT_EQ(many.size(), 1u) << job.console;

  uint64_t previous_sn = 0;
  for (size_t i = 0; i < once.size(); ++i) {
    SCOPED_TRACE(once[i].point);
    const InspectorCollSummary* c = OnlyAllReduce(once[i]);
    ASSERT_NE(c, nullptr);
    // One AllReduce per point: both ranks' lines are that one collective.
    EXPECT_EQ(c->count, 1);
    EXPECT_EQ(c->first_sn, c->last_sn);
    if (i > 0) {
      EXPECT_EQ(c->last_sn, previous_sn + 1);
    }
    previous_sn = c->last_sn;
  }
  const InspectorCollSummary* c = OnlyAllReduce(many[0]);
  ASSERT_NE(c, nullptr);
  // warmup 4 + iterations 16 AllReduces: the sequence number moved on by 20 on both ranks;
  // the plugin samples, so it may have seen fewer than the 20.
  EXPECT_EQ(c->last_sn, previous_sn + 20);
  for (const InspectorLastCompleted& last : many[0].nccl_inspector.last) {
    EXPECT_EQ(last.coll, "AllReduce");
    EXPECT_EQ(last.sn, previous_sn + 20) << "rank " << last.rank;
  }
  EXPECT_GE(c->count, 1);
  EXPECT_LE(c->count, 20);
  EXPECT_EQ(c->last_sn, many[0].nccl_inspector.last[0].sn);
  std::printf("inspector_many: the Inspector saw %d of 20 AllReduces, exec %.0f us median\n",
              c->count, c->exec_us_median);

  const std::string summary = SummaryOf(job);
  EXPECT_NE(summary.find("NCCL Inspector (4)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("AllReduce 15K x1: "), std::string::npos) << summary;
}

TEST(InspectorGpu, AStallsHangReportNamesEachRanksLastCompletedCollective) {
  const HarnessRun job = RunUnderInspector(
      {"tests/inspector/gpu_all_reduce_once.yaml", "tests/inspector/gpu_stall_inspector.yaml"});
  EXPECT_EQ(job.exit_code, 0) << "the expected timeout was met\n" << job.console;
  const std::vector<Record> records = ReadRecords(job);
  const std::vector<Record> once = RecordsOf(records, "inspector_once");
  const std::vector<Record> stall = RecordsOf(records, "inspector_stall");
  ASSERT_EQ(once.size(), 3u) << job.console;
  ASSERT_EQ(stall.size(), 1u) << job.console;
  const InspectorCollSummary* c = OnlyAllReduce(once.back());
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(stall[0].result.outcome, Outcome::kTimeout);
  const std::string sn = std::to_string(c->last_sn);
  EXPECT_EQ(stall[0].result.hang.nccl_inspector,
            "rank 0: AllReduce #" + sn + " (15K); rank 1: AllReduce #" + sn + " (15K)");
  // ring_shift's exchange is ncclSend/ncclRecv, which the Inspector does not report.
  EXPECT_EQ(stall[0].nccl_inspector.note,
            "no collective recorded in this point: the Inspector reports collectives only (not send/recv)");
  const std::string junit = ReadWholeFile(job.out_dir + "/junit.xml");
  EXPECT_NE(junit.find("NCCL Inspector: rank 0: AllReduce #" + sn), std::string::npos) << junit;
}

}  // namespace
}  // namespace gh::testing

int main(int argc, char** argv) {
  bool listing = false;
  for (int i = 1; i < argc; ++i) listing = listing || std::string(argv[i]) == "--gtest_list_tests";
  if (!listing && gh::testing::Plugin().empty()) {
    std::printf("SKIP: no NCCL Inspector plugin: set GH_NCCL_INSPECTOR_PLUGIN to "
                "libnccl-profiler-inspector.so (scripts/build-nccl-inspector.sh builds it)\n");
    return gh::testing::kSkipExitCode;
  }
  return gh::testing::GpuTestMain(argc, argv, gh::VisibleGpuCount);
}
