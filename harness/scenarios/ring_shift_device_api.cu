// The device-API table over NCCL's nccl_device headers (see ring_shift_device_api.h): the one
// place that holds an ncclDevComm, whose layout changes between NCCL releases (its requirements
// are filled in nccl_dev_comm_cuda.h).
#include <cuda_runtime.h>
#include <nccl.h>
#include <nccl_device.h>

#include <new>

#include "harness/scenarios/ring_shift_device_api.h"
#include "harness/scenarios/nccl_dev_comm_cuda.h"
#include "harness/scenarios/ring_shift_device_kernels_cuda.h"

struct GhNcclDeviceComm {
  ncclComm_t comm = nullptr;
  ncclDevComm dev{};
};

namespace gh {
namespace {

int Create(void* nccl_comm, int lsa_barrier_count, GhNcclDeviceComm** out, int* lsa_size,
           int* n_ranks) {
  auto* created = new (std::nothrow) GhNcclDeviceComm;
  if (created == nullptr) return ncclSystemError;
  created->comm = static_cast<ncclComm_t>(nccl_comm);
  ncclResult_t r = CreateDevCommWithLsaBarriers(created->comm, lsa_barrier_count, &created->dev);
  if (r != ncclSuccess) {
    delete created;
    return r;
  }
  *lsa_size = created->dev.lsaSize;
  *n_ranks = created->dev.nRanks;
  *out = created;
  return ncclSuccess;
}

int Destroy(GhNcclDeviceComm* dev) {
  if (dev == nullptr) return ncclSuccess;
  ncclResult_t r = ncclDevCommDestroy(dev->comm, &dev->dev);
  delete dev;
  return r;
}

int RingShift(const GhNcclDeviceComm* dev, int ctas, void* window, size_t window_offset,
              const void* src, size_t store_bytes, const int64_t* device_begin_row, size_t row_bytes,
              void* stream) {
  return LaunchLsaRingShift(dev->dev, ctas, static_cast<ncclWindow_t>(window), window_offset, src,
                            store_bytes, device_begin_row, row_bytes,
                            static_cast<cudaStream_t>(stream));
}

int Barrier(const GhNcclDeviceComm* dev, void* stream) {
  return LaunchLsaBarrier(dev->dev, static_cast<cudaStream_t>(stream));
}

int RightPointer(const GhNcclDeviceComm* dev, void* window, size_t window_offset, void** out,
                 void* stream) {
  return LaunchRightLsaPointer(dev->dev, static_cast<ncclWindow_t>(window), window_offset, out,
                               static_cast<cudaStream_t>(stream));
}

constexpr GhNcclDeviceApi kTable = {
    GH_NCCL_DEVICE_ABI_VERSION, sizeof(GhNcclDeviceApi), NCCL_VERSION_CODE, Create, Destroy,
    RingShift, Barrier, RightPointer,
};

}  // namespace

const GhNcclDeviceApi* CompiledNcclDeviceApi() { return &kTable; }

}  // namespace gh
