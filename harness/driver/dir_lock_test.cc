#include "harness/driver/dir_lock.h"

#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/testdata/temp_dir.h"

namespace gh::driver {
namespace {

using ::testing::HasSubstr;

using DirLockTest = ::gh::testing::TempDirTest;

TEST_F(DirLockTest, SecondHolderIsRefusedUntilTheFirstLetsGo) {
  const std::string dir = temp_dir();
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

TEST_F(DirLockTest, MissingDirectoryIsNotCalledBusy) {
  absl::StatusOr<DirLock> lock = DirLock::Acquire(temp_dir() + "/missing");
  ASSERT_FALSE(lock.ok());
  EXPECT_TRUE(absl::IsInternal(lock.status()));
  EXPECT_THAT(std::string(lock.status().message()), HasSubstr("cannot open"));
  EXPECT_THAT(std::string(lock.status().message()), HasSubstr("No such file or directory"));
}

}  // namespace
}  // namespace gh::driver
