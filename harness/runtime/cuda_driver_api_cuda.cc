#include "harness/runtime/cuda_driver_api_cuda.h"

#include <cuda_runtime.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace gh {
namespace {

// The ABI version the pointers' types were declared for (CUDA 12.0 signatures of these calls).
constexpr unsigned int kDriverAbiVersion = 12000;

template <typename Fn>
absl::Status Resolve(const char* symbol, Fn& fn) {
  void* ptr = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  cudaError_t err =
      cudaGetDriverEntryPointByVersion(symbol, &ptr, kDriverAbiVersion, cudaEnableDefault, &found);
  if (err != cudaSuccess || found != cudaDriverEntryPointSuccess || ptr == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("CUDA driver entry point ", symbol, " unavailable (",
                     cudaGetErrorName(err), ")"));
  }
  fn = reinterpret_cast<Fn>(ptr);
  return absl::OkStatus();
}

absl::StatusOr<CudaDriverApi> Load() {
  CudaDriverApi api;
  for (absl::Status s : {Resolve("cuGetErrorName", api.cuGetErrorName),
                         Resolve("cuGetErrorString", api.cuGetErrorString),
                         Resolve("cuMemGetAllocationGranularity", api.cuMemGetAllocationGranularity),
                         Resolve("cuMemCreate", api.cuMemCreate),
                         Resolve("cuMemRelease", api.cuMemRelease),
                         Resolve("cuMemAddressReserve", api.cuMemAddressReserve),
                         Resolve("cuMemAddressFree", api.cuMemAddressFree),
                         Resolve("cuMemMap", api.cuMemMap),
                         Resolve("cuMemUnmap", api.cuMemUnmap),
                         Resolve("cuMemSetAccess", api.cuMemSetAccess)}) {
    if (!s.ok()) return s;
  }
  return api;
}

}  // namespace

absl::StatusOr<const CudaDriverApi*> GetCudaDriverApi() {
  static const absl::StatusOr<CudaDriverApi> api = Load();
  if (!api.ok()) return api.status();
  return &*api;
}

}  // namespace gh
