// The job ledger and the session-wide kill, with real processes: the leader's child takes a
// process group of its own (perl's setpgrp), as mpirun's ranks do.
#include "harness/driver/job_ledger.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/file_util.h"
#include "harness/core/testdata/temp_dir.h"
#include "harness/core/process_table.h"

namespace gh::driver {
namespace {

using ::testing::HasSubstr;

class JobLedgerTest : public ::gh::testing::TempDirTest {
 protected:
  struct LeaderAndChild {
    ProcessId leader;
    int child;
  };

  // Starts a leader that starts a 300 s sleeper in a process group of its own, which writes its
  // pid to DIR/child.pid once it is in that group (not before: the test reads its group), then
  // runs `then` ("wait": stays; "exit 0": ends at once). Returns once the child's pid is known.
  LeaderAndChild StartLeader(ProcessRunner& runner, const std::string& then) {
    ProcessSpec spec;
    spec.argv = {"/bin/sh", "-c",
                 "perl -e 'setpgrp(0, 0); open(F, \">child.pid.tmp\"); print F $$; close F; "
                 "rename(\"child.pid.tmp\", \"child.pid\"); sleep 300' & " +
                     then};
    spec.env = CurrentEnvironment();
    spec.cwd = dir_;
    spec.log_path = dir_ + "/leader.log";
    absl::StatusOr<ProcessId> id = runner.Start(spec);
    EXPECT_TRUE(id.ok()) << id.status();
    return {id.value_or(0), ChildPid()};
  }

  // The background child's pid, once the leader has written it.
  int ChildPid() {
    for (int i = 0; i < 500; ++i) {
      absl::StatusOr<std::string> text = ReadFileToString(dir_ + "/child.pid");
      int pid = 0;
      if (text.ok() && absl::SimpleAtoi(absl::StripAsciiWhitespace(*text), &pid)) return pid;
      usleep(10000);
    }
    ADD_FAILURE() << "the leader wrote no child.pid";
    return 0;
  }

  static bool Alive(int pid) {
    std::optional<ProcessStat> stat = ReadProcessStat(pid);
    return stat && stat->state != 'Z';
  }

  static bool GoneWithin(int pid, int ms) {
    for (int i = 0; i < ms / 10; ++i) {
      if (!Alive(pid)) return true;
      usleep(10000);
    }
    return !Alive(pid);
  }

  const std::string dir_ = temp_dir();
  RealClock clock_;
};

TEST_F(JobLedgerTest, ChildInItsOwnGroupStaysInTheJobsSession) {
  PosixProcessRunner runner;
  auto [leader, child] = StartLeader(runner, "wait");
  std::optional<ProcessStat> stat = ReadProcessStat(child);
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->sid, leader);
  EXPECT_NE(stat->pgid, leader);  // a plain kill(-leader) would miss it
  runner.SignalGroup(leader, SIGKILL);
  EXPECT_TRUE(GoneWithin(child, 5000));
  while (!runner.Poll(leader)) usleep(10000);
}

TEST_F(JobLedgerTest, RerunStopsWhatADeadDriverLeftAndRemovesTheEntry) {
  PosixProcessRunner posix;
  JobLedger ledger(dir_);
  LedgeredProcessRunner runner(posix, ledger);
  auto [leader, child] = StartLeader(runner, "wait");
  const std::string entry = absl::StrCat(dir_, "/.jobs/", leader, ".json");
  ASSERT_TRUE(std::filesystem::exists(entry));
  // The driver dies without collecting the job, and its keeper with it (SIGKILL: no clean-up):
  // the program goes by its parent-death signal, the child in its own group runs on.
  kill(leader, SIGKILL);
  int status = 0;
  waitpid(leader, &status, 0);
  for (int i = 0; i < 500 && SessionMembers(leader).size() > 1; ++i) usleep(10000);
  ASSERT_TRUE(Alive(child));

  std::FILE* console = std::tmpfile();
  JobLedger rerun(dir_);
  absl::StatusOr<int> stopped = rerun.StopLeftovers(absl::Seconds(5), clock_, console);
  ASSERT_TRUE(stopped.ok()) << stopped.status();
  EXPECT_EQ(*stopped, 1);
  EXPECT_TRUE(GoneWithin(child, 5000));
  EXPECT_FALSE(std::filesystem::exists(entry));
  std::rewind(console);
  char line[512] = {};
  ASSERT_NE(std::fgets(line, sizeof line, console), nullptr);
  EXPECT_THAT(std::string(line), HasSubstr("stopping 1 process(es) an earlier run left running"));
  EXPECT_THAT(std::string(line), HasSubstr(dir_ + "/leader.log"));
  std::fclose(console);
}

TEST_F(JobLedgerTest, EndedJobsSessionIsClearedAndItsEntryRemoved) {
  PosixProcessRunner posix;
  JobLedger ledger(dir_);
  LedgeredProcessRunner runner(posix, ledger);
  // Ends once the child is in its group: the keeper then clears the session at once.
  auto [leader, child] = StartLeader(runner, "while [ ! -f child.pid ]; do sleep 0.01; done; exit 0");
  std::optional<ProcessExit> exit;
  for (int i = 0; i < 500 && !exit; ++i, usleep(10000)) exit = runner.Poll(leader);
  ASSERT_TRUE(exit);
  EXPECT_EQ(exit->ToString(), "exit 0");
  EXPECT_TRUE(GoneWithin(child, 5000));
  EXPECT_FALSE(std::filesystem::exists(absl::StrCat(dir_, "/.jobs/", leader, ".json")));
}

TEST_F(JobLedgerTest, ReusedPidIsNotSignalled) {
  // An entry naming a live session whose leader started at another time: a reused pid.
  PosixProcessRunner runner;
  auto [leader, child] = StartLeader(runner, "wait");
  std::optional<ProcessStat> stat = ReadProcessStat(leader);
  ASSERT_TRUE(stat);
  ASSERT_TRUE(MakeDirectories(dir_ + "/.jobs").ok());
  ASSERT_TRUE(WriteFileAtomically(absl::StrCat(dir_, "/.jobs/", leader, ".json"),
                                  absl::StrCat("{\"session\": ", leader, ", \"start_ticks\": ",
                                               stat->start_ticks + 1, ", \"boot_id\": \"", BootId(),
                                               "\"}"))
                  .ok());
  absl::StatusOr<int> stopped = JobLedger(dir_).StopLeftovers(absl::Seconds(1), clock_, nullptr);
  ASSERT_TRUE(stopped.ok()) << stopped.status();
  EXPECT_EQ(*stopped, 0);
  EXPECT_TRUE(Alive(child));
  EXPECT_TRUE(Alive(leader));
  runner.SignalGroup(leader, SIGKILL);
  while (!runner.Poll(leader)) usleep(10000);
}

TEST_F(JobLedgerTest, MalformedEntryIsRefusedNamingFileAndKey) {
  ASSERT_TRUE(MakeDirectories(dir_ + "/.jobs").ok());
  const std::string path = dir_ + "/.jobs/7.json";
  ASSERT_TRUE(WriteFileAtomically(path, "{\"session\": 1, \"start_ticks\": 5, \"boot_id\": \"x\"}").ok());
  absl::StatusOr<int> stopped = JobLedger(dir_).StopLeftovers(absl::Seconds(1), clock_, nullptr);
  ASSERT_FALSE(stopped.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(stopped.status()));
  EXPECT_THAT(std::string(stopped.status().message()), HasSubstr(path + ": session: expected a process id above 1"));
  ASSERT_TRUE(WriteFileAtomically(path, "[1, 2]").ok());
  stopped = JobLedger(dir_).StopLeftovers(absl::Seconds(1), clock_, nullptr);
  ASSERT_FALSE(stopped.ok());
  EXPECT_THAT(std::string(stopped.status().message()), HasSubstr(path + ": (document): expected a JSON object"));
}

TEST_F(JobLedgerTest, FakeProcessIdsAreNotRecorded) {
  JobLedger ledger(dir_);
  ProcessSpec spec;
  spec.argv = {"x"};
  absl::StatusOr<bool> recorded = ledger.Add(1, spec);  // init is not this process's child
  ASSERT_TRUE(recorded.ok());
  EXPECT_FALSE(*recorded);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/.jobs/1.json"));
}

TEST_F(JobLedgerTest, JobDiesWithASigkilledDriver) {
  // A stand-in driver starts a job and is SIGKILLed: the parent-death signal ends the job.
  const std::string pid_file = dir_ + "/job.pid";
  pid_t driver = fork();
  ASSERT_GE(driver, 0);
  if (driver == 0) {
    PosixProcessRunner runner;
    ProcessSpec spec;
    spec.argv = {"/bin/sleep", "300"};
    spec.env = CurrentEnvironment();
    spec.cwd = dir_;
    spec.log_path = dir_ + "/job.log";
    absl::StatusOr<ProcessId> id = runner.Start(spec);
    if (!id.ok()) _exit(1);
    if (!WriteFileAtomically(pid_file, std::to_string(*id)).ok()) _exit(1);
    pause();
    _exit(0);
  }
  int job = 0;
  for (int i = 0; i < 500 && job == 0; ++i, usleep(10000)) {
    absl::StatusOr<std::string> text = ReadFileToString(pid_file);
    if (text.ok()) {
      EXPECT_TRUE(absl::SimpleAtoi(*text, &job));
    }
  }
  ASSERT_GT(job, 0);
  ASSERT_TRUE(Alive(job));
  kill(driver, SIGKILL);
  int status = 0;
  waitpid(driver, &status, 0);
  EXPECT_TRUE(GoneWithin(job, 5000));
}

}  // namespace
}  // namespace gh::driver
