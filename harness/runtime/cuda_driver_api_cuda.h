// The few CUDA driver API functions the harness calls (virtual memory management), fetched
// through the runtime's cudaGetDriverEntryPointByVersion instead of linked from libcuda.so.1,
// so that every binary loads on a machine without a GPU driver (CI) and reports "no GPU".
#ifndef GPUHARNESS_RUNTIME_CUDA_DRIVER_API_CUDA_H_
#define GPUHARNESS_RUNTIME_CUDA_DRIVER_API_CUDA_H_

#include <cuda.h>

#include "absl/status/statusor.h"

namespace gh {

struct CudaDriverApi {
  decltype(&::cuGetErrorName) cuGetErrorName = nullptr;
  decltype(&::cuGetErrorString) cuGetErrorString = nullptr;
  decltype(&::cuMemGetAllocationGranularity) cuMemGetAllocationGranularity = nullptr;
  decltype(&::cuMemCreate) cuMemCreate = nullptr;
  decltype(&::cuMemRelease) cuMemRelease = nullptr;
  decltype(&::cuMemAddressReserve) cuMemAddressReserve = nullptr;
  decltype(&::cuMemAddressFree) cuMemAddressFree = nullptr;
  decltype(&::cuMemMap) cuMemMap = nullptr;
  decltype(&::cuMemUnmap) cuMemUnmap = nullptr;
  decltype(&::cuMemSetAccess) cuMemSetAccess = nullptr;
};

// Resolved once (thread-safe); an error names the symbol the driver could not provide.
absl::StatusOr<const CudaDriverApi*> GetCudaDriverApi();

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_CUDA_DRIVER_API_CUDA_H_
