// The device-API table (harness/runtime/nccl_device_abi.h) compiled from this checkout against
// the nccl_device headers of the build that compiles it: gpuharness's built-in table, and the
// one a plugin (harness/nccl_device_plugin/) exports. Needs only CUDA and NCCL: no Abseil, so
// the plugin builds from CUDA and one NCCL prefix alone.
#ifndef GPUHARNESS_SCENARIOS_RING_SHIFT_DEVICE_API_H_
#define GPUHARNESS_SCENARIOS_RING_SHIFT_DEVICE_API_H_

#include "harness/runtime/nccl_device_abi.h"

namespace gh {

// A static table: never null, never freed.
const GhNcclDeviceApi* CompiledNcclDeviceApi();

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_RING_SHIFT_DEVICE_API_H_
