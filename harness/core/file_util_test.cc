#include "harness/core/file_util.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "harness/core/testdata/temp_dir.h"

namespace gh {
namespace {

class FileUtilTest : public gh::testing::TempDirTest {
 protected:
  const std::string dir_ = temp_dir();
  std::vector<std::string> Entries(const std::string& dir) {
    std::vector<std::string> names;
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) return names;
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    closedir(d);
    return names;
  }
};

TEST_F(FileUtilTest, WriteAtomicallyThenRead) {
  std::string path = dir_ + "/a.json";
  ASSERT_TRUE(WriteFileAtomically(path, "first").ok());
  EXPECT_EQ(*ReadFileToString(path), "first");
  std::string big(1 << 20, 'x');
  big[12345] = '\0';  // binary-safe
  ASSERT_TRUE(WriteFileAtomically(path, big).ok());
  EXPECT_EQ(*ReadFileToString(path), big);
  EXPECT_EQ(Entries(dir_), std::vector<std::string>{"a.json"});  // no temporary left behind
}

TEST_F(FileUtilTest, WriteIntoAMissingDirectoryFailsAndLeavesNothing) {
  absl::Status status = WriteFileAtomically(dir_ + "/no/a.json", "x");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), dir_ + "/no/a.json.tmp." + std::to_string(getpid()) +
                                  ": cannot create: No such file or directory");
}

TEST_F(FileUtilTest, FailedReplaceLeavesNeitherATemporaryNorAChange) {
  std::string target = dir_ + "/out";
  ASSERT_TRUE(MakeDirectories(target + "/keep").ok());  // a directory cannot be replaced by a file
  absl::Status status = WriteFileAtomically(target, "x");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), target + ": cannot replace: Is a directory");
  EXPECT_EQ(Entries(dir_), std::vector<std::string>{"out"});
  EXPECT_EQ(Entries(target), std::vector<std::string>{"keep"});
}

TEST_F(FileUtilTest, ReadErrors) {
  absl::StatusOr<std::string> missing = ReadFileToString(dir_ + "/none");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(missing.status().message(), dir_ + "/none: cannot read: No such file or directory");
  absl::StatusOr<std::string> dir = ReadFileToString(dir_);
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().message(), dir_ + ": cannot read: Is a directory");
  EXPECT_EQ(*ReadFileToString("/dev/null"), "");
}

TEST_F(FileUtilTest, MakeDirectoriesIsMkdirP) {
  std::string deep = dir_ + "/a/b/c";
  ASSERT_TRUE(MakeDirectories(deep).ok());
  struct stat st;
  ASSERT_EQ(stat(deep.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_TRUE(MakeDirectories(deep).ok());        // already there
  EXPECT_TRUE(MakeDirectories(deep + "/").ok());  // trailing slash
  ASSERT_TRUE(WriteFileAtomically(dir_ + "/a/file", "x").ok());
  absl::Status status = MakeDirectories(dir_ + "/a/file/d");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(), dir_ + "/a/file: cannot create directory: Not a directory");
  EXPECT_FALSE(MakeDirectories("").ok());
}

}  // namespace
}  // namespace gh
