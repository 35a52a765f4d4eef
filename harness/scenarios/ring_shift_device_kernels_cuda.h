// The device-initiated ring shift's kernel behind a plain launcher, so that host logic builds
// with the host compiler: every CTA syncs on its LSA barrier, stores its share of the block
// into the right neighbour's window (ncclGetLsaPointer), and syncs again. Also the pieces of the
// copy-engine transport: a one-CTA barrier and the neighbour's window address for the host.
#ifndef GPUHARNESS_SCENARIOS_RING_SHIFT_DEVICE_KERNELS_CUDA_H_
#define GPUHARNESS_SCENARIOS_RING_SHIFT_DEVICE_KERNELS_CUDA_H_

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>

struct ncclDevComm;

namespace gh {

inline constexpr int kLsaThreadsPerCta = 256;  // one CTA per SM (measured: docs/performance.md)

// Launches `ctas` CTAs (the device communicator needs one LSA barrier per CTA). Stores
// `store_bytes` from `src` — or from src + (*device_begin_row) * row_bytes when
// `device_begin_row` is not null, read on the device — to `window_offset` in the right LSA
// neighbour's `window`. Returns the launch's error.
cudaError_t LaunchLsaRingShift(const ncclDevComm& dev, int ctas, ncclWindow_t window,
                               size_t window_offset, const void* src, size_t store_bytes,
                               const int64_t* device_begin_row, size_t row_bytes,
                               cudaStream_t stream);

// One CTA syncs LSA barrier 0 (acq_rel): the copy-engine transport's barrier.
cudaError_t LaunchLsaBarrier(const ncclDevComm& dev, cudaStream_t stream);

// Writes the right LSA neighbour's address of `window_offset` in `window` to *out (device memory).
cudaError_t LaunchRightLsaPointer(const ncclDevComm& dev, ncclWindow_t window,
                                  size_t window_offset, void** out, cudaStream_t stream);

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_RING_SHIFT_DEVICE_KERNELS_CUDA_H_
