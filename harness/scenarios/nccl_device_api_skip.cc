#include "harness/scenarios/nccl_device_api_skip.h"

namespace gh {

std::optional<std::string> DeviceApiVersionSkip(std::string_view refusal, std::string_view compiled,
                                                std::string_view runtime) {
  if (compiled.empty() || runtime.empty() || compiled == runtime) return std::nullopt;
  const bool version_refusal = refusal.find("ncclDevCommRequirements") != std::string_view::npos ||
                               refusal.find("Cannot create device communicator") != std::string_view::npos;
  if (!version_refusal) return std::nullopt;
  return "built against NCCL " + std::string(compiled) + ", runtime " + std::string(runtime) + ": " +
         std::string(refusal);
}

}  // namespace gh
