// The CUDA/NCCL error signatures: the exact strings records carry and expectations match.
#include "harness/runtime/cuda_errors_cuda.h"

#include <gtest/gtest.h>

#include <string>

#include "harness/core/testdata/named_value.h"

namespace gh {
namespace {

TEST(NcclResultNameTest, NamesEveryResultByItsEnumName) {
  for (const testing::NamedValue<ncclResult_t>& r :
       {GH_NAMED_VALUE(ncclSuccess), GH_NAMED_VALUE(ncclUnhandledCudaError),
        GH_NAMED_VALUE(ncclSystemError), GH_NAMED_VALUE(ncclInternalError),
        GH_NAMED_VALUE(ncclInvalidArgument), GH_NAMED_VALUE(ncclInvalidUsage),
        GH_NAMED_VALUE(ncclRemoteError), GH_NAMED_VALUE(ncclInProgress)}) {
    EXPECT_EQ(NcclResultName(r.value), r.name);
  }
}

TEST(NcclResultNameTest, UnknownValueKeepsItsNumber) {
  EXPECT_EQ(NcclResultName(static_cast<ncclResult_t>(42)), "ncclResult(42)");
}

TEST(FormatNcclSignatureTest, NameThenLastErrorText) {
  EXPECT_EQ(FormatNcclSignature(ncclUnhandledCudaError, "Cuda failure 1 'invalid argument'"),
            "ncclUnhandledCudaError: Cuda failure 1 'invalid argument'");
  EXPECT_EQ(FormatNcclSignature(ncclInvalidArgument, "Window address must be suitably aligned."),
            "ncclInvalidArgument: Window address must be suitably aligned.");
}

TEST(FormatNcclSignatureTest, StripsALogLinePrefixAndNewlines) {
  EXPECT_EQ(FormatNcclSignature(ncclUnhandledCudaError,
                                "\nhost-1:1234:5678 [0] register.cc:93 NCCL WARN Cuda failure 1 "
                                "'invalid argument'\n"),
            "ncclUnhandledCudaError: Cuda failure 1 'invalid argument'");
  EXPECT_EQ(FormatNcclSignature(ncclSystemError, "NCCL WARN socket closed\n"),
            "ncclSystemError: socket closed");
}

TEST(FormatNcclSignatureTest, KeepsTextWithoutPrefixIntactOnOneLine) {
  EXPECT_EQ(FormatNcclSignature(ncclRemoteError, "  peer 3 closed\nthe connection\t "),
            "ncclRemoteError: peer 3 closed the connection");
}

TEST(FormatNcclSignatureTest, EmptyLastErrorFallsBackToNcclsProse) {
  EXPECT_EQ(FormatNcclSignature(ncclInvalidUsage, ""),
            std::string("ncclInvalidUsage: ") + ncclGetErrorString(ncclInvalidUsage));
  EXPECT_EQ(FormatNcclSignature(ncclInvalidUsage, " \n"),
            std::string("ncclInvalidUsage: ") + ncclGetErrorString(ncclInvalidUsage));
}

TEST(NcclErrorSignatureTest, ReadsTheLibrarysLastError) {
  // A real failing call: NCCL names the NULL argument in its last error.
  int count = 0;
  ncclResult_t result = ncclCommCount(nullptr, &count);
  ASSERT_EQ(result, ncclInvalidArgument);
  std::string signature = NcclErrorSignature(result, nullptr);
  EXPECT_EQ(signature.rfind("ncclInvalidArgument: ", 0), 0u) << signature;
  EXPECT_NE(signature.find("NULL"), std::string::npos) << signature;
  EXPECT_EQ(signature.find('\n'), std::string::npos) << signature;
}

TEST(CudaErrorSignatureTest, NameThenDescription) {
  EXPECT_EQ(CudaErrorSignature(cudaErrorInvalidValue), "cudaErrorInvalidValue: invalid argument");
  EXPECT_EQ(CudaErrorSignature(cudaErrorMemoryAllocation),
            "cudaErrorMemoryAllocation: out of memory");
}

absl::Status FailingCudaStep() {
  GH_CUDA_RETURN_IF_ERROR(cudaSuccess);
  GH_CUDA_RETURN_IF_ERROR(cudaErrorMemoryAllocation);
  return absl::OkStatus();
}

absl::Status FailingNcclStep() {
  GH_NCCL_RETURN_IF_ERROR(nullptr, ncclSuccess);
  GH_NCCL_RETURN_IF_ERROR(nullptr, ncclInvalidUsage);
  return absl::OkStatus();
}

TEST(ReturnIfErrorTest, CarriesTheSignatureAsTheStatusMessage) {
  absl::Status cuda = FailingCudaStep();
  EXPECT_EQ(cuda.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(cuda.message(), "cudaErrorMemoryAllocation: out of memory");
  absl::Status nccl = FailingNcclStep();
  EXPECT_EQ(nccl.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(std::string(nccl.message()).rfind("ncclInvalidUsage: ", 0), 0u) << nccl.message();
}

}  // namespace
}  // namespace gh
