// The cuda side of an isolated trial: the worker binds its GPU before the kind runs.
#include <cuda_runtime.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace gh {

absl::Status BindTrialDevice(int device) {
  const cudaError_t err = cudaSetDevice(device < 0 ? 0 : device);
  if (err != cudaSuccess) {
    return absl::InternalError(absl::StrCat(cudaGetErrorName(err), " in cudaSetDevice(", device,
                                            "): ", cudaGetErrorString(err)));
  }
  return absl::OkStatus();
}

}  // namespace gh
