#include "harness/driver/slurm_submit.h"

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gh::driver {
namespace {

using ::testing::ElementsAre;

TEST(SlurmSubmitTest, TheBatchJobRunsTheSameSweepWithoutSlurm) {
  std::vector<std::string> args = {"sweep", "m.yaml", "--slurm", "-N 3 --exclusive", "--out", "o",
                                   "--slurm=-N 2", "-v"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  EXPECT_THAT(WithoutSlurmFlag(static_cast<int>(argv.size()), argv.data(), "/bin/gpuharness"),
              ElementsAre("/bin/gpuharness", "sweep", "m.yaml", "--out", "o", "-v"));
}

TEST(SlurmSubmitTest, SbatchWaitsAndWrapsTheQuotedSweep) {
  EXPECT_EQ(SbatchCommand("-N 3 --exclusive", {"/bin/gpuharness", "sweep", "a b.yaml", "--out", "/o"},
                          "/o/slurm-sweep.log"),
            "sbatch --wait --parsable --output=/o/slurm-sweep.log --job-name=gpuharness-sweep -N 3 --exclusive "
            "--wrap 'exec /bin/gpuharness sweep '\\''a b.yaml'\\'' --out /o'");
}

TEST(SlurmSubmitTest, OnlyTheStatesAJobEndsInAreSettled) {
  for (const char* state : {"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY",
                            "PREEMPTED", "BOOT_FAIL", "DEADLINE"}) {
    EXPECT_TRUE(IsSettledJobState(state)) << state;
  }
  for (const char* state : {"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "STAGE_OUT", "SIGNALING",
                            "SUSPENDED", "REQUEUED"}) {
    EXPECT_FALSE(IsSettledJobState(state)) << state;
  }
}

// The loaded-machine case: scancel'd, and scontrol says COMPLETING twice before CANCELLED.
TEST(SlurmSubmitTest, ACompletingJobIsReadAgainUntilItSettles) {
  std::vector<std::string> states = {"COMPLETING", "COMPLETING", "CANCELLED", "never read"};
  size_t reads = 0;
  auto read = [&] { return states[reads++]; };
  EXPECT_EQ(SettledJobState(read, absl::Seconds(10), absl::Milliseconds(1)), "CANCELLED");
  EXPECT_EQ(reads, 3u);
}

TEST(SlurmSubmitTest, AForgottenJobOrAnExhaustedPatienceGivesTheLastStateRead) {
  size_t reads = 0;
  EXPECT_EQ(SettledJobState([&] { ++reads; return std::string(); }, absl::Seconds(10), absl::Milliseconds(1)), "");
  EXPECT_EQ(reads, 1u);
  reads = 0;
  EXPECT_EQ(SettledJobState([&] { ++reads; return std::string("COMPLETING"); }, absl::Milliseconds(30),
                            absl::Milliseconds(5)),
            "COMPLETING");
  EXPECT_GE(reads, 2u);
}

// The lines slurmstepd writes on the batch host (src/slurmd/slurmstepd/req.c), as the log has
// them; a step the sweep itself cancelled (a cell's timeout), another job's line, a cut line or a
// sweep that ran to its end say nothing.
TEST(SlurmSubmitTest, SlurmstepdsLineNamesHowSlurmEndedTheJob) {
  const std::string sweep = "sweep packing: 8 cells (0 already done), Slurm job 2\n[1/8] cell=b2: 1/1 pass\n";
  const std::string job = "slurmstepd-ghnode1: error: *** JOB 2 ON ghnode1 CANCELLED AT 2026-12-03T12:01:50";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {sweep + job + " ***\n", "CANCELLED"},
      {job + " DUE TO TIME LIMIT ***", "TIMEOUT"},
      {job + " DUE TO PREEMPTION ***\n", "PREEMPTED"},
      {job + " DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***\r\n", "NODE_FAIL"},
      {job + " DUE TO JOB REQUEUE ***\n", "REQUEUED"},
      {"slurmstepd: error: *** STEP 2.3 ON ghnode3 CANCELLED AT 2026-12-03T12:01:50 ***\n", ""},
      {"slurmstepd: error: *** JOB 21 ON ghnode1 CANCELLED AT 2026-12-03T12:01:50 ***\n", ""},
      {job + "\n", ""},
      {sweep + "cells: 8 run, 0 resumed, 0 set-up failed, 0 with failures\n", ""},
      {"", ""}};
  for (const auto& [log, state] : cases) EXPECT_EQ(SlurmstepdEnding(log, "2"), state) << log;
}
}  // namespace
}  // namespace gh::driver
