#include "harness/runtime/gpu_binding.h"

#include <cstdlib>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gh {
namespace {

using ::testing::HasSubstr;

TEST(BindGpu, LocalRankPicksTheDevice) {
  absl::StatusOr<GpuBinding> binding = BindGpu("n1", {4, 5, 6, 7}, 2, 4, false);
  ASSERT_TRUE(binding.ok()) << binding.status();
  EXPECT_EQ(binding->device, 2);
  EXPECT_FALSE(binding->shared);
}

TEST(BindGpu, MoreRanksThanGpusIsRefusedNamingHostRanksAndGpus) {
  absl::StatusOr<GpuBinding> binding = BindGpu("gpu-node-7", {0, 1, 2, 3}, 1, 1, false);
  ASSERT_FALSE(binding.ok());
  EXPECT_EQ(binding.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(binding.status().message(),
            "host gpu-node-7 has 4 ranks (0,1,2,3) but 1 GPU: each rank needs its own GPU; pass "
            "--share-gpu to let ranks share (NCCL then talks over sockets, slowly)");
}

TEST(BindGpu, SharingWrapsLocalRanksOverTheGpus) {
  for (int local = 0; local < 5; ++local) {
    absl::StatusOr<GpuBinding> binding = BindGpu("n", {0, 1, 2, 3, 4}, local, 2, true);
    ASSERT_TRUE(binding.ok());
    EXPECT_EQ(binding->device, local % 2);
    EXPECT_TRUE(binding->shared);
  }
}

TEST(BindGpu, NoGpuIsAnError) {
  absl::StatusOr<GpuBinding> binding = BindGpu("cpu-box", {0}, 0, 0, true);
  ASSERT_FALSE(binding.ok());
  EXPECT_THAT(binding.status().message(), HasSubstr("host cpu-box (ranks 0) has no visible GPU"));
}

TEST(ConfigureNcclForSharedGpu, DistinctHostIdsAndSocketDefaultsThatKeepUserSettings) {
  unsetenv("NCCL_SOCKET_IFNAME");
  setenv("NCCL_IB_DISABLE", "0", 1);  // the user's choice stays
  ConfigureNcclForSharedGpu("box", 3);
  EXPECT_STREQ(getenv("NCCL_HOSTID"), "box-gh3");
  EXPECT_STREQ(getenv("NCCL_SOCKET_IFNAME"), "lo");
  EXPECT_STREQ(getenv("NCCL_IB_DISABLE"), "0");
  unsetenv("NCCL_HOSTID");
  unsetenv("NCCL_SOCKET_IFNAME");
  unsetenv("NCCL_IB_DISABLE");
}

TEST(FormatRankList, CommaSeparated) {
  EXPECT_EQ(FormatRankList({}), "");
  EXPECT_EQ(FormatRankList({3}), "3");
  EXPECT_EQ(FormatRankList({0, 2, 5}), "0,2,5");
}

}  // namespace
}  // namespace gh
