// Error signatures for CUDA and NCCL failures: the stable strings that records carry, users grep
// and expectations match. Formats:
//   CUDA: "<cudaGetErrorName>: <cudaGetErrorString>"   e.g. "cudaErrorInvalidValue: invalid argument"
//   NCCL: "<ncclResult_t name>: <ncclGetLastError>"     e.g. "ncclUnhandledCudaError: Cuda failure 1 'invalid argument'"
// The NCCL name is the enum's name, never ncclGetErrorString's prose; when NCCL left no last
// error the prose stands in for it. Only call sites that build with CUDA include this header.
#ifndef GPUHARNESS_RUNTIME_CUDA_ERRORS_CUDA_H_
#define GPUHARNESS_RUNTIME_CUDA_ERRORS_CUDA_H_

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace gh {

// "ncclUnhandledCudaError"; "ncclResult(<n>)" for a value this build does not know.
std::string NcclResultName(ncclResult_t result);

// NCCL's last-error text made stable: surrounding whitespace and newlines removed, and a log
// prefix such as "host:123:456 [0] file.cc:78 NCCL WARN " dropped if present.
std::string CleanNcclLastError(std::string_view text);

// Pure formatting (unit-tested): "<name>: <cleaned last_error>", or "<name>: <prose>" when the
// cleaned text is empty.
std::string FormatNcclSignature(ncclResult_t result, std::string_view last_error);

// The signatures of a failed call, reading the runtime's state.
std::string CudaErrorSignature(cudaError_t error);
std::string NcclErrorSignature(ncclResult_t result, ncclComm_t comm);

// absl::Status carrying the signature as its message (code kInternal). `call` and `where`
// ("file:line") go to stderr for humans, not into the signature, which must stay stable.
absl::Status CudaStatus(cudaError_t error, const char* call, const char* where);
absl::Status NcclStatus(ncclResult_t result, ncclComm_t comm, const char* call, const char* where);

}  // namespace gh

#define GH_CUDA_STRINGIFY_INNER(x) #x
#define GH_CUDA_STRINGIFY(x) GH_CUDA_STRINGIFY_INNER(x)
#define GH_CUDA_WHERE __FILE__ ":" GH_CUDA_STRINGIFY(__LINE__)

// Returns the signature-carrying status from the enclosing function when `expr` fails.
#define GH_CUDA_RETURN_IF_ERROR(expr)                                      \
  do {                                                                     \
    cudaError_t gh_cuda_err_ = (expr);                                     \
    if (gh_cuda_err_ != cudaSuccess)                                       \
      return ::gh::CudaStatus(gh_cuda_err_, #expr, GH_CUDA_WHERE);         \
  } while (0)

#define GH_NCCL_RETURN_IF_ERROR(comm, expr)                                \
  do {                                                                     \
    ncclResult_t gh_nccl_res_ = (expr);                                    \
    if (gh_nccl_res_ != ncclSuccess)                                       \
      return ::gh::NcclStatus(gh_nccl_res_, (comm), #expr, GH_CUDA_WHERE); \
  } while (0)

#endif  // GPUHARNESS_RUNTIME_CUDA_ERRORS_CUDA_H_
