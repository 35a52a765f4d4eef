// Kernel of the device-initiated ring shift (see ring_shift_device_kernels_cuda.h).
#include <cuda_runtime.h>
#include <nccl.h>
#include <nccl_device.h>

#include "harness/scenarios/ring_shift_device_kernels_cuda.h"

namespace gh {
namespace {

// Copies `bytes` with the widest access every pointer and the length allow: 16-byte vectors
// for the bandwidth path, 4-byte words or single bytes for odd slices.
__device__ void CopyGridStride(char* dst, const char* src, size_t bytes) {
  size_t thread = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  size_t stride = size_t(gridDim.x) * blockDim.x;
  auto bits = reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src) | bytes;
  if (bits % 16 == 0) {
    auto* d = reinterpret_cast<float4*>(dst);
    auto* s = reinterpret_cast<const float4*>(src);
    size_t n = bytes / 16;
    size_t i = thread;
    // Four loads in flight per thread before the stores: enough to cover NVLink latency.
    for (; i + 3 * stride < n; i += 4 * stride) {
      float4 a = s[i], b = s[i + stride], c = s[i + 2 * stride], e = s[i + 3 * stride];
      d[i] = a;
      d[i + stride] = b;
      d[i + 2 * stride] = c;
      d[i + 3 * stride] = e;
    }
    for (; i < n; i += stride) d[i] = s[i];
  } else if (bits % 4 == 0) {
    auto* d = reinterpret_cast<uint32_t*>(dst);
    auto* s = reinterpret_cast<const uint32_t*>(src);
    for (size_t i = thread; i < bytes / 4; i += stride) d[i] = s[i];
  } else {
    for (size_t i = thread; i < bytes; i += stride) dst[i] = src[i];
  }
}

__global__ void __launch_bounds__(kLsaThreadsPerCta)
    LsaRingShiftKernel(ncclDevComm dev, ncclWindow_t window, size_t window_offset,
                       const char* src, size_t store_bytes, const int64_t* begin_row,
                       size_t row_bytes) {
  ncclLsaBarrierSession<ncclCoopCta> barrier{ncclCoopCta(), dev, ncclTeamLsa(dev), dev.lsaBarrier,
                                             blockIdx.x};
  // The neighbour is done with its buffer (its previous kernel, and host reads before it).
  barrier.sync(ncclCoopCta(), cuda::memory_order_relaxed);
  if (begin_row != nullptr) src += size_t(*begin_row) * row_bytes;
  int right = (dev.lsaRank + 1) % dev.lsaSize;
  char* dst = static_cast<char*>(ncclGetLsaPointer(window, window_offset, right));
  CopyGridStride(dst, src, store_bytes);
  // Our stores are visible to the neighbour before it goes on.
  barrier.sync(ncclCoopCta(), cuda::memory_order_acq_rel);
}

}  // namespace

cudaError_t LaunchLsaRingShift(const ncclDevComm& dev, int ctas, ncclWindow_t window,
                               size_t window_offset, const void* src, size_t store_bytes,
                               const int64_t* device_begin_row, size_t row_bytes,
                               cudaStream_t stream) {
  LsaRingShiftKernel<<<ctas, kLsaThreadsPerCta, 0, stream>>>(
      dev, window, window_offset, static_cast<const char*>(src), store_bytes, device_begin_row,
      row_bytes);
  return cudaGetLastError();
}

}  // namespace gh
