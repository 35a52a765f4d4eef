#include "harness/driver/slurm_node_failure.h"

#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/driver/job_failure_kind.h"

namespace gh::driver {
namespace {

using ::testing::ElementsAre;

std::string Log(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "/slurm_node_failure_" + name + ".log";
  std::ofstream(path) << text;
  return path;
}

TEST(SlurmNodeFailureTest, NamesTheNodeSrunSaysFailed) {
  // As srun 22.05 printed it on the test cluster when ghnode2's slurmd and steps were killed.
  std::optional<SlurmNodeFailure> f = FindSlurmNodeFailure(
      Log("one", "gpuharness: 2 point runs\nsrun: error: Node failure on ghnode2\n"));
  ASSERT_TRUE(f.has_value());
  EXPECT_THAT(f->nodes, ElementsAre("ghnode2"));
  EXPECT_EQ(f->line, "srun: error: Node failure on ghnode2");
}

TEST(SlurmNodeFailureTest, ExpandsAHostList) {
  std::optional<SlurmNodeFailure> f =
      FindSlurmNodeFailure(Log("list", "  srun: error: Node failure on gpu[07-08],login1  \n"));
  ASSERT_TRUE(f.has_value());
  EXPECT_THAT(f->nodes, ElementsAre("gpu07", "gpu08", "login1"));
  EXPECT_EQ(f->line, "srun: error: Node failure on gpu[07-08],login1");
}

TEST(SlurmNodeFailureTest, OtherSrunErrorsAreNoNodeFailure) {
  EXPECT_FALSE(FindSlurmNodeFailure(Log("other",
      "srun: error: Step requested GRES but job doesn't have GRES\n"
      "srun: error: ghnode1: task 0: Killed\n"
      "a rank said: srun: error: Node failure on ghnode2\n")).has_value());
  EXPECT_FALSE(FindSlurmNodeFailure(Log("bad", "srun: error: Node failure on ghnode[2-\n")).has_value());
  EXPECT_FALSE(FindSlurmNodeFailure(::testing::TempDir() + "/no_such.log").has_value());
}

TEST(SlurmNodeFailureTest, IsInfrastructureEvenAfterTheJobRecordedRuns) {
  // srun exits 0 after a node failure; the ranks on the dead node were SIGKILLed with it.
  JobEnd end;
  end.exit.code = 0;
  end.log_path = Log("classify", "srun: error: Node failure on ghnode3\n");
  end.run_dir = ::testing::TempDir() + "/slurm_node_failure_no_run_dir";
  for (size_t recorded : {0u, 3u}) {
    const JobFailure f = ClassifyJobFailure(end, recorded);
    EXPECT_EQ(f.kind, JobFailureKind::kInfrastructure);
    EXPECT_EQ(f.outcome, Outcome::kInfra);
    EXPECT_EQ(f.signature, "infrastructure: srun: error: Node failure on ghnode3 (job exited with status 0)");
  }
}

}  // namespace
}  // namespace gh::driver
