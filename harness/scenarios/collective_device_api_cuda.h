// The collective kind's device-API implementations (`implementation: device_lsa`), the kernels
// nccl-tests runs with -D 1: each rank's CTAs read and write its peers' symmetric windows
// directly (ncclGetLsaPointer) between two LSA barriers, one barrier per CTA (-V CTAs of 512
// threads). all_reduce: every element is summed over the peers' send windows by one thread of
// the whole team and stored into every peer's receive window; alltoall: each rank stores its
// block for peer p into p's receive window. Compiled against the nccl_device headers of this
// build (an NCCL that refuses this build's ncclDevCommCreate is a skip with its reason). This
// header keeps nccl_device.h out of its includers.
#ifndef GPUHARNESS_SCENARIOS_COLLECTIVE_DEVICE_API_CUDA_H_
#define GPUHARNESS_SCENARIOS_COLLECTIVE_DEVICE_API_CUDA_H_

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <memory>

#include "absl/status/statusor.h"
#include "harness/scenarios/collective.h"

namespace gh {

class CollectiveDevComm {
 public:
  // ncclDevCommCreate with `ctas` LSA barriers, collective over `comm`. FailedPrecondition with
  // NCCL's reason where it refuses, or where not every rank is in the LSA team.
  static absl::StatusOr<std::unique_ptr<CollectiveDevComm>> Create(ncclComm_t comm, int ctas);
  ~CollectiveDevComm();  // ncclDevCommDestroy

  // One operation on `stream`: `count` elements per rank (all_reduce) or per peer (alltoall),
  // at byte offsets `send_offset` / `recv_offset` of the two windows.
  absl::Status Enqueue(CollectiveOp op, CollDtype dtype, ncclWindow_t send, size_t send_offset,
                       ncclWindow_t recv, size_t recv_offset, size_t count, cudaStream_t stream);

  struct Impl;

 private:
  explicit CollectiveDevComm(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_COLLECTIVE_DEVICE_API_CUDA_H_
