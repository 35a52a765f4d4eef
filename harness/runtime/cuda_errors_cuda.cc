#include "harness/runtime/cuda_errors_cuda.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/ascii.h"

namespace gh {

std::string NcclResultName(ncclResult_t result) {
  switch (result) {
    case ncclSuccess: return "ncclSuccess";
    case ncclUnhandledCudaError: return "ncclUnhandledCudaError";
    case ncclSystemError: return "ncclSystemError";
    case ncclInternalError: return "ncclInternalError";
    case ncclInvalidArgument: return "ncclInvalidArgument";
    case ncclInvalidUsage: return "ncclInvalidUsage";
    case ncclRemoteError: return "ncclRemoteError";
    case ncclInProgress: return "ncclInProgress";
    default: break;  // ncclNumResults or a newer library's code
  }
  return absl::StrCat("ncclResult(", static_cast<int>(result), ")");
}

std::string CleanNcclLastError(std::string_view text) {
  // A log line's prefix ends with the level tag; the message follows it.
  for (std::string_view tag : {"NCCL WARN ", "NCCL ERROR "}) {
    size_t at = text.rfind(tag);
    if (at != std::string_view::npos) {
      text.remove_prefix(at + tag.size());
      break;
    }
  }
  while (!text.empty() && absl::ascii_isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && absl::ascii_isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  std::string out(text);
  // One line: signatures end up in console tables and JUnit attributes.
  for (char& c : out) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return out;
}

std::string FormatNcclSignature(ncclResult_t result, std::string_view last_error) {
  std::string text = CleanNcclLastError(last_error);
  if (text.empty()) text = ncclGetErrorString(result);
  return absl::StrCat(NcclResultName(result), ": ", text);
}

std::string CudaErrorSignature(cudaError_t error) {
  return absl::StrCat(cudaGetErrorName(error), ": ", cudaGetErrorString(error));
}

std::string NcclErrorSignature(ncclResult_t result, ncclComm_t comm) {
  const char* last = ncclGetLastError(comm);
  return FormatNcclSignature(result, last != nullptr ? last : "");
}

absl::Status CudaStatus(cudaError_t error, const char* call, const char* where) {
  std::string signature = CudaErrorSignature(error);
  std::fprintf(stderr, "gpuharness: %s failed at %s: %s\n", call, where, signature.c_str());
  return absl::InternalError(signature);
}

absl::Status NcclStatus(ncclResult_t result, ncclComm_t comm, const char* call,
                        const char* where) {
  std::string signature = NcclErrorSignature(result, comm);
  std::fprintf(stderr, "gpuharness: %s failed at %s: %s\n", call, where, signature.c_str());
  return absl::InternalError(signature);
}

}  // namespace gh
