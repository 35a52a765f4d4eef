// Issue 15 item 13: an --out that cannot be written is said plainly, as infrastructure.
#include "harness/core/writable_dir.h"

#include <filesystem>
#include <string>

#include "gtest/gtest.h"
#include "harness/core/testdata/temp_dir.h"

namespace gh {
namespace {

namespace fs = std::filesystem;

TEST(EnsureWritableDirTest, MakesTheDirectoryAndLeavesNothingBehind) {
  testing::ScopedTempDir root;
  ASSERT_FALSE(root.path().empty());
  const std::string dir = root.path() + "/a/b";
  ASSERT_TRUE(EnsureWritableDir(dir).ok());
  EXPECT_TRUE(fs::is_directory(dir));
  EXPECT_TRUE(fs::is_empty(dir)) << "the probe file is removed";
  EXPECT_TRUE(EnsureWritableDir(dir).ok()) << "an existing writable DIR is fine";
}

TEST(EnsureWritableDirTest, AnUnwritablePathIsFailedPreconditionNamingFlagAndDir) {
  // /proc takes no new directories, even from root.
  absl::Status st = EnsureWritableDir("/proc/gh_no_such/out");
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(st.message().substr(0, 47), "--out /proc/gh_no_such/out: not writable: /proc");
  absl::Status bare = EnsureWritableDir("/proc/gh_no_such/out", "");
  EXPECT_EQ(bare.message().substr(0, 41), "/proc/gh_no_such/out: not writable: /proc");
}

}  // namespace
}  // namespace gh
