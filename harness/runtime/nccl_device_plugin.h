// Loading a device-API plugin (libgh_nccl_device.so, harness/nccl_device_plugin/): the
// ring-shift device code built against one NCCL release's headers, so that a version axis over
// NCCL releases runs the device API each release defines instead of the one gpuharness was
// compiled with. GH_NCCL_DEVICE_PLUGIN names the library (a version's activation sets it); when
// unset the built-in code serves. No CUDA here: the table is plain C (nccl_device_abi.h).
#ifndef GPUHARNESS_RUNTIME_NCCL_DEVICE_PLUGIN_H_
#define GPUHARNESS_RUNTIME_NCCL_DEVICE_PLUGIN_H_

#include <string>

#include "absl/status/statusor.h"
#include "harness/runtime/nccl_device_abi.h"

namespace gh {

inline constexpr char kNcclDevicePluginEnv[] = "GH_NCCL_DEVICE_PLUGIN";

struct NcclDevicePlugin {
  std::string path;                   // as GH_NCCL_DEVICE_PLUGIN gave it
  const GhNcclDeviceApi* api = nullptr;  // the plugin's table; the library stays loaded
};

// dlopens `path` and checks its table: the entry symbol, the ABI stamp and table size this
// gpuharness was built with, every function present. Fails with FailedPrecondition naming
// GH_NCCL_DEVICE_PLUGIN=path and what is wrong ("ABI version 2, this gpuharness needs 1").
// A refused library is closed again.
absl::StatusOr<NcclDevicePlugin> LoadNcclDevicePlugin(const std::string& path);

// Once per process (later calls return the first call's result): loads the plugin
// GH_NCCL_DEVICE_PLUGIN names, if set and not empty. The cuda backend calls it at start-up, so a
// bad plugin ends the job before any point (exit 3) instead of failing device-API points.
absl::Status LoadNcclDevicePluginFromEnvironment();

// The plugin loaded by LoadNcclDevicePluginFromEnvironment, or nullptr: the built-in code.
const NcclDevicePlugin* ActiveNcclDevicePlugin();

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_NCCL_DEVICE_PLUGIN_H_
