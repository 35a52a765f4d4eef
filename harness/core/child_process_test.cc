// The process seam with real processes: output, exit statuses, PATH lookup in the child's own
// environment, start failures, limits, and nothing left behind when the program ends, when its
// session is signalled, or when the process that started it is SIGKILLed.
#include "harness/core/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/file_util.h"
#include "harness/core/process_table.h"

namespace gh {
namespace {

using ::testing::HasSubstr;

std::string Temp(const std::string& name) {
  return (std::filesystem::path(::testing::TempDir()) / ("child_process_" + name)).string();
}

absl::StatusOr<CommandResult> Sh(const std::string& script, absl::Duration timeout = absl::Seconds(20)) {
  CommandRequest request;
  request.child.argv = {"/bin/sh", "-c", script};
  request.timeout = timeout;
  return RunCommand(request);
}

// The pid a script wrote to `path`, or 0.
int PidIn(const std::string& path) {
  int pid = 0;
  for (int i = 0; i < 500 && pid == 0; ++i, usleep(10000)) {
    absl::StatusOr<std::string> text = ReadFileToString(path);
    if (text.ok() && absl::SimpleAtoi(absl::StripAsciiWhitespace(*text), &pid)) break;
    pid = 0;
  }
  return pid;
}

// Whether `pid` is gone (or a zombie) within `seconds`.
bool GoneWithin(int pid, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    std::optional<ProcessStat> stat = ReadProcessStat(pid);
    if (!stat || stat->state == 'Z') return true;
    usleep(10000);
  }
  return false;
}

TEST(ChildProcessTest, RunCommandKeepsStdoutStderrAndTheExit) {
  absl::StatusOr<CommandResult> r = Sh("echo out; echo err >&2; exit 3");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");
  EXPECT_FALSE(r->ok());
  EXPECT_EQ(r->exit.ToString(), "exit 3");
  EXPECT_EQ(LastLine("warning: x\nfatal: no such repository\n\n"), "fatal: no such repository");
}

TEST(ChildProcessTest, ASignalToTheSessionEndsTheProgramAndItsEndIsPassedOn) {
  absl::StatusOr<CommandResult> r = Sh("kill -TERM 0; sleep 5");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->exit.signaled);
  EXPECT_EQ(r->exit.ToString(), "killed by SIGTERM");
}

TEST(ChildProcessTest, ProgramIsLookedUpInTheChildsOwnPath) {
  const std::string dir = Temp("path");
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(WriteFileAtomically(dir + "/gh-only-here", "#!/bin/sh\necho found\n").ok());
  std::filesystem::permissions(dir + "/gh-only-here", std::filesystem::perms::owner_all);
  CommandRequest request;
  request.child.argv = {"gh-only-here"};
  request.child.env = std::vector<std::string>{"PATH=" + dir + ":/usr/bin:/bin"};
  absl::StatusOr<CommandResult> r = RunCommand(request);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out, "found\n");
}

TEST(ChildProcessTest, StartFailuresSayWhy) {
  ChildSpec missing;
  missing.argv = {"gh-no-such-program"};
  missing.log_path = Temp("missing.log");
  absl::StatusOr<Child> child = Child::Start(missing);
  ASSERT_TRUE(child.ok()) << child.status();
  EXPECT_EQ(child->start_error().message(), "cannot run 'gh-no-such-program': No such file or directory");
  std::optional<ChildExit> exit;
  for (int i = 0; i < 500 && !(exit = child->Poll()); ++i) usleep(10000);
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->ToString(), "exit 127");
  EXPECT_THAT(*ReadFileToString(missing.log_path),
              HasSubstr("gpuharness: cannot execute 'gh-no-such-program': No such file or directory"));

  CommandRequest nowhere;
  nowhere.child.argv = {"true"};
  nowhere.child.cwd = "/gh/no/such/dir";
  absl::StatusOr<CommandResult> r = RunCommand(nowhere);
  EXPECT_TRUE(absl::IsInvalidArgument(r.status())) << r.status();
  EXPECT_EQ(r.status().message(), "cannot enter working directory /gh/no/such/dir: No such file or directory");

  ChildSpec bad_log;
  bad_log.argv = {"true"};
  bad_log.log_path = "/gh/no/such/dir/x.log";
  EXPECT_TRUE(absl::IsInvalidArgument(Child::Start(bad_log).status()));
}

TEST(ChildProcessTest, WhatTheProgramLeftBehindGoesWhenItEnds) {
  const std::string pid_file = Temp("left.pid");
  std::filesystem::remove(pid_file);
  absl::StatusOr<CommandResult> r = Sh("sleep 300 >/dev/null 2>&1 & echo $! > " + pid_file);
  ASSERT_TRUE(r.ok()) << r.status();
  const int pid = PidIn(pid_file);
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(GoneWithin(pid, 3)) << "the background sleep " << pid << " outlived its command";
}

TEST(ChildProcessTest, LimitsEndTheCommandAndEverythingItStarted) {
  const std::string pid_file = Temp("deadline.pid");
  std::filesystem::remove(pid_file);
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<CommandResult> r = Sh("sleep 300 & echo $! > " + pid_file + "; wait", absl::Milliseconds(300));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 3.0);
  EXPECT_TRUE(absl::IsDeadlineExceeded(r.status())) << r.status();
  EXPECT_EQ(r.status().message(), "did not finish within 300ms");
  const int pid = PidIn(pid_file);
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(GoneWithin(pid, 3));

  CommandRequest flood;
  flood.child.argv = {"yes"};
  flood.max_bytes = 1000;
  EXPECT_TRUE(absl::IsResourceExhausted(RunCommand(flood).status()));

  std::atomic<bool> stop{false};
  CommandRequest stopped;
  stopped.child.argv = {"sleep", "30"};
  stopped.stop = &stop;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stop.store(true);
  });
  EXPECT_TRUE(absl::IsCancelled(RunCommand(stopped).status()));
  stopper.join();
}

TEST(ChildProcessTest, PassedDescriptorsReachTheProgram) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  ChildSpec spec;
  spec.argv = {"/bin/sh", "-c", "echo through >&7"};
  spec.pass_fds = {{fds[1], 7}};
  absl::StatusOr<Child> child = Child::Start(spec);
  close(fds[1]);
  ASSERT_TRUE(child.ok()) << child.status();
  char buf[64] = {};
  ssize_t n = read(fds[0], buf, sizeof buf - 1);
  close(fds[0]);
  EXPECT_EQ(std::string(buf, n > 0 ? n : 0), "through\n");
  while (!child->Poll()) usleep(1000);
}

TEST(ChildProcessTest, AKilledStarterLeavesNothingBehind) {
  // A process starts a child whose shell starts a grandchild, then is SIGKILLed: the keeper
  // sees its starter die and ends the whole session.
  const std::string pid_file = Temp("orphan.pid");
  std::filesystem::remove(pid_file);
  const pid_t starter = fork();
  ASSERT_GE(starter, 0);
  if (starter == 0) {
    ChildSpec spec;
    spec.argv = {"/bin/sh", "-c", "sleep 300 & echo $! > " + pid_file + "; wait"};
    absl::StatusOr<Child> child = Child::Start(spec);
    if (!child.ok()) _exit(1);
    pause();
    _exit(0);
  }
  const int pid = PidIn(pid_file);
  ASSERT_GT(pid, 0);
  kill(starter, SIGKILL);
  waitpid(starter, nullptr, 0);
  EXPECT_TRUE(GoneWithin(pid, 5)) << "the grandchild " << pid << " outlived its SIGKILLed starter";
}

TEST(ChildProcessTest, WhatLeftTheSessionIsGoneOnceTheEndIsSeen) {
  // The program starts a grandchild in a session of its own (as a nested keeper does: an exec
  // command under a rank), then its session is told to stop. The grandchild, out of reach of
  // the session's signal, is gone by the time Poll reports the end: nothing outlives a job
  // whose end the driver has seen.
  const std::string pid_file = Temp("setsid.pid");
  std::filesystem::remove(pid_file);
  ChildSpec spec;
  spec.argv = {"/bin/sh", "-c", "setsid sleep 300 & echo $! > " + pid_file + "; sleep 300"};
  absl::StatusOr<Child> child = Child::Start(spec);
  ASSERT_TRUE(child.ok()) << child.status();
  const int pid = PidIn(pid_file);
  ASSERT_GT(pid, 0);
  std::optional<ProcessStat> before = ReadProcessStat(pid);
  ASSERT_TRUE(before.has_value());
  child->Signal(SIGTERM);
  std::optional<ChildExit> exit;
  for (int i = 0; i < 2000 && !(exit = child->Poll()); ++i) usleep(5000);
  ASSERT_TRUE(exit.has_value()) << "the session did not end within 10 s";
  EXPECT_TRUE(exit->signaled);
  EXPECT_EQ(exit->signal, SIGTERM);
  std::optional<ProcessStat> after = ReadProcessStat(pid);
  EXPECT_FALSE(after.has_value() && after->state != 'Z')
      << "the grandchild " << pid << " in its own session outlived the end of its keeper";
}

TEST(ChildProcessTest, CommandFirstLine) {
  EXPECT_EQ(CommandFirstLine({"/bin/sh", "-c", "echo '  one  '; echo two"}), "one");
  EXPECT_EQ(CommandFirstLine({"/bin/sh", "-c", "echo only-err >&2"}), "only-err");
  EXPECT_EQ(CommandFirstLine({"/bin/sh", "-c", "echo x; exit 1"}), "");
  EXPECT_EQ(CommandFirstLine({"gh-no-such-program"}), "");
}

}  // namespace
}  // namespace gh
