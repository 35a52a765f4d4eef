#include "harness/driver/dir_lock.h"

#include <filesystem>
#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/file_util.h"

namespace gh::driver {
namespace {

using ::testing::HasSubstr;

std::string TestDir() {
  std::string dir = (std::filesystem::path(::testing::TempDir()) /
                     (std::string("dir_lock_test_") +
                      ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                        .lexically_normal()
                        .string();
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(MakeDirectories(dir).ok());
  return dir;
}

TEST(DirLockTest, SecondHolderIsRefusedUntilTheFirstLetsGo) {
  const std::string dir = TestDir();
  std::optional<DirLock> first;
  {
    absl::StatusOr<DirLock> lock = DirLock::Acquire(dir);
    ASSERT_TRUE(lock.ok()) << lock.status();
    first.emplace(*std::move(lock));
  }
  absl::StatusOr<DirLock> second = DirLock::Acquire(dir);
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(absl::IsUnavailable(second.status()));
  EXPECT_EQ(std::string(second.status().message()),
            dir + ": another gpuharness sweep, bisect or minimize is using it (" + dir +
                "/.gpuharness.lock)");
  first.reset();
  EXPECT_TRUE(DirLock::Acquire(dir).ok());
}

TEST(DirLockTest, MissingDirectoryIsNotCalledBusy) {
  absl::StatusOr<DirLock> lock = DirLock::Acquire(TestDir() + "/missing");
  ASSERT_FALSE(lock.ok());
  EXPECT_TRUE(absl::IsInternal(lock.status()));
  EXPECT_THAT(std::string(lock.status().message()), HasSubstr("cannot open"));
  EXPECT_THAT(std::string(lock.status().message()), HasSubstr("No such file or directory"));
}

}  // namespace
}  // namespace gh::driver
