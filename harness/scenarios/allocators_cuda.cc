// Device allocators: cudaMalloc, cudaMallocAsync on the device's default pool, ncclMemAlloc,
// cuMemCreate (POSIX-FD handle) reserved and mapped, and an arena carved from one ncclMemAlloc
// block. Each Allocation frees with the call that matches its allocation.
#include <cuda.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/core/status_macros.h"
#include "harness/scenarios/allocators.h"
#include "harness/runtime/cuda_driver_api_cuda.h"
#include "harness/runtime/cuda_errors_cuda.h"

namespace gh {
namespace {

std::string CuSignature(CUresult result) {
  const char* name = nullptr;
  const char* text = nullptr;
  // Only reached after a driver call, so the entry points resolved.
  const CudaDriverApi* api = *GetCudaDriverApi();
  if (api->cuGetErrorName(result, &name) != CUDA_SUCCESS) name = "CUDA_ERROR_UNKNOWN";
  if (api->cuGetErrorString(result, &text) != CUDA_SUCCESS) text = "unknown driver error";
  return absl::StrCat(name, ": ", text);
}

absl::Status AllocError(std::string_view what, int64_t bytes, const std::string& signature) {
  return absl::InternalError(absl::StrCat(signature, " (", std::string(what), " of ", bytes, " bytes)"));
}

class DeviceAllocation : public Allocation {
 public:
  using FreeFn = absl::Status (*)(DeviceAllocation&);
  DeviceAllocation(AllocatorKind kind, void* base, int64_t allocation_bytes, int64_t placement,
                   int64_t bytes, cudaStream_t stream)
      : Allocation(base, allocation_bytes, placement, bytes, /*on_device=*/true),
        kind_(kind), stream_(stream) {}
  ~DeviceAllocation() override { (void)Free(); }

  // VMM bookkeeping: the physical handle and the mapped size.
  CUmemGenericAllocationHandle vmm_handle = 0;
  size_t vmm_size = 0;

  absl::Status WaitForPendingWork() override {
    if (base_ == nullptr) return absl::OkStatus();
    if (cudaError_t e = cudaStreamSynchronize(stream_); e != cudaSuccess) {
      return absl::InternalError(
          absl::StrCat(CudaErrorSignature(e), " (cudaStreamSynchronize before free)"));
    }
    return absl::OkStatus();
  }

  absl::Status Free() override {
    if (base_ == nullptr) return absl::OkStatus();
    // Freed even when the wait failed (a sticky error): nothing more can run on the memory.
    absl::Status status = WaitForPendingWork();
    status.Update(FreeNow());
    base_ = data_ = nullptr;
    return status;
  }

 private:
  absl::Status FreeNow() {
    switch (kind_) {
      case AllocatorKind::kCudaMalloc:
        if (cudaError_t e = cudaFree(base_); e != cudaSuccess) {
          return absl::InternalError(absl::StrCat(CudaErrorSignature(e), " (cudaFree)"));
        }
        return absl::OkStatus();
      case AllocatorKind::kCudaMallocAsync: {
        cudaError_t e = cudaFreeAsync(base_, stream_);
        if (e == cudaSuccess) e = cudaStreamSynchronize(stream_);
        if (e != cudaSuccess) {
          return absl::InternalError(absl::StrCat(CudaErrorSignature(e), " (cudaFreeAsync)"));
        }
        return absl::OkStatus();
      }
      case AllocatorKind::kNcclMemAlloc:
      case AllocatorKind::kArena:
        if (ncclResult_t r = ncclMemFree(base_); r != ncclSuccess) {
          return absl::InternalError(absl::StrCat(NcclErrorSignature(r, nullptr), " (ncclMemFree)"));
        }
        return absl::OkStatus();
      case AllocatorKind::kVmm: {
        // A vmm allocation exists only if the entry points resolved.
        const CudaDriverApi* api = *GetCudaDriverApi();
        auto ptr = reinterpret_cast<CUdeviceptr>(base_);
        CUresult r = api->cuMemUnmap(ptr, vmm_size);
        CUresult r2 = api->cuMemAddressFree(ptr, vmm_size);
        CUresult r3 = api->cuMemRelease(vmm_handle);
        for (CUresult each : {r, r2, r3}) {
          if (each != CUDA_SUCCESS) {
            return absl::InternalError(absl::StrCat(CuSignature(each), " (vmm free)"));
          }
        }
        return absl::OkStatus();
      }
      case AllocatorKind::kMalloc:
        break;
    }
    return absl::InternalError("device allocation of a host kind");
  }

  AllocatorKind kind_;
  cudaStream_t stream_;
};

absl::StatusOr<std::unique_ptr<Allocation>> AllocateVmm(int64_t placement, int64_t bytes,
                                                         cudaStream_t stream) {
  absl::StatusOr<const CudaDriverApi*> driver = GetCudaDriverApi();
  if (!driver.ok()) return AllocError("cuMemCreate", bytes, std::string(driver.status().message()));
  const CudaDriverApi* api = *driver;
  int device = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) {
    return AllocError("cudaGetDevice", bytes, CudaErrorSignature(e));
  }
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t granularity = 0;
  if (CUresult r = api->cuMemGetAllocationGranularity(&granularity, &prop,
                                                 CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
      r != CUDA_SUCCESS) {
    return AllocError("cuMemGetAllocationGranularity", bytes, CuSignature(r));
  }
  size_t needed = static_cast<size_t>(std::max<int64_t>(placement + bytes, 1));
  size_t size = (needed + granularity - 1) / granularity * granularity;
  CUmemGenericAllocationHandle handle = 0;
  if (CUresult r = api->cuMemCreate(&handle, size, &prop, 0); r != CUDA_SUCCESS) {
    return AllocError("cuMemCreate", static_cast<int64_t>(size), CuSignature(r));
  }
  CUdeviceptr ptr = 0;
  if (CUresult r = api->cuMemAddressReserve(&ptr, size, granularity, 0, 0); r != CUDA_SUCCESS) {
    api->cuMemRelease(handle);
    return AllocError("cuMemAddressReserve", static_cast<int64_t>(size), CuSignature(r));
  }
  if (CUresult r = api->cuMemMap(ptr, size, 0, handle, 0); r != CUDA_SUCCESS) {
    api->cuMemAddressFree(ptr, size);
    api->cuMemRelease(handle);
    return AllocError("cuMemMap", static_cast<int64_t>(size), CuSignature(r));
  }
  CUmemAccessDesc access = {};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  if (CUresult r = api->cuMemSetAccess(ptr, size, &access, 1); r != CUDA_SUCCESS) {
    api->cuMemUnmap(ptr, size);
    api->cuMemAddressFree(ptr, size);
    api->cuMemRelease(handle);
    return AllocError("cuMemSetAccess", static_cast<int64_t>(size), CuSignature(r));
  }
  auto allocation = std::make_unique<DeviceAllocation>(
      AllocatorKind::kVmm, reinterpret_cast<void*>(ptr), static_cast<int64_t>(size), placement,
      bytes, stream);
  allocation->vmm_handle = handle;
  allocation->vmm_size = size;
  return std::unique_ptr<Allocation>(std::move(allocation));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Allocation>> AllocateDevice(const AllocatorSpec& spec,
                                                            int64_t bytes, cudaStream_t stream) {
  GH_RETURN_IF_ERROR(CheckAllocationRequest(spec, bytes, Backend::kCuda));
  int64_t placement = PlacementOffset(spec);
  int64_t total = std::max<int64_t>(placement + bytes, 1);
  void* base = nullptr;
  switch (spec.kind) {
    case AllocatorKind::kCudaMalloc:
      if (cudaError_t e = cudaMalloc(&base, total); e != cudaSuccess) {
        return AllocError("cudaMalloc", total, CudaErrorSignature(e));
      }
      break;
    case AllocatorKind::kCudaMallocAsync: {
      cudaError_t e = cudaMallocAsync(&base, total, stream);
      if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
      if (e != cudaSuccess) return AllocError("cudaMallocAsync", total, CudaErrorSignature(e));
      break;
    }
    case AllocatorKind::kNcclMemAlloc:
    case AllocatorKind::kArena:
      if (ncclResult_t r = ncclMemAlloc(&base, total); r != ncclSuccess) {
        return AllocError("ncclMemAlloc", total, NcclErrorSignature(r, nullptr));
      }
      break;
    case AllocatorKind::kVmm:
      return AllocateVmm(placement, bytes, stream);
    case AllocatorKind::kMalloc:
      break;
  }
  return std::unique_ptr<Allocation>(
      new DeviceAllocation(spec.kind, base, total, placement, bytes, stream));
}

}  // namespace gh
