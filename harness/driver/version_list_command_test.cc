// The version list command with real shells: output, exit status, time limit, output caps,
// a stop request, and nothing it started left behind.
#include "harness/driver/version_list_command.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/file_util.h"
#include "harness/core/process_table.h"

namespace gh::driver {
namespace {

using ::testing::HasSubstr;

struct Timed {
  absl::StatusOr<std::string> result;
  double seconds = 0;
};

Timed RunTimed(VersionListCommand request) {
  auto start = std::chrono::steady_clock::now();
  Timed t{RunVersionListCommand(request)};
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return t;
}

VersionListCommand Command(const std::string& command) {
  VersionListCommand r;
  r.command = command;
  r.cwd = "/";
  return r;
}

TEST(VersionListCommandTest, ReturnsWhatItPrintsInItsDirectory) {
  Timed t = RunTimed(Command("pwd; echo v1; echo v2"));
  ASSERT_TRUE(t.result.ok()) << t.result.status();
  EXPECT_EQ(*t.result, "/\nv1\nv2\n");
}

TEST(VersionListCommandTest, NonZeroExitNamesTheCommandAndStatus) {
  Timed t = RunTimed(Command("echo v1; exit 3"));
  ASSERT_FALSE(t.result.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(t.result.status()));
  EXPECT_EQ(std::string(t.result.status().message()), "`echo v1; exit 3` exited with status 3");
}

// The tool's own reason (git's "fatal: ...") is quoted in the error line, not printed above it.
TEST(VersionListCommandTest, AFailureQuotesTheCommandsLastErrorLine) {
  Timed t = RunTimed(Command("echo v1; echo 'warning: x' >&2; echo \"fatal: '/r' does not appear to be a git repository\" >&2; "
                             "echo >&2; exit 128"));
  ASSERT_FALSE(t.result.ok());
  EXPECT_EQ(std::string(t.result.status().message()),
            "`echo v1; echo 'warning: x' >&2; echo \"fatal: '/r' does not appear to be a git repository\" >&2; echo >&2; "
            "exit 128` exited with status 128: fatal: '/r' does not appear to be a git repository");
}

TEST(VersionListCommandTest, TimeLimitKillsItAndEverythingItStarted) {
  const std::string pid_file =
      (std::filesystem::path(::testing::TempDir()) / "version_list_command_bg.pid").string();
  std::filesystem::remove(pid_file);
  VersionListCommand r = Command("sleep 300 & echo $! > " + pid_file + "; wait");
  r.timeout = absl::Milliseconds(300);
  Timed t = RunTimed(r);
  ASSERT_FALSE(t.result.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(t.result.status()));
  EXPECT_THAT(std::string(t.result.status().message()), HasSubstr("did not finish within 300ms (versions.list.timeout)"));
  EXPECT_LT(t.seconds, 3.0);
  absl::StatusOr<std::string> text = ReadFileToString(pid_file);
  ASSERT_TRUE(text.ok());
  int pid = 0;
  ASSERT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(*text), &pid));
  bool gone = false;
  for (int i = 0; i < 300 && !gone; ++i, usleep(10000)) {
    std::optional<ProcessStat> stat = ReadProcessStat(pid);
    gone = !stat || stat->state == 'Z';
  }
  EXPECT_TRUE(gone) << "the command's background sleep " << pid << " outlived it";
}

TEST(VersionListCommandTest, EndlessOutputIsRefusedAtTheByteCapPromptly) {
  Timed t = RunTimed(Command("tr '\\0' v < /dev/zero"));  // one endless line
  ASSERT_FALSE(t.result.ok());
  EXPECT_EQ(std::string(t.result.status().message()), "`tr '\\0' v < /dev/zero` printed more than 1048576 bytes (the limit)");
  EXPECT_LT(t.seconds, 5.0);
}

TEST(VersionListCommandTest, TooManyLabelsAreRefused) {
  Timed t = RunTimed(Command("seq 1 20000"));
  ASSERT_FALSE(t.result.ok());
  EXPECT_EQ(std::string(t.result.status().message()), "`seq 1 20000` printed more than 10000 versions (the limit)");
  Timed blank = RunTimed(Command("seq 1 10000; yes '' | head -c 100000"));  // blank lines are no labels
  EXPECT_TRUE(blank.result.ok()) << blank.result.status();
}

TEST(VersionListCommandTest, StopRequestEndsItAtOnce) {
  std::atomic<bool> stop{false};
  VersionListCommand r = Command("sleep 30");
  r.stop = &stop;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stop.store(true);
  });
  Timed t = RunTimed(r);
  stopper.join();
  ASSERT_FALSE(t.result.ok());
  EXPECT_TRUE(absl::IsCancelled(t.result.status()));
  EXPECT_EQ(std::string(t.result.status().message()), "stopped while running `sleep 30`");
  EXPECT_LT(t.seconds, 2.0);
}

}  // namespace
}  // namespace gh::driver
