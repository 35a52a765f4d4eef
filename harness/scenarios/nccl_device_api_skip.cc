#include "harness/scenarios/nccl_device_api_skip.h"

#include "harness/core/skip_cause.h"

namespace gh {

std::optional<std::string> DeviceApiVersionSkip(std::string_view refusal, std::string_view compiled,
                                                std::string_view runtime) {
  if (compiled.empty() || runtime.empty() || compiled == runtime) return std::nullopt;
  const bool version_refusal = refusal.find("ncclDevCommRequirements") != std::string_view::npos ||
                               refusal.find("Cannot create device communicator") != std::string_view::npos;
  if (!version_refusal) return std::nullopt;
  return HarnessBuildMismatchSkip("NCCL", compiled, runtime, refusal);
}

}  // namespace gh
