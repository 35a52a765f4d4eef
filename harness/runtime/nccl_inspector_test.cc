// The job's side of NCCL's Inspector: when it runs (the environment NCCL reads), why it does
// not, and rank 0's per-point reading of the ranks' dump files.
#include "harness/runtime/nccl_inspector.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "harness/core/file_util.h"
#include "harness/core/testdata/nccl_inspector_sample.h"

namespace gh {
namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "<unset>" : value;
}

class NcclInspectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/nccl_inspector_test_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    ASSERT_EQ(std::system(("rm -rf '" + dir_ + "'").c_str()), 0);
    ASSERT_TRUE(MakeDirectories(dir_).ok());
    plugin_ = dir_ + "/libnccl-profiler-inspector.so";
    std::ofstream(plugin_) << "not really a library";
    for (const char* name : kVariables) unsetenv(name);
  }
  void TearDown() override {
    for (const char* name : kVariables) unsetenv(name);
  }
  void Append(const std::string& file, const std::string& text) {
    std::ofstream(dir_ + "/nccl_inspector/" + file, std::ios::app) << text;
  }
  NcclInspector StartRunning() {
    NcclInspector inspector = NcclInspector::Start(NcclInspectorRequest{true, true, plugin_, dir_});
    EXPECT_TRUE(inspector.running()) << inspector.note();
    return inspector;
  }

  static constexpr const char* kVariables[] = {
      "GH_NCCL_INSPECTOR_PLUGIN", "NCCL_PROFILER_PLUGIN", "NCCL_INSPECTOR_ENABLE",
      "NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS", "NCCL_INSPECTOR_DUMP_DIR"};
  std::string dir_;
  std::string plugin_;
};

TEST_F(NcclInspectorTest, NotAskedDoesNothing) {
  NcclInspector inspector = NcclInspector::Start(NcclInspectorRequest{false, true, plugin_, dir_});
  EXPECT_FALSE(inspector.running());
  EXPECT_EQ(inspector.note(), "");
  EXPECT_EQ(Env("NCCL_PROFILER_PLUGIN"), "<unset>");
}

TEST_F(NcclInspectorTest, HostBackendSaysItHasNoNccl) {
  NcclInspector inspector = NcclInspector::Start(NcclInspectorRequest{true, false, plugin_, dir_});
  EXPECT_FALSE(inspector.running());
  EXPECT_EQ(inspector.note(), "not available: host backend (no NCCL)");
  EXPECT_EQ(inspector.TakePoint(2).note, "not available: host backend (no NCCL)");
  EXPECT_EQ(inspector.LastCompletedLine(2), "not available: host backend (no NCCL)");
  EXPECT_EQ(Env("NCCL_PROFILER_PLUGIN"), "<unset>");
}

TEST_F(NcclInspectorTest, NoPluginNamedSaysHowToNameOne) {
  NcclInspector inspector = NcclInspector::Start(NcclInspectorRequest{true, true, "", dir_});
  EXPECT_FALSE(inspector.running());
  EXPECT_EQ(inspector.note(),
            "not available: no plugin named (set GH_NCCL_INSPECTOR_PLUGIN or run --nccl-inspector "
            "to libnccl-profiler-inspector.so; scripts/build-nccl-inspector.sh builds it)");
}

TEST_F(NcclInspectorTest, MissingPluginFileIsNamed) {
  setenv("GH_NCCL_INSPECTOR_PLUGIN", "/nonexistent/libnccl-profiler-inspector.so", 1);
  NcclInspector inspector = NcclInspector::Start(NcclInspectorRequest{true, true, "", dir_});
  EXPECT_FALSE(inspector.running());
  EXPECT_EQ(inspector.note(),
            "not available: /nonexistent/libnccl-profiler-inspector.so: No such file or directory");
}

TEST_F(NcclInspectorTest, RunningSetsNcclsVariablesTheFlagBeforeTheEnvironment) {
  setenv("GH_NCCL_INSPECTOR_PLUGIN", "/nonexistent/other.so", 1);
  setenv("NCCL_PROFILER_PLUGIN", "/somewhere/else.so", 1);
  NcclInspector inspector = StartRunning();
  EXPECT_EQ(inspector.note(), "");
  EXPECT_EQ(inspector.dump_dir(), dir_ + "/nccl_inspector");
  EXPECT_EQ(Env("NCCL_PROFILER_PLUGIN"), plugin_);
  EXPECT_EQ(Env("NCCL_INSPECTOR_ENABLE"), "1");
  EXPECT_EQ(Env("NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS"), "1000");
  EXPECT_EQ(Env("NCCL_INSPECTOR_DUMP_DIR"), dir_ + "/nccl_inspector");
}

TEST_F(NcclInspectorTest, EachPointReadsOnlyTheLinesAppendedSinceTheLastOne) {
  NcclInspector inspector = StartRunning();
  EXPECT_EQ(inspector.TakePoint(2, /*settle=*/false).note,
            "no dump file in " + dir_ +
                "/nccl_inspector: NCCL did not load the plugin (NCCL_DEBUG=INFO shows PROFILER/Plugin)");
  Append("h-pid2.log", "");
  EXPECT_EQ(inspector.TakePoint(2).note,
            "no collective recorded in this point: the Inspector reports collectives only (not send/recv)");
  EXPECT_EQ(inspector.TakePoint(1).note,
            "no collective recorded: NCCL runs a 1-rank collective without profiler events, so the "
            "Inspector sees none (run 2 ranks or more)");

  Append("h-pid2.log", testdata::kInspectorRank1Dump);  // five lines and a partial one
  NcclInspectorView first = inspector.TakePoint(2);
  EXPECT_EQ(first.note, "");
  ASSERT_EQ(first.collectives.size(), 2u);
  EXPECT_EQ(first.collectives[0].coll, "AllReduce");
  EXPECT_EQ(first.collectives[0].count, 3);
  EXPECT_EQ(first.collectives[1].coll, "AllGather");
  EXPECT_EQ(first.collectives[1].count, 2);
  EXPECT_EQ(inspector.LastCompletedLine(2), "rank 0: none seen; rank 1: AllGather #1 (4K)");

  // The partial line completed, and rank 0's first line: only they make the next point.
  Append("h-pid2.log",
         R"(271,"hostname":"h","pid":2},"coll_perf":{"coll":"AllGather","coll_sn":2,)"
         R"("coll_msg_size_bytes":4096,"coll_exec_time_us":11,"coll_algobw_gbs":0.7,"coll_busbw_gbs":0.35}})"
         "\n");
  Append("h-pid1.log",
         R"({"header":{"id":"0x5a3c9e1f2b7d40","rank":0,"n_ranks":2,"nnodes":1},"metadata":{"dump_timestamp_us":5},)"
         R"("coll_perf":{"coll":"AllGather","coll_sn":2,"coll_msg_size_bytes":4096,"coll_exec_time_us":13,)"
         R"("coll_algobw_gbs":0.6,"coll_busbw_gbs":0.3}})"
         "\n");
  NcclInspectorView second = inspector.TakePoint(2);
  EXPECT_EQ(second.note, "");
  ASSERT_EQ(second.collectives.size(), 1u);
  EXPECT_EQ(second.collectives[0].coll, "AllGather");
  EXPECT_EQ(second.collectives[0].count, 1);  // both ranks' line of AllGather #2
  EXPECT_EQ(second.collectives[0].ranks, (std::vector<int>{0, 1}));
  EXPECT_EQ(second.collectives[0].first_sn, 2u);
  EXPECT_DOUBLE_EQ(second.collectives[0].exec_us_median, 12.0);
  EXPECT_EQ(inspector.LastCompletedLine(2), "rank 0: AllGather #2 (4K); rank 1: AllGather #2 (4K)");
  EXPECT_EQ(inspector.TakePoint(2).note,
            "no collective recorded in this point: the Inspector reports collectives only (not send/recv)");
}

TEST_F(NcclInspectorTest, AnUnreadableDumpIsNamedAndTheOtherFilesStillCount) {
  NcclInspector inspector = StartRunning();
  Append("h-pid2.log", testdata::kInspectorRank1Dump);
  Append("h-pid3.log", "garbage\n");
  NcclInspectorView view = inspector.TakePoint(2);
  EXPECT_EQ(view.note, "unreadable dump: " + dir_ + "/nccl_inspector/h-pid3.log:1: not valid JSON");
  ASSERT_EQ(view.collectives.size(), 2u);
}

TEST_F(NcclInspectorTest, APreviousJobsFileIsIgnored) {
  ASSERT_TRUE(MakeDirectories(dir_ + "/nccl_inspector").ok());
  Append("old-pid9.log", testdata::kInspectorRank1Dump);
  ASSERT_EQ(std::system(("touch -d '1 hour ago' '" + dir_ + "/nccl_inspector/old-pid9.log'").c_str()), 0);
  NcclInspector inspector = StartRunning();
  EXPECT_TRUE(inspector.TakePoint(2, /*settle=*/false).collectives.empty());
}

}  // namespace
}  // namespace gh
