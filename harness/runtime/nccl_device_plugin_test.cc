#include "harness/runtime/nccl_device_plugin.h"

#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace gh {
namespace {

// Built beside this test by harness/CMakeLists.txt from testdata/fake_nccl_device_plugin.cc.
std::string Fake(const std::string& name) {
  return std::string(GH_FAKE_NCCL_DEVICE_PLUGIN_DIR) + "/libgh_fake_nccl_device_" + name + ".so";
}

TEST(NcclDevicePluginTest, LoadsAGoodTableWithItsNcclHeadersVersion) {
  absl::StatusOr<NcclDevicePlugin> plugin = LoadNcclDevicePlugin(Fake("good"));
  ASSERT_TRUE(plugin.ok()) << plugin.status();
  EXPECT_EQ(plugin->path, Fake("good"));
  ASSERT_NE(plugin->api, nullptr);
  EXPECT_EQ(plugin->api->abi_version, GH_NCCL_DEVICE_ABI_VERSION);
  EXPECT_EQ(plugin->api->nccl_version_code, 23007);
  GhNcclDeviceComm* dev = nullptr;
  int lsa = 0, n = 0;
  EXPECT_EQ(plugin->api->create(nullptr, 1, &dev, &lsa, &n), 5);  // the fake's refusal, called through
}

TEST(NcclDevicePluginTest, RefusesAWrongAbiStampNamingBothVersions) {
  absl::StatusOr<NcclDevicePlugin> plugin = LoadNcclDevicePlugin(Fake("wrong_abi"));
  ASSERT_FALSE(plugin.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(plugin.status()));
  EXPECT_EQ(plugin.status().message(),
            "GH_NCCL_DEVICE_PLUGIN=" + Fake("wrong_abi") +
                ": plugin ABI version 99, this gpuharness needs 1 (rebuild it from this "
                "checkout's harness/nccl_device_plugin)");
}

TEST(NcclDevicePluginTest, RefusesATableOfAnotherSize) {
  absl::StatusOr<NcclDevicePlugin> plugin = LoadNcclDevicePlugin(Fake("short_table"));
  ASSERT_FALSE(plugin.ok());
  EXPECT_EQ(plugin.status().message(),
            "GH_NCCL_DEVICE_PLUGIN=" + Fake("short_table") + ": plugin table of " +
                std::to_string(sizeof(GhNcclDeviceApi) - sizeof(void*)) +
                " bytes, this gpuharness's has " + std::to_string(sizeof(GhNcclDeviceApi)) +
                " (rebuild it from this checkout's harness/nccl_device_plugin)");
}

TEST(NcclDevicePluginTest, RefusesATableWithoutEveryFunction) {
  absl::StatusOr<NcclDevicePlugin> plugin = LoadNcclDevicePlugin(Fake("missing_function"));
  ASSERT_FALSE(plugin.ok());
  EXPECT_EQ(plugin.status().message(),
            "GH_NCCL_DEVICE_PLUGIN=" + Fake("missing_function") + ": plugin table lacks a function");
}

TEST(NcclDevicePluginTest, RefusesALibraryWithoutTheEntrySymbol) {
  absl::StatusOr<NcclDevicePlugin> plugin = LoadNcclDevicePlugin(Fake("no_entry"));
  ASSERT_FALSE(plugin.ok());
  EXPECT_EQ(plugin.status().message(),
            "GH_NCCL_DEVICE_PLUGIN=" + Fake("no_entry") +
                ": not a gpuharness device-API plugin (no gh_nccl_device_plugin symbol)");
}

TEST(NcclDevicePluginTest, RefusesAPathThatDoesNotLoad) {
  absl::StatusOr<NcclDevicePlugin> plugin = LoadNcclDevicePlugin("/nonexistent/libgh_nccl_device.so");
  ASSERT_FALSE(plugin.ok());
  EXPECT_EQ(plugin.status().message().substr(0, 78),
            "GH_NCCL_DEVICE_PLUGIN=/nonexistent/libgh_nccl_device.so: cannot load: /nonexis");
  EXPECT_NE(plugin.status().message().find("No such file or directory"), std::string::npos);
}

// The process-wide choice runs in a child: it is made once per process, and the GPU tests of
// this binary must keep the built-in code.
TEST(NcclDevicePluginDeathTest, TheEnvironmentPicksThePluginOnceAndARefusalStays) {
  EXPECT_EXIT(
      {
        setenv(kNcclDevicePluginEnv, Fake("good").c_str(), 1);
        bool ok = LoadNcclDevicePluginFromEnvironment().ok() && ActiveNcclDevicePlugin() != nullptr &&
                  ActiveNcclDevicePlugin()->api->nccl_version_code == 23007;
        setenv(kNcclDevicePluginEnv, Fake("wrong_abi").c_str(), 1);  // too late: chosen once
        ok = ok && LoadNcclDevicePluginFromEnvironment().ok() &&
             ActiveNcclDevicePlugin()->path == Fake("good");
        std::exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(
      {
        setenv(kNcclDevicePluginEnv, Fake("wrong_abi").c_str(), 1);
        absl::Status status = LoadNcclDevicePluginFromEnvironment();
        bool ok = absl::IsFailedPrecondition(status) && ActiveNcclDevicePlugin() == nullptr &&
                  LoadNcclDevicePluginFromEnvironment() == status;
        std::exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(
      {
        unsetenv(kNcclDevicePluginEnv);
        bool ok = LoadNcclDevicePluginFromEnvironment().ok() && ActiveNcclDevicePlugin() == nullptr;
        std::exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace gh
