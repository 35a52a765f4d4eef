// The device-initiated ring shift (ring_shift's `nccl_device` transport, and sliced_collective's
// `ring_shift_device` collective): each rank's kernel stores its block straight into its right
// neighbour's symmetric window through NCCL 2.28's device API (ncclDevCommCreate,
// ncclGetLsaPointer, an LSA barrier before and after), the analogue of seed 000's
// plgpu.remote_ref. Where the communicator cannot give a device communicator (ranks sharing a
// GPU: "GIN not supported."; NCCL_CUMEM_ENABLE=0: "Communicator does not support symmetric
// memory!") the point is a skip with that reason. Cuda builds only.
#ifndef GPUHARNESS_SCENARIOS_RING_SHIFT_DEVICE_H_
#define GPUHARNESS_SCENARIOS_RING_SHIFT_DEVICE_H_

#if defined(GH_HAVE_CUDA)

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "harness/core/outcome.h"
#include "harness/scenarios/ring_shift.h"

typedef struct CUstream_st* cudaStream_t;
typedef struct ncclComm* ncclComm_t;
typedef struct ncclWindow_vidmem* ncclWindow_t;

namespace gh {

class PointContext;

// A device communicator with one LSA barrier per CTA, for ring-shift kernels.
class LsaRingShift {
 public:
  // Collective over the communicator. Fails with FailedPrecondition carrying the reason when
  // NCCL refuses the device communicator or the right neighbour is outside the LSA team.
  static absl::StatusOr<std::unique_ptr<LsaRingShift>> Create(ncclComm_t comm);
  ~LsaRingShift();  // ncclDevCommDestroy

  // Enqueues on `stream`: barrier; store `bytes` from `src` (local device memory) into the right
  // neighbour's `window` at `window_offset`; barrier. When `device_begin_row` is not null the
  // source is src + (*device_begin_row) * row_bytes, read on the device (a dynamic slice).
  // `store_bytes` < `bytes` writes only a prefix (the partial-write fault); the barriers always run.
  absl::Status Enqueue(ncclWindow_t window, size_t window_offset, const void* src, size_t bytes,
                       size_t store_bytes, const int64_t* device_begin_row, size_t row_bytes,
                       cudaStream_t stream);

  // The copy-engine transport (`nccl_ce`), on `stream`: barrier; cudaMemcpyAsync of
  // `store_bytes` (<= `bytes`; none for the stale-block fault) from `src` to `peer`; barrier.
  // `peer` is RightPeerPointer's address.
  absl::Status EnqueueCopyEngine(void* peer, const void* src, size_t bytes, size_t store_bytes,
                                 cudaStream_t stream);
  // The right neighbour's address of `window_offset` in `window`, as this process maps it
  // (ncclGetLsaPointer, read on the device). Waits for `stream`: call it outside timed regions.
  absl::StatusOr<void*> RightPeerPointer(ncclWindow_t window, size_t window_offset,
                                         cudaStream_t stream);

  int ctas() const;

  // Whether NCCL's communicator must be re-created after Create() refused with `refusal`.
  // Measured on the H200: a refusal after NCCL began building the device communicator
  // ("GIN not supported." with 2.28.9 and ranks sharing a GPU) leaves the communicator unfit
  // (the next window registration fails, later Create()s fail with "Cuda failure 1"); the
  // precondition refusal "Communicator does not support symmetric memory!" (2.28.3 without
  // load/store peers, NCCL_CUMEM_ENABLE=0) leaves it working. (The illegal address once seen
  // after that refusal with 2.28.3 and two ranks sharing the GPU was ours: buffers freed under
  // a GEMM still running; Allocation::Free now waits for the stream.)
  static bool RefusalNeedsNewCommunicator(const absl::Status& refusal);

  struct Impl;

 private:
  explicit LsaRingShift(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// ring_shift over the `nccl_device` transport (SM stores) or `nccl_ce` (the copy engine, a
// cudaMemcpyAsync): the send buffer (cudaMalloc) goes into the neighbour's receive buffer
// (ncclMemAlloc, symmetric window). Records bandwidth_GBps and, in the same run, a
// device-to-device copy of the same bytes (copy_bandwidth_GBps) and their ratio.
RankOutcome RunRingShiftDeviceCuda(PointContext& ctx, const RingShiftParams& params);

}  // namespace gh

#endif  // GH_HAVE_CUDA
#endif  // GPUHARNESS_SCENARIOS_RING_SHIFT_DEVICE_H_
