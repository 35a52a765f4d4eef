// Kernel of the device-initiated ring shift (see ring_shift_device_kernels_cuda.h).
#include <cuda_runtime.h>
#include <nccl.h>
#include <nccl_device.h>

#include <mutex>
#include <optional>

#include "harness/scenarios/ring_shift_device_kernels_cuda.h"

namespace gh {
namespace {

// Copies `bytes` with the widest access every pointer and the length allow: 16-byte vectors
// for the bandwidth path, 4-byte words or single bytes for odd slices. The vector path moves
// warp-contiguous tiles: lane l of a warp loads float4 tile*256 + u*32 + l for u < 8 (a 4 KiB
// tile per warp, eight loads in flight per thread before the stores). Measured on the H200
// (docs/performance.md) against the grid-stride loop this replaced (four float4 per thread,
// 1 MiB apart, 512 threads per CTA): 0.935 -> 0.941 of a device-to-device copy at 4 GiB,
// 0.913 -> 0.951 at 256 MiB; more threads, more CTAs per SM or streaming (.cs) accesses were
// slower, as were TMA bulk copies through shared memory.
__device__ void CopyGridStride(char* dst, const char* src, size_t bytes) {
  size_t thread = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  size_t stride = size_t(gridDim.x) * blockDim.x;
  auto bits = reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src) | bytes;
  if (bits % 16 == 0) {
    constexpr int kUnroll = 8;
    constexpr size_t kTile = 32 * kUnroll;  // float4 per warp tile
    auto* d = reinterpret_cast<float4*>(dst);
    auto* s = reinterpret_cast<const float4*>(src);
    const size_t n = bytes / 16;
    const size_t tiles = n / kTile;
    const size_t lane = threadIdx.x % 32;
    for (size_t t = thread / 32; t < tiles; t += stride / 32) {
      const size_t base = t * kTile + lane;
      float4 r[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) r[u] = s[base + u * 32];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) d[base + u * 32] = r[u];
    }
    for (size_t i = tiles * kTile + thread; i < n; i += stride) d[i] = s[i];
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
#if __CUDA_ARCH__ >= 900
  // Launched as a programmatic dependent (LaunchLsaRingShift): wait here until the kernel
  // before us in the stream has completed and flushed its memory.
  cudaGridDependencySynchronize();
#endif
  // The neighbour is done with its buffer (its previous kernel, and host reads before it).
  barrier.sync(ncclCoopCta(), cuda::memory_order_relaxed);
  if (begin_row != nullptr) src += size_t(*begin_row) * row_bytes;
  int right = (dev.lsaRank + 1) % dev.lsaSize;
  char* dst = static_cast<char*>(ncclGetLsaPointer(window, window_offset, right));
  CopyGridStride(dst, src, store_bytes);
#if __CUDA_ARCH__ >= 900
  // The next kernel may be launched now: its launch overlaps our barrier and exit, and its
  // CTAs wait at the top until we are done (one per SM, by the reserved shared memory).
  cudaTriggerProgrammaticLaunchCompletion();
#endif
  // Our stores are visible to the neighbour before it goes on.
  barrier.sync(ncclCoopCta(), cuda::memory_order_acq_rel);
}

// The copy-engine transport's fence on either side of its cudaMemcpyAsync: one CTA, LSA
// barrier 0. acq_rel both times: before, the neighbour has finished with its window; after,
// the copy (complete, by stream order) is visible to the neighbour before it goes on.
__global__ void LsaBarrierKernel(ncclDevComm dev) {
  ncclLsaBarrierSession<ncclCoopCta> barrier{ncclCoopCta(), dev, ncclTeamLsa(dev), dev.lsaBarrier, 0};
  barrier.sync(ncclCoopCta(), cuda::memory_order_acq_rel);
}

__global__ void RightLsaPointerKernel(ncclDevComm dev, ncclWindow_t window, size_t window_offset,
                                      void** out) {
  *out = ncclGetLsaPointer(window, window_offset, (dev.lsaRank + 1) % dev.lsaSize);
}

// How LaunchLsaRingShift launches on one device, found once per device (a process may drive
// more than one). Programmatic dependent launch needs sm_90 (the kernel's griddepcontrol). The
// dynamic shared memory, unused, is more than half an SM's: it keeps the kernel at one CTA per
// SM, so the next launch's CTAs land one per SM as ours leave. Without it they doubled up on
// some SMs and the back-to-back loop lost up to 8 % (docs/performance.md).
struct LaunchShape {
  bool dependent_launch = false;
  int one_cta_per_sm_bytes = 0;
};

LaunchShape FindLaunchShape(int device) {
  LaunchShape shape;
  int major = 0, per_sm = 0, per_block = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess) {
    return shape;
  }
  const int bytes = per_sm / 2 + 1024;
  if (major < 9 || bytes > per_block ||
      cudaFuncSetAttribute(LsaRingShiftKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) !=
          cudaSuccess) {
    return shape;
  }
  return {true, bytes};
}

LaunchShape LaunchShapeOfCurrentDevice() {
  constexpr int kMaxDevices = 64;
  static std::mutex mu;
  static std::optional<LaunchShape> shapes[kMaxDevices];
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kMaxDevices) return {};
  std::lock_guard<std::mutex> lock(mu);
  if (!shapes[device]) shapes[device] = FindLaunchShape(device);
  return *shapes[device];
}

}  // namespace

cudaError_t LaunchLsaBarrier(const ncclDevComm& dev, cudaStream_t stream) {
  LsaBarrierKernel<<<1, 32, 0, stream>>>(dev);
  return cudaGetLastError();
}

cudaError_t LaunchRightLsaPointer(const ncclDevComm& dev, ncclWindow_t window,
                                  size_t window_offset, void** out, cudaStream_t stream) {
  RightLsaPointerKernel<<<1, 1, 0, stream>>>(dev, window, window_offset, out);
  return cudaGetLastError();
}

cudaError_t LaunchLsaRingShift(const ncclDevComm& dev, int ctas, ncclWindow_t window,
                               size_t window_offset, const void* src, size_t store_bytes,
                               const int64_t* device_begin_row, size_t row_bytes,
                               cudaStream_t stream) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(ctas);
  config.blockDim = dim3(kLsaThreadsPerCta);
  config.stream = stream;
  cudaLaunchAttribute dependent_launch = {};
  dependent_launch.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  dependent_launch.val.programmaticStreamSerializationAllowed = 1;
  if (LaunchShape shape = LaunchShapeOfCurrentDevice(); shape.dependent_launch) {
    config.dynamicSmemBytes = size_t(shape.one_cta_per_sm_bytes);
    config.attrs = &dependent_launch;
    config.numAttrs = 1;
  }
  return cudaLaunchKernelEx(&config, LsaRingShiftKernel, dev, window, window_offset,
                            static_cast<const char*>(src), store_bytes, device_begin_row,
                            row_bytes);
}

}  // namespace gh
