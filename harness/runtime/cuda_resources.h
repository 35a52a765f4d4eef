// The job's CUDA device, stream and NCCL communicator: created once per job (never per point)
// and shared by every point. Plain C++ view; the implementation (cuda_resources_cuda.cc)
// includes CUDA and NCCL. Only exists in cuda builds (GH_HAVE_CUDA).
#ifndef GPUHARNESS_RUNTIME_CUDA_RESOURCES_H_
#define GPUHARNESS_RUNTIME_CUDA_RESOURCES_H_

#include <mpi.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

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
  // nullptr once the watchdog aborted it (NCCL calls on nullptr fail instead of touching freed
  // memory).
  ncclComm_t nccl() const { return nccl_.load(); }

  // From the watchdog thread: abort the communicator so that blocked NCCL calls return.
  // Idempotent; safe while the main thread is inside NCCL or waiting in Synchronize().
  void AbortFromWatchdog();
  bool aborted() const { return aborted_.load(); }
  // After a point's error or abort: abort the old communicator and create a new one for the next
  // point. Collective over `comm`: every rank must call it. When any rank's CUDA context is lost
  // (a sticky error) no rank builds one: that rank returns its CUDA error, the others
  // FailedPrecondition "the CUDA context of rank 1 is lost".
  absl::Status Recreate(MPI_Comm comm);

  // Waits until the job stream has drained, polling so that an asynchronous NCCL error or a
  // watchdog abort ends the wait (with that error's signature) instead of hanging the rank.
  absl::Status Synchronize();

  // GPU name, driver/runtime/NCCL versions for the fingerprint.
  void FillFingerprint(EnvironmentFingerprint& fp) const;

 private:
  CudaResources() = default;
  absl::Status InitNccl(MPI_Comm comm);  // unique id from rank 0, ncclCommInitRank

  int device_ = -1;
  cudaStream_t stream_ = nullptr;
  std::atomic<ncclComm_t> nccl_{nullptr};
  std::mutex nccl_mu_;                  // guards swapping nccl_ against the watchdog's abort
  std::atomic<bool> aborted_{false};    // nccl_ was aborted by the watchdog
};

// Version formatting for the fingerprint (plain functions, unit-tested without a GPU).
std::string FormatNcclVersionCode(int code);   // 22809 -> "2.28.9"; 2708 (pre-2.9) -> "2.7.8"
std::string FormatCudaVersion(int version);     // 13000 -> "13.0", 12080 -> "12.8"
// The driver version from /proc/driver/nvidia/version's text ("... Kernel Module  580.159.04
// Release Build ..." -> "580.159.04"); empty when none is found.
std::string ParseProcDriverVersion(std::string_view text);

// Number of visible GPUs (0 when no driver or none visible, never an error). When it is 0 and
// `why_none` is set, it receives the reason (the CUDA error signature, or "no CUDA device").
int VisibleGpuCount(std::string* why_none = nullptr);

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_CUDA_RESOURCES_H_
