// Issue 15 items 2-4: what a job's end says about the runs it never recorded. Each test is one
// row of ClassifyJobFailure's table, with the launcher's own words in the job's log.
#include "harness/driver/job_failure_kind.h"

#include <signal.h>

#include <filesystem>
#include <string>

#include "gtest/gtest.h"
#include "harness/core/file_util.h"
#include "harness/core/testdata/temp_dir.h"

namespace gh::driver {
namespace {

// Open MPI 4.1's refusal, as `mpirun` prints it without OMPI_ALLOW_RUN_AS_ROOT.
constexpr char kRootRefusal[] =
    "--------------------------------------------------------------------------\n"
    "mpirun has detected an attempt to run as root.\n"
    "\n"
    "Running as root is *strongly* discouraged as any mistake (e.g., in\n"
    "defining TMPDIR) or bug can result in catastrophic damage to the OS\n"
    "--------------------------------------------------------------------------\n";

constexpr char kMpiInitFailure[] =
    "--------------------------------------------------------------------------\n"
    "It looks like MPI_INIT failed for some reason; your parallel process is\n"
    "likely to abort.  There are many reasons that a parallel process can\n"
    "--------------------------------------------------------------------------\n"
    "*** An error occurred in MPI_Init\n";

class JobFailureKindTest : public ::gh::testing::TempDirTest {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.empty());
    end_.log_path = dir_ + "/job.log";
    end_.run_dir = dir_ + "/job";
    ASSERT_TRUE(MakeDirectories(end_.run_dir).ok());
    Log("");
  }
  void Log(const std::string& text) { ASSERT_TRUE(WriteFileAtomically(end_.log_path, text).ok()); }
  void Exited(int code) {
    end_.exit.signaled = false;
    end_.exit.code = code;
  }
  void Killed(int signal) {
    end_.exit.signaled = true;
    end_.exit.signal = signal;
  }
  void ExpectFailure(size_t records, JobFailureKind kind, Outcome outcome,
                     const std::string& signature) {
    const JobFailure got = ClassifyJobFailure(end_, records);
    EXPECT_EQ(got.kind, kind) << got.signature;
    EXPECT_EQ(got.outcome, outcome) << got.signature;
    EXPECT_EQ(got.signature, signature);
  }

  const std::string dir_ = temp_dir();
  JobEnd end_;
};

// Issue 15 item 2: `false` as the launcher. Before, "not recorded: job exited with status 1" was
// a crash, which met `expect: crash`.
TEST_F(JobFailureKindTest, ExitingOneAtOnceWithNoRecordIsInfrastructure) {
  Exited(1);
  ExpectFailure(0, JobFailureKind::kInfrastructure, Outcome::kInfra,
                "infrastructure: job ended before recording anything (empty log) (job exited with "
                "status 1)");
  Log("launcher.sh: no allocation\n");
  ExpectFailure(0, JobFailureKind::kInfrastructure, Outcome::kInfra,
                "infrastructure: job ended before recording anything: launcher.sh: no allocation "
                "(job exited with status 1)");
  Exited(0);
  ExpectFailure(2, JobFailureKind::kInfrastructure, Outcome::kInfra,
                "infrastructure: job ended without recording this run (job exited with status 0)");
}

// Issue 15 item 3: mpirun refusing root quotes mpirun's own line.
TEST_F(JobFailureKindTest, MpirunRefusingRootIsInfrastructureQuotingMpirun) {
  Log(kRootRefusal);
  Exited(1);
  ExpectFailure(0, JobFailureKind::kInfrastructure, Outcome::kInfra,
                "infrastructure: mpirun has detected an attempt to run as root. (job exited with "
                "status 1)");
  Log("prterun has detected an attempt to run as root.\n");  // Open MPI 5
  EXPECT_EQ(LauncherFailureLine(end_.log_path), "prterun has detected an attempt to run as root.");
}

TEST_F(JobFailureKindTest, AMissingLauncherIsInfrastructure) {
  Log("gpuharness: cannot execute 'no-such-mpirun': No such file or directory\n");
  Exited(127);
  ExpectFailure(0, JobFailureKind::kInfrastructure, Outcome::kInfra,
                "infrastructure: gpuharness: cannot execute 'no-such-mpirun': No such file "
                "or directory (job exited with status 127)");
  Log("");
  Exited(126);
  ExpectFailure(0, JobFailureKind::kInfrastructure, Outcome::kInfra,
                "infrastructure: cannot execute the launcher or the program (job exited with "
                "status 126)");
}

TEST_F(JobFailureKindTest, AnMpiInitFailureIsInfrastructure) {
  Log(kMpiInitFailure);
  Exited(14);
  ExpectFailure(0, JobFailureKind::kInfrastructure, Outcome::kInfra,
                "infrastructure: It looks like MPI_INIT failed for some reason; your parallel "
                "process is (job exited with status 14)");
  Log("[host:01234] PMIX ERROR: UNREACHABLE in file server/pmix_server.c at line 2198\n");
  Exited(1);
  ExpectFailure(0, JobFailureKind::kInfrastructure, Outcome::kInfra,
                "infrastructure: [host:01234] PMIX ERROR: UNREACHABLE in file "
                "server/pmix_server.c at line 2198 (job exited with status 1)");
  // ORTE's generic error log is quoted only when nothing more telling was printed.
  Log("[vm:1] [[5244,0],0] ORTE_ERROR_LOG: Data unpack would read past end of buffer\n" +
      std::string(kMpiInitFailure));
  EXPECT_EQ(LauncherFailureLine(end_.log_path),
            "It looks like MPI_INIT failed for some reason; your parallel process is");
  Log("[vm:1] [[5244,0],0] ORTE_ERROR_LOG: Data unpack would read past end of buffer\n");
  EXPECT_EQ(LauncherFailureLine(end_.log_path),
            "[vm:1] [[5244,0],0] ORTE_ERROR_LOG: Data unpack would read past end of buffer");
  Log("srun: error: Unable to allocate resources: Invalid partition name specified\n");
  EXPECT_EQ(LauncherFailureLine(end_.log_path),
            "srun: error: Unable to allocate resources: Invalid partition name specified");
}

// The job's own exit 3 (the harness's infrastructure exit) quotes its explanation, not its
// start-up banner.
TEST_F(JobFailureKindTest, TheJobsOwnInfrastructureExitIsInfrastructure) {
  Log("gpuharness: 4 point runs on 2 ranks, host backend -> /x\n"
      "gpuharness run: cannot write results to /x: Read-only file system\n");
  Exited(3);
  ExpectFailure(0, JobFailureKind::kInfrastructure, Outcome::kInfra,
                "infrastructure: gpuharness run: cannot write results to /x: Read-only file "
                "system (job exited with status 3)");
}

// Launcher words in the log of a job that recorded runs (a crash later on) are not start-up
// failures: the rank crash stays a crash.
TEST_F(JobFailureKindTest, AfterRecordsAStartUpLookingLineIsNoInfrastructure) {
  Log("ORTE has lost communication with a remote daemon.\n");
  Exited(134);
  ExpectFailure(3, JobFailureKind::kCrash, Outcome::kCrash,
                "crash: job exited with status 134: ORTE has lost communication with a remote "
                "daemon.");
  ExpectFailure(0, JobFailureKind::kInfrastructure, Outcome::kInfra,
                "infrastructure: ORTE has lost communication with a remote daemon. (job exited "
                "with status 134)");
}

TEST_F(JobFailureKindTest, RankCrashesStayCrashes) {
  ASSERT_TRUE(MakeDirectories(end_.run_dir + "/.ranks").ok());
  ASSERT_TRUE(WriteFileAtomically(end_.run_dir + "/.ranks/rank1.crash", "SIGSEGV in step 'exchange'").ok());
  Exited(139);
  ExpectFailure(0, JobFailureKind::kCrash, Outcome::kCrash,
                "crash on rank 1: SIGSEGV in step 'exchange' (job exited with status 139)");
  EXPECT_TRUE(ClassifyJobFailure(end_, 0).names_rank);
}

// Issue 15 item 4: mpirun names the rank a signal from outside killed.
TEST_F(JobFailureKindTest, MpirunsRankSignalNamesTheRankAndTheSignal) {
  Log("--------------------------------------------------------------------------\n"
      "mpirun noticed that process rank 2 with PID 4242 on node gpu01 exited on signal 9 "
      "(Killed).\n");
  Exited(137);
  ExpectFailure(1, JobFailureKind::kCrash, Outcome::kCrash,
                "crash: rank 2 killed by SIGKILL (job exited with status 137)");
  EXPECT_TRUE(ClassifyJobFailure(end_, 1).names_rank);
  std::optional<RankSignal> dead = MpirunRankSignal(end_.log_path);
  ASSERT_TRUE(dead.has_value());
  EXPECT_EQ(dead->rank, 2);
  EXPECT_EQ(dead->signal, SIGKILL);
  EXPECT_EQ(dead->ToString(), "rank 2 killed by SIGKILL");
}

TEST_F(JobFailureKindTest, TimeoutBadInputSignalAndOtherStatuses) {
  end_.timed_out = true;
  end_.timeout = absl::Minutes(10);
  Killed(SIGKILL);
  ExpectFailure(0, JobFailureKind::kTimeout, Outcome::kTimeout, "cell timeout after 10m");
  end_.timed_out = false;
  Log("x.yaml:3:1: name: missing\n");
  Exited(2);
  ExpectFailure(0, JobFailureKind::kBadInput, Outcome::kError, "bad input: x.yaml:3:1: name: missing");
  Killed(SIGSEGV);
  ExpectFailure(0, JobFailureKind::kCrash, Outcome::kCrash, "crash: job killed by SIGSEGV");
  EXPECT_FALSE(ClassifyJobFailure(end_, 0).names_rank);
  Exited(134);
  ExpectFailure(1, JobFailureKind::kCrash, Outcome::kCrash,
                "crash: job exited with status 134: x.yaml:3:1: name: missing");
}

}  // namespace
}  // namespace gh::driver
