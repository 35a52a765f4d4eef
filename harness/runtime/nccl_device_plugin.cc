#include "harness/runtime/nccl_device_plugin.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace gh {
namespace {

absl::Status Refused(const std::string& path, absl::string_view why) {
  return absl::FailedPreconditionError(absl::StrCat(kNcclDevicePluginEnv, "=", path, ": ", why));
}

// What is wrong with `api`, or "" when it is usable.
std::string TableProblem(const GhNcclDeviceApi* api) {
  if (api == nullptr) return "its entry returned no table";
  if (api->abi_version != GH_NCCL_DEVICE_ABI_VERSION) {
    return absl::StrCat("plugin ABI version ", api->abi_version, ", this gpuharness needs ",
                        GH_NCCL_DEVICE_ABI_VERSION,
                        " (rebuild it from this checkout's harness/nccl_device_plugin)");
  }
  if (api->table_bytes != sizeof(GhNcclDeviceApi)) {
    return absl::StrCat("plugin table of ", api->table_bytes, " bytes, this gpuharness's has ",
                        sizeof(GhNcclDeviceApi),
                        " (rebuild it from this checkout's harness/nccl_device_plugin)");
  }
  if (api->create == nullptr || api->destroy == nullptr || api->launch_ring_shift == nullptr ||
      api->launch_barrier == nullptr || api->launch_right_pointer == nullptr) {
    return "plugin table lacks a function";
  }
  if (api->nccl_version_code <= 0) return "plugin names no NCCL headers version";
  return "";
}

std::once_flag loaded_once;
absl::Status load_status;
std::optional<NcclDevicePlugin> loaded;

}  // namespace

absl::StatusOr<NcclDevicePlugin> LoadNcclDevicePlugin(const std::string& path) {
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* error = dlerror();
    return Refused(path, absl::StrCat("cannot load: ", error != nullptr ? error : "dlopen failed"));
  }
  auto entry = reinterpret_cast<GhNcclDevicePluginEntry>(dlsym(library, GH_NCCL_DEVICE_PLUGIN_ENTRY));
  if (entry == nullptr) {
    dlclose(library);
    return Refused(path, absl::StrCat("not a gpuharness device-API plugin (no ",
                                      GH_NCCL_DEVICE_PLUGIN_ENTRY, " symbol)"));
  }
  const GhNcclDeviceApi* api = entry();
  if (std::string problem = TableProblem(api); !problem.empty()) {
    dlclose(library);
    return Refused(path, problem);
  }
  return NcclDevicePlugin{path, api};  // never closed: kernels and tables stay in use
}

absl::Status LoadNcclDevicePluginFromEnvironment() {
  std::call_once(loaded_once, [] {
    const char* path = std::getenv(kNcclDevicePluginEnv);
    if (path == nullptr || *path == '\0') return;
    absl::StatusOr<NcclDevicePlugin> plugin = LoadNcclDevicePlugin(path);
    if (plugin.ok()) {
      loaded = *std::move(plugin);
    } else {
      load_status = plugin.status();
    }
  });
  return load_status;
}

const NcclDevicePlugin* ActiveNcclDevicePlugin() { return loaded ? &*loaded : nullptr; }

}  // namespace gh
