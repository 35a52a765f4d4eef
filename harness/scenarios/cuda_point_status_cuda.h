// What the cuda kinds' host code shares around one point (cuda builds only): a CUDA or NCCL
// return code as a Status naming the call, and the outcomes a point starts from or ends with
// before it runs (rank_steps.h has the error outcome that keeps what a point measured).
#ifndef GPUHARNESS_SCENARIOS_CUDA_POINT_STATUS_CUDA_H_
#define GPUHARNESS_SCENARIOS_CUDA_POINT_STATUS_CUDA_H_

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/core/outcome.h"
#include "harness/runtime/cuda_errors_cuda.h"
#include "harness/runtime/cuda_resources.h"
#include "harness/runtime/point_context.h"
#include "harness/scenarios/rank_steps.h"

namespace gh {

inline absl::Status CudaOk(cudaError_t e, std::string_view what) {
  if (e == cudaSuccess) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(CudaErrorSignature(e), " (", std::string(what), ")"));
}

inline absl::Status NcclOk(ncclResult_t r, ncclComm_t comm, std::string_view what) {
  if (r == ncclSuccess) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(NcclErrorSignature(r, comm), " (", std::string(what), ")"));
}

// This rank's outcome before anything ran: rank and device filled in.
inline RankOutcome CudaPointOutcome(PointContext& ctx) {
  RankOutcome out;
  out.rank = ctx.rank();
  out.device = ctx.cuda()->device();
  return out;
}

// The outcome of a cuda point run without the job's CUDA resources: a defect of the harness.
inline RankOutcome MissingCudaResourcesOutcome() {
  return RankOutcome::Error("internal: cuda backend without the job's CUDA resources", "setup");
}

// The outcome of a point whose communicator the watchdog has already aborted.
inline RankOutcome CommAbortedOutcome() {
  return RankOutcome::Error("ncclCommAbort: communicator aborted by the watchdog");
}

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_CUDA_POINT_STATUS_CUDA_H_
