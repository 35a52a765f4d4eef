#include "harness/core/shipped_data.h"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "harness/core/testdata/temp_dir.h"

namespace gh {
namespace {

class ShippedDataTest : public gh::testing::TempDirTest {
 protected:
  void SetUp() override {
    data_ = temp_dir() + "/share/gpuharness";
    Touch(data_ + "/scenarios/ring_shift_bandwidth.yaml");
    Touch(data_ + "/scenarios/frameworks/jax/dsf_ring_shift.yaml");
    Touch(data_ + "/matrices/demo.yaml");
    Touch(data_ + "/launchers/srun.yaml");
    Touch(temp_dir() + "/cwd/mine.yaml");
    Touch(temp_dir() + "/cwd/demo");  // a file named like a shipped matrix: the file wins
    old_cwd_ = std::filesystem::current_path();
    std::filesystem::current_path(temp_dir() + "/cwd");
  }
  void TearDown() override { std::filesystem::current_path(old_cwd_); }

  static void Touch(const std::string& path) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << "name: x\n";
  }

  std::string data_;
  std::filesystem::path old_cwd_;
};

TEST_F(ShippedDataTest, ABareNameIsTheShippedFileOfItsKind) {
  EXPECT_EQ(ResolveShippedFile(ShippedKind::kScenario, "ring_shift_bandwidth", data_),
            data_ + "/scenarios/ring_shift_bandwidth.yaml");
  EXPECT_EQ(ResolveShippedFile(ShippedKind::kScenario, "ring_shift_bandwidth.yaml", data_),
            data_ + "/scenarios/ring_shift_bandwidth.yaml");
  EXPECT_EQ(ResolveShippedFile(ShippedKind::kScenario, "frameworks/jax/dsf_ring_shift", data_),
            data_ + "/scenarios/frameworks/jax/dsf_ring_shift.yaml");
  EXPECT_EQ(ResolveShippedFile(ShippedKind::kMatrix, "demo.yaml", data_), data_ + "/matrices/demo.yaml");
  EXPECT_EQ(ResolveShippedFile(ShippedKind::kLauncher, "srun", data_), data_ + "/launchers/srun.yaml");
  // Each kind looks only in its own folder.
  EXPECT_EQ(ResolveShippedFile(ShippedKind::kMatrix, "ring_shift_bandwidth", data_), "ring_shift_bandwidth");
}

TEST_F(ShippedDataTest, AFileThatExistsIsTakenAsWritten) {
  EXPECT_EQ(ResolveShippedFile(ShippedKind::kScenario, "mine.yaml", data_), "mine.yaml");
  EXPECT_EQ(ResolveShippedFile(ShippedKind::kMatrix, "demo", data_), "demo");
  const std::string absolute = temp_dir() + "/cwd/mine.yaml";
  EXPECT_EQ(ResolveShippedFile(ShippedKind::kScenario, absolute, data_), absolute);
}

TEST_F(ShippedDataTest, NeitherAFileNorAShippedNameComesBackUnchanged) {
  EXPECT_EQ(ResolveShippedFile(ShippedKind::kScenario, "no_such_scenario", data_), "no_such_scenario");
  EXPECT_EQ(ResolveShippedFile(ShippedKind::kScenario, "/abs/none.yaml", data_), "/abs/none.yaml");
  EXPECT_EQ(ResolveShippedFile(ShippedKind::kScenario, "", data_), "");
  EXPECT_EQ(ResolveShippedFile(ShippedKind::kScenario, "../../etc/none", data_), "../../etc/none");
}

TEST_F(ShippedDataTest, DataDirIsBesideTheBinaryUnlessGhDataDirSaysOtherwise) {
  const char* old = getenv("GH_DATA_DIR");
  const std::string saved = old != nullptr ? old : "";
  unsetenv("GH_DATA_DIR");
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
  EXPECT_EQ(ShippedDataDir(), (self.parent_path().parent_path() / "share/gpuharness").string());
  setenv("GH_DATA_DIR", data_.c_str(), 1);
  EXPECT_EQ(ShippedDataDir(), data_);
  EXPECT_EQ(ResolveShippedFile(ShippedKind::kMatrix, "demo.yaml"), data_ + "/matrices/demo.yaml");
  if (old != nullptr) {
    setenv("GH_DATA_DIR", saved.c_str(), 1);
  } else {
    unsetenv("GH_DATA_DIR");
  }
}

}  // namespace
}  // namespace gh
