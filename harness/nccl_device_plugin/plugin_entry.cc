// The plugin's one exported symbol (everything else is hidden and bound inside the library):
// the device-API table compiled against this build's NCCL headers.
#include "harness/runtime/nccl_device_abi.h"
#include "harness/scenarios/ring_shift_device_api.h"

extern "C" __attribute__((visibility("default"))) const GhNcclDeviceApi* gh_nccl_device_plugin(void) {
  return gh::CompiledNcclDeviceApi();
}
