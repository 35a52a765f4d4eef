// What the cuda kinds' host code shares around one point (cuda builds only): a CUDA or NCCL
// return code as a Status naming the call, the outcome a point starts from, and an error
// outcome that keeps what the point measured before it failed.
#ifndef GPUHARNESS_SCENARIOS_CUDA_POINT_STATUS_CUDA_H_
#define GPUHARNESS_SCENARIOS_CUDA_POINT_STATUS_CUDA_H_

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/core/outcome.h"
#include "harness/runtime/cuda_errors_cuda.h"
#include "harness/runtime/cuda_resources.h"
#include "harness/runtime/point_context.h"

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

// The outcome of a point whose communicator the watchdog has already aborted.
inline RankOutcome CommAbortedOutcome() {
  return RankOutcome::Error("ncclCommAbort: communicator aborted by the watchdog");
}

// Keeps what `out` measured so far, as the error record shows it.
inline RankOutcome ErrorKeepingMetrics(RankOutcome out, const absl::Status& status,
                                       std::string step = "") {
  RankOutcome error = RankOutcome::Error(std::string(status.message()), std::move(step));
  error.metrics = std::move(out.metrics);
  return error;
}

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_CUDA_POINT_STATUS_CUDA_H_
