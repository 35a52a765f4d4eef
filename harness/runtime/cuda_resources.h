// The job's CUDA device, stream and NCCL communicator: created once per job (never per point)
// and shared by every point. Plain C++ view; the implementation (cuda_resources_cuda.cc)
// includes CUDA and NCCL. Only exists in cuda builds (GH_HAVE_CUDA).
#ifndef GPUHARNESS_RUNTIME_CUDA_RESOURCES_H_
#define GPUHARNESS_RUNTIME_CUDA_RESOURCES_H_

#include <mpi.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "harness/core/fingerprint.h"

// Opaque handles, so this header stays free of cuda_runtime.h and nccl.h.
typedef struct CUstream_st* cudaStream_t;
typedef struct ncclComm* ncclComm_t;

namespace gh {

class CudaResources {
 public:
  // Binds this rank to `device`, creates a non-blocking stream and an NCCL communicator over
  // `comm` (unique id from rank 0 by MPI_Bcast). Errors carry the CUDA/NCCL signature.
  static absl::StatusOr<std::unique_ptr<CudaResources>> Create(int device, MPI_Comm comm);
  ~CudaResources();  // destroys the communicator (or aborts it if it was marked broken)

  int device() const { return device_; }
  cudaStream_t stream() const { return stream_; }
  ncclComm_t nccl() const { return nccl_; }

  // From the watchdog thread: abort the communicator so that blocked NCCL calls return.
  void AbortFromWatchdog();
  // After a point's error or abort: destroy and re-create the communicator for the next point.
  absl::Status Recreate(MPI_Comm comm);

  // GPU name, driver/runtime/NCCL versions for the fingerprint.
  void FillFingerprint(EnvironmentFingerprint& fp) const;

 private:
  CudaResources() = default;
  int device_ = -1;
  cudaStream_t stream_ = nullptr;
  ncclComm_t nccl_ = nullptr;
};

// Number of visible GPUs (0 when no driver or none visible, never an error).
int VisibleGpuCount();

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_CUDA_RESOURCES_H_
