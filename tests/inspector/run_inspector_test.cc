// NCCL's Inspector asked for where it cannot run (docs/explanation/hangs.md): the host backend has no
// NCCL, and the record and the hang report say so plainly; a bad value of the scenario key is
// bad input naming file:line:column and the key.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/common/harness_run.h"

namespace gh::testing {
namespace {

constexpr char kNoNccl[] = "not available: host backend (no NCCL)";

TEST(InspectorHost, AskingOnTheHostBackendSaysThereIsNoNccl) {
  const HarnessRun job = RunHarness(1, "tests/inspector/host_sliced_inspector.yaml", "host");
  EXPECT_EQ(job.exit_code, 0) << job.console;
  const std::vector<Record> records = ReadRecords(job);
  ASSERT_EQ(records.size(), 1u) << job.console;
  EXPECT_EQ(records[0].result.outcome, Outcome::kPass) << records[0].result.signature;
  EXPECT_EQ(records[0].nccl_inspector.note, kNoNccl);
  EXPECT_TRUE(records[0].nccl_inspector.collectives.empty());
  EXPECT_TRUE(records[0].nccl_inspector.last.empty());
  // The plain reason is also in the reports, beside the point.
  HarnessOptions report;
  report.args = "report " + job.out_dir;
  EXPECT_EQ(RunHarness(report).exit_code, 0);
  const std::string summary = ReadWholeFile(job.out_dir + "/summary.md");
  EXPECT_NE(summary.find("NCCL Inspector (1)"), std::string::npos) << summary;
  EXPECT_NE(summary.find(kNoNccl), std::string::npos) << summary;
  // Nothing was set up for NCCL: no dump directory.
  EXPECT_FALSE(ReadWholeFile(job.out_dir + "/environment.json").find("NCCL_PROFILER_PLUGIN") !=
               std::string::npos);
}

TEST(InspectorHost, AHostStallsHangReportSaysWhyItHasNoInspectorLine) {
  const HarnessRun job = RunHarness(2, "tests/inspector/host_stall_inspector.yaml", "host");
  EXPECT_EQ(job.exit_code, 0) << "the expected timeout was met\n" << job.console;
  const std::vector<Record> records = ReadRecords(job);
  ASSERT_EQ(records.size(), 1u) << job.console;
  EXPECT_EQ(records[0].result.outcome, Outcome::kTimeout);
  EXPECT_EQ(records[0].result.hang.nccl_inspector, kNoNccl);
  EXPECT_EQ(records[0].nccl_inspector.note, kNoNccl);
  const std::string junit = ReadWholeFile(job.out_dir + "/junit.xml");
  EXPECT_NE(junit.find(std::string("NCCL Inspector: ") + kNoNccl), std::string::npos) << junit;
}

TEST(InspectorHost, ABadValueIsBadInputNamingFileLineColumnAndKey) {
  const HarnessRun job = RunHarness(1, "tests/inspector/bad_value.yaml", "host");
  EXPECT_EQ(job.exit_code, 2) << job.console;
  EXPECT_NE(job.console.find("tests/inspector/bad_value.yaml:5:17: nccl_inspector: expected true "
                             "or false, got 'yes please'"),
            std::string::npos)
      << job.console;
  EXPECT_EQ(ReadWholeFile(job.out_dir + "/records.jsonl"), "") << "nothing half-written";
}

}  // namespace
}  // namespace gh::testing
