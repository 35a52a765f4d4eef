#include "harness/runtime/point_context.h"

#include "absl/status/status.h"
#include "harness/runtime/mpi_errors.h"
#include "harness/runtime/watchdog.h"

namespace gh {

void PointContext::SetStep(const char* step) {
  if (watchdog_ != nullptr) watchdog_->SetStep(step);
}

void PointContext::SetStep(const char* step, const char* operation, int64_t bytes) {
  if (watchdog_ != nullptr) watchdog_->SetStep(step, operation, bytes);
}

absl::StatusOr<bool> PointContext::AnyRankFailed(bool failed) const {
  int any = failed ? 1 : 0;
  if (int rc = MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, comm_); rc != MPI_SUCCESS) {
    return absl::InternalError(MpiErrorSignature(rc));
  }
  return any != 0;
}

}  // namespace gh
