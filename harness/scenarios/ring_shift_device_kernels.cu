// Kernel of the device-initiated ring shift (see ring_shift_device_kernels_cuda.h).
#include <cuda_runtime.h>
#include <nccl.h>
#include <nccl_device.h>

#include <algorithm>
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
// slower. On sm_90 the kernel moves whole chunks with BulkCopyThroughShared instead, and this
// loop only the rest.
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

// Bulk copies through shared memory (cp.async.bulk, sm_90): thread 0 of each CTA keeps
// kBulkStages chunks of kBulkChunk bytes in flight, global -> shared completing on an mbarrier,
// then shared -> neighbour; a stage is refilled as soon as its store has read it. CTA b moves
// chunks b + i * gridDim.x; CopyGridStride, over every thread, moves the bytes after the last
// whole chunk. Measured on an H100 with bench/store_kernel_variants (docs/performance.md, "Bulk
// copies through shared memory"): 0.960-0.974 of the copy engine at 64 MiB-4 GiB where
// CopyGridStride alone reached 0.936-0.958. Needs 16-byte aligned pointers (the caller checks).
constexpr int kBulkChunk = 32 << 10;
constexpr int kBulkStages = 4;
constexpr int kBulkSharedBytes = kBulkChunk * kBulkStages;

__device__ __forceinline__ uint32_t SharedAddress(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ void BulkCopyThroughShared(char* dst, const char* src, size_t bytes, unsigned char* stages) {
#if __CUDA_ARCH__ >= 900
  __shared__ __align__(8) uint64_t full[kBulkStages];
  const size_t chunks = bytes / kBulkChunk;
  if (threadIdx.x == 0) {
    for (int i = 0; i < kBulkStages; ++i) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(SharedAddress(&full[i])) : "memory");
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    // What the generic proxy did before (the LSA barrier's acquire) is ordered before the bulk
    // copies' reads and writes.
    asm volatile("fence.proxy.async.global;" ::: "memory");
    const uint32_t base = SharedAddress(stages);
    auto load = [&](size_t chunk, int stage) {
      const uint32_t bar = SharedAddress(&full[stage]);
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(kBulkChunk)
                   : "memory");
      asm volatile(
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
              base + stage * kBulkChunk),
          "l"(src + chunk * kBulkChunk), "r"(kBulkChunk), "r"(bar)
          : "memory");
    };
    const size_t step = gridDim.x;
    for (int i = 0; i < kBulkStages; ++i) {
      if (blockIdx.x + i * step < chunks) load(blockIdx.x + i * step, i);
    }
    size_t k = 0;
    for (size_t c = blockIdx.x; c < chunks; c += step, ++k) {
      const int stage = int(k % kBulkStages);
      const uint32_t parity = uint32_t((k / kBulkStages) & 1);
      uint32_t done = 0;
      do {
        asm volatile(
            "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
            : "=r"(done)
            : "r"(SharedAddress(&full[stage])), "r"(parity)
            : "memory");
      } while (!done);
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst + c * kBulkChunk),
                   "r"(base + stage * kBulkChunk), "r"(kBulkChunk)
                   : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      // The previous stage is free once its store has read it: refill it with the chunk
      // kBulkStages - 1 rounds ahead.
      const size_t refill = c + (kBulkStages - 1) * step;
      if (k >= 1 && refill < chunks) {
        asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
        load(refill, int((k - 1) % kBulkStages));
      }
    }
    // The stores are complete, and ordered before what this thread does next in the generic
    // proxy (the LSA barrier's release).
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    asm volatile("fence.proxy.async.global;" ::: "memory");
  }
  const size_t head = chunks * kBulkChunk;
  CopyGridStride(dst + head, src + head, bytes - head);
#else
  CopyGridStride(dst, src, bytes);
#endif
}

// `bulk`: the launch gave the CTA kBulkSharedBytes of dynamic shared memory on sm_90 or later.
__global__ void __launch_bounds__(kLsaThreadsPerCta)
    LsaRingShiftKernel(ncclDevComm dev, ncclWindow_t window, size_t window_offset,
                       const char* src, size_t store_bytes, const int64_t* begin_row,
                       size_t row_bytes, bool bulk) {
  extern __shared__ __align__(128) unsigned char stages[];
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
  const bool aligned = ((reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src)) % 16) == 0;
  // Below 8 chunks per CTA the per-CTA pipeline's start-up is not paid back (measured: the
  // per-iteration median at 1-16 MiB lost 10-20 %, docs/performance.md).
  const bool many_chunks = store_bytes / kBulkChunk >= 8 * size_t(gridDim.x);
  if (bulk && aligned && many_chunks) {
    BulkCopyThroughShared(dst, src, store_bytes, stages);
  } else {
    CopyGridStride(dst, src, store_bytes);
  }
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
// more than one). Programmatic dependent launch and the bulk copies need sm_90 (griddepcontrol,
// cp.async.bulk). The dynamic shared memory holds the bulk copies' stages and is more than half
// an SM's: it keeps the kernel at one CTA per SM, so the next launch's CTAs land one per SM as
// ours leave. Without that they doubled up on some SMs and the back-to-back loop lost up to 8 %
// (docs/performance.md).
struct LaunchShape {
  bool dependent_launch = false;
  bool bulk_copies = false;
  int one_cta_per_sm_bytes = 0;
};

LaunchShape FindLaunchShape(int device) {
  LaunchShape shape;
  int major = 0, per_sm = 0, per_block = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess ||
      major < 9) {
    return shape;
  }
  // The bulk copies' stages where a CTA may have them, else only the one-CTA-per-SM reservation.
  const int alone = per_sm / 2 + 1024;
  const int with_stages = std::max(alone, kBulkSharedBytes);
  for (const int bytes : {with_stages, alone}) {
    if (bytes <= per_block &&
        cudaFuncSetAttribute(LsaRingShiftKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) ==
            cudaSuccess) {
      return {true, bytes >= kBulkSharedBytes, bytes};
    }
    (void)cudaGetLastError();  // a refused size is not the next launch's error
  }
  return shape;
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
  const LaunchShape shape = LaunchShapeOfCurrentDevice();
  if (shape.dependent_launch) {
    config.dynamicSmemBytes = size_t(shape.one_cta_per_sm_bytes);
    config.attrs = &dependent_launch;
    config.numAttrs = 1;
  }
  return cudaLaunchKernelEx(&config, LsaRingShiftKernel, dev, window, window_offset,
                            static_cast<const char*>(src), store_bytes, device_begin_row,
                            row_bytes, shape.bulk_copies);
}

}  // namespace gh
