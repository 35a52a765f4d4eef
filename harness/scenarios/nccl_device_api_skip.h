// The device API (ncclDevComm, ncclDevCommRequirements) is compiled into gpuharness against one
// NCCL's nccl_device headers; a runtime NCCL whose device API differs refuses ncclDevCommCreate
// (2.28.9 headers against 2.29.2+: "Cannot create device communicator: ncclDevCommRequirements_t
// ..."; FACTS.md). That says nothing about the code under test: the point is a skip naming both
// versions, a "not applicable here" skip (core/skip_cause.h) that meets any expectation. Pure,
// so the rule is unit-tested without a GPU.
#ifndef GPUHARNESS_SCENARIOS_NCCL_DEVICE_API_SKIP_H_
#define GPUHARNESS_SCENARIOS_NCCL_DEVICE_API_SKIP_H_

#include <optional>
#include <string>
#include <string_view>

namespace gh {

// The skip reason "built against NCCL 2.28.9, runtime 2.29.2: <refusal>" when `refusal` (the
// ncclDevCommCreate error text) is the device API's version refusal (it names
// ncclDevCommRequirements or "Cannot create device communicator") and the compiled and runtime
// versions differ; nullopt otherwise (the same versions, or another refusal: judged as before).
std::optional<std::string> DeviceApiVersionSkip(std::string_view refusal, std::string_view compiled,
                                                std::string_view runtime);

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_NCCL_DEVICE_API_SKIP_H_
