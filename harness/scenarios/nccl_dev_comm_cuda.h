// The one place that fills ncclDevCommRequirements, whose layout changes between NCCL releases
// (cuda builds only; header-only, so the device-API plugin built against another NCCL's
// headers compiles it with them).
#ifndef GPUHARNESS_SCENARIOS_NCCL_DEV_COMM_CUDA_H_
#define GPUHARNESS_SCENARIOS_NCCL_DEV_COMM_CUDA_H_

#include <nccl.h>
#include <nccl_device.h>

#include <cstring>

namespace gh {

// ncclDevCommCreate with `lsa_barrier_count` LSA barriers and nothing else asked for.
inline ncclResult_t CreateDevCommWithLsaBarriers(ncclComm_t comm, int lsa_barrier_count,
                                                 ncclDevComm* dev) {
#if defined(NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER)
  // 2.29 on: the struct carries its size, a magic and a version, and NCCL refuses it otherwise.
  ncclDevCommRequirements requirements = NCCL_DEV_COMM_REQUIREMENTS_INITIALIZER;
#else
  ncclDevCommRequirements requirements;
  std::memset(&requirements, 0, sizeof(requirements));
#endif
  requirements.lsaBarrierCount = lsa_barrier_count;
  return ncclDevCommCreate(comm, &requirements, dev);
}

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_NCCL_DEV_COMM_CUDA_H_
