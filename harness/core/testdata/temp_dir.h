// Test-only: a fresh directory for one test, made under ::testing::TempDir() (the build tree's
// test_tmp under ctest, so concurrent checkouts never share it) and removed, with everything in
// it, when the test ends. A fixture derives from TempDirTest (temp_dir()) or holds a
// ScopedTempDir as a member; MakeKeptTempDir makes one that stays; FreshNamedTempDir names one
// that stays.
#ifndef GPUHARNESS_CORE_TESTDATA_TEMP_DIR_H_
#define GPUHARNESS_CORE_TESTDATA_TEMP_DIR_H_

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

#include "gtest/gtest.h"

namespace gh::testing {

class ScopedTempDir {
 public:
  ScopedTempDir() {
    std::string pattern =
        (std::filesystem::path(::testing::TempDir()) / "gh_test_XXXXXX").lexically_normal().string();
    if (mkdtemp(pattern.data()) == nullptr) {
      ADD_FAILURE() << "mkdtemp " << pattern << " failed";
      return;
    }
    path_ = pattern;
  }
  ~ScopedTempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;

  // The directory, without a trailing '/'; "" where it could not be made (the test has failed).
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A fresh directory ::testing::TempDir()/PREFIX_XXXXXX that outlives the test (a whole-binary
// test's logs stay for a look afterwards); a failure, and ::testing::TempDir(), where it cannot
// be made.
inline std::string MakeKeptTempDir(const std::string& prefix) {
  std::string pattern = (std::filesystem::path(::testing::TempDir()) / (prefix + "_XXXXXX"))
                            .lexically_normal()
                            .string();
  if (mkdtemp(pattern.data()) == nullptr) {
    ADD_FAILURE() << "mkdtemp " << pattern << " failed";
    return ::testing::TempDir();
  }
  return pattern;
}

// ::testing::TempDir()/NAME, normalized (TempDir() ends in '/', and the driver writes normalized
// paths into the scripts it generates), with whatever an earlier run left there removed; not
// created here (a command under test may create it). It stays after the test, for a look.
inline std::string FreshNamedTempDir(const std::string& name) {
  const std::string dir = (std::filesystem::path(::testing::TempDir()) / name).lexically_normal().string();
  std::filesystem::remove_all(dir);
  return dir;
}

// A fixture whose every test gets a fresh temp_dir().
class TempDirTest : public ::testing::Test {
 protected:
  const std::string& temp_dir() const { return temp_.path(); }

 private:
  ScopedTempDir temp_;
};

}  // namespace gh::testing

#endif  // GPUHARNESS_CORE_TESTDATA_TEMP_DIR_H_
