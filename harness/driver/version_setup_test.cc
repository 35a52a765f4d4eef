#include "harness/driver/version_setup.h"

#include <sys/file.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/testdata/temp_dir.h"
#include "harness/driver/version_setup_queue.h"

namespace gh::driver {
namespace {

using ::testing::HasSubstr;

TEST(SetupCauseLine, IsTheLastErrorLineNotAWarningAtTheTop) {
  const std::string pip_log =
      "WARNING: pip is being invoked by an old script wrapper.\n"
      "ERROR: Ignored the following versions that require a different python version: 0.11.0\n"
      "ERROR: Could not find a version that satisfies the requirement jaxlib==0.4.37 (from versions: 0.4.36)\n"
      "ERROR: No matching distribution found for jaxlib==0.4.37\n"
      "\n[notice] A new release of pip is available\n";
  EXPECT_EQ(SetupCauseLine(pip_log), "ERROR: No matching distribution found for jaxlib==0.4.37");
  EXPECT_EQ(SetupCauseLine("configuring\nCMake Error at CMakeLists.txt:3 (project):\n  bad\n-- done\n"),
            "CMake Error at CMakeLists.txt:3 (project):");
  EXPECT_EQ(SetupCauseLine("step 1\nstep 2\n"), "step 2") << "no error line: the last line";
  EXPECT_EQ(SetupCauseLine(""), "");
  EXPECT_EQ(SetupCauseLine("WARNING: could not do x\n"), "WARNING: could not do x");
}

class VersionSetupRealTest : public ::gh::testing::TempDirTest {
 protected:
  const std::string dir_ = temp_dir();
  PosixProcessRunner runner_;
  RealClock clock_;
};

TEST_F(VersionSetupRealTest, AFailureNamesTheLogAndQuotesTheCause) {
  VersionSetupResult r = RunVersionSetup(
      "v1", "echo 'WARNING: top'; echo 'ERROR: No matching distribution found for x==1'; echo tail; exit 1",
      dir_ + "/v1", CurrentEnvironment(), absl::Seconds(30), runner_, clock_);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.detail, "setup exit 1 (log " + dir_ + "/v1/setup.log): ERROR: No matching distribution found for x==1");
  r = RunVersionSetup("v1", "sleep 30", dir_ + "/v1", CurrentEnvironment(), absl::Milliseconds(300), runner_, clock_);
  EXPECT_EQ(r.detail, "setup timed out after 300ms (log " + dir_ + "/v1/setup.log)");
}

TEST_F(VersionSetupRealTest, ASecondDriverWaitsForTheLockThenFindsTheSuccessCached) {
  std::filesystem::create_directories(dir_ + "/v1");
  const int fd = ::open((dir_ + "/v1/setup.lock").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0) << "another driver sets v1 up";
  VersionSetupJob job({"v1", "echo ran >> count", dir_ + "/v1", CurrentEnvironment(), absl::Seconds(30)}, runner_,
                      clock_);
  for (int i = 0; i < 5; ++i) {
    EXPECT_FALSE(job.Poll().has_value()) << "waits while the lock is held";
    clock_.SleepFor(absl::Milliseconds(20));
  }
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/v1/count")) << "nothing ran under the other's lock";
  ::close(fd);
  std::optional<VersionSetupResult> r;
  while (!(r = job.Poll())) clock_.SleepFor(absl::Milliseconds(20));
  EXPECT_TRUE(r->ok) << r->detail;
  VersionSetupResult again =
      RunVersionSetup("v1", "echo ran >> count", dir_ + "/v1", CurrentEnvironment(), absl::Seconds(30), runner_, clock_);
  EXPECT_TRUE(again.cached);
  std::ifstream count(dir_ + "/v1/count");
  std::string all((std::istreambuf_iterator<char>(count)), std::istreambuf_iterator<char>());
  EXPECT_EQ(all, "ran\n");
}

TEST_F(VersionSetupRealTest, TheQueueRunsUpToNAtOnceInTheOrderAsked) {
  VersionSetupQueue queue(2, runner_, clock_, nullptr);
  auto request = [&](const std::string& v) {
    return VersionSetupRequest{v, "date +%s%N > started; sleep 0.5", dir_ + "/" + v, CurrentEnvironment(),
                               absl::Seconds(30)};
  };
  const absl::Time start = clock_.Now();
  for (const char* v : {"a", "b", "c"}) EXPECT_FALSE(queue.Need(request(v)).has_value());
  while (queue.Busy()) {
    queue.Poll();
    clock_.SleepFor(absl::Milliseconds(10));
  }
  const absl::Duration took = clock_.Now() - start;
  for (const char* v : {"a", "b", "c"}) {
    std::optional<VersionSetupResult> r = queue.Need(request(v));
    ASSERT_TRUE(r.has_value());
    EXPECT_TRUE(r->ok) << r->detail;
  }
  EXPECT_GE(took, absl::Milliseconds(1000)) << "two rounds: c waited for a slot";
  EXPECT_LT(took, absl::Milliseconds(1450)) << "a and b ran together";
}

}  // namespace
}  // namespace gh::driver
