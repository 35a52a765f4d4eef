// The rank's view of the job while one point × trial runs: who it is, the point's parameters,
// the transport handles, and the watchdog's step label. Owned by the runtime.
#ifndef GPUHARNESS_RUNTIME_POINT_CONTEXT_H_
#define GPUHARNESS_RUNTIME_POINT_CONTEXT_H_

#include <mpi.h>

#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "harness/core/point.h"
#include "harness/core/registry.h"

namespace gh {

class CudaResources;  // harness/runtime/cuda_resources.h (cuda builds only)
class Watchdog;

class PointContext {
 public:
  PointContext(const Point& point, int trial, Backend backend, int rank, int nranks,
               int local_rank, MPI_Comm comm, CudaResources* cuda, Watchdog* watchdog)
      : point_(point), trial_(trial), backend_(backend), rank_(rank), nranks_(nranks),
        local_rank_(local_rank), comm_(comm), cuda_(cuda), watchdog_(watchdog) {}

  const Point& point() const { return point_; }
  int trial() const { return trial_; }
  Backend backend() const { return backend_; }
  int rank() const { return rank_; }
  int nranks() const { return nranks_; }
  int local_rank() const { return local_rank_; }
  int warmup() const { return point_.spec->warmup; }
  int iterations() const { return point_.spec->iterations; }

  // The job's communicator for this point (a duplicate of MPI_COMM_WORLD; never the world).
  MPI_Comm comm() const { return comm_; }
  // The job's CUDA device, stream and NCCL communicator; nullptr on the host backend.
  CudaResources* cuda() const { return cuda_; }

  // Names the step this rank is in ("exchange", "verify"...), for the watchdog's timeout
  // record. `step` must have static storage duration (a string literal).
  void SetStep(const char* step);
  // The same, naming the communication the step issues and its size on this rank
  // ("exchange", "send/recv", 4096): a timeout's divergence line shows it ("exchange #17
  // (send/recv 4 KiB)"). `operation` must have static storage duration too.
  void SetStep(const char* step, const char* operation, int64_t bytes);

  // Whether `failed` holds on any rank of comm() (every rank calls it: a collective), so that
  // all ranks skip a phase of collectives together instead of the good ones waiting for the
  // bad ones. An MPI failure is an error naming it.
  absl::StatusOr<bool> AnyRankFailed(bool failed) const;

  // The job's results directory (--out); "" when the runner has none (kind exec keeps its
  // per-rank logs under it).
  const std::string& out_dir() const { return out_dir_; }
  void set_out_dir(std::string dir) { out_dir_ = std::move(dir); }

 private:
  const Point& point_;
  int trial_;
  Backend backend_;
  int rank_, nranks_, local_rank_;
  MPI_Comm comm_;
  CudaResources* cuda_;
  Watchdog* watchdog_;
  std::string out_dir_;
};

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_POINT_CONTEXT_H_
