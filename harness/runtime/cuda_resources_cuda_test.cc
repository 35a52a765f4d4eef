// CudaResources: version formatting everywhere; the communicator's life cycle (create, exchange,
// abort from another thread, re-create) where a GPU is visible, at one rank (an MPI singleton).
#include "harness/runtime/cuda_resources.h"
#include "harness/runtime/cuda_errors_cuda.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <mpi.h>
#include <nccl.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <thread>
#include <vector>

namespace gh {
namespace {

TEST(FormatNcclVersionCodeTest, BothEncodings) {
  EXPECT_EQ(FormatNcclVersionCode(22809), "2.28.9");
  EXPECT_EQ(FormatNcclVersionCode(22803), "2.28.3");
  EXPECT_EQ(FormatNcclVersionCode(21903), "2.19.3");
  EXPECT_EQ(FormatNcclVersionCode(2708), "2.7.8");  // before 2.9: X*1000+Y*100+Z
  EXPECT_EQ(FormatNcclVersionCode(NCCL_VERSION_CODE),
            std::to_string(NCCL_MAJOR) + "." + std::to_string(NCCL_MINOR) + "." +
                std::to_string(NCCL_PATCH));
}

TEST(FormatCudaVersionTest, MajorDotMinor) {
  EXPECT_EQ(FormatCudaVersion(13000), "13.0");
  EXPECT_EQ(FormatCudaVersion(12080), "12.8");
  EXPECT_EQ(FormatCudaVersion(12020), "12.2");
  EXPECT_EQ(FormatCudaVersion(CUDART_VERSION),
            std::to_string(CUDART_VERSION / 1000) + "." + std::to_string(CUDART_VERSION % 1000 / 10));
}

TEST(ParseProcDriverVersionTest, ProprietaryAndOpenModules) {
  EXPECT_EQ(ParseProcDriverVersion(
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Oct  2 "
                "20:32:08 UTC 2025\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n"),
            "580.159.04");
  EXPECT_EQ(ParseProcDriverVersion(
                "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release "
                "Build  (dvs-builder@U16-I3-B03-4-3)  Thu Jan 16 2025\n"),
            "570.86.15");
  EXPECT_EQ(ParseProcDriverVersion(""), "");
  EXPECT_EQ(ParseProcDriverVersion("no version here\n"), "");
}

TEST(VisibleGpuCountTest, ZeroComesWithAReasonAndNeverAnError) {
  std::string why;
  int count = VisibleGpuCount(&why);
  EXPECT_GE(count, 0);
  if (count == 0) {
    EXPECT_FALSE(why.empty());
  } else {
    EXPECT_TRUE(why.empty()) << why;
  }
  EXPECT_EQ(VisibleGpuCount(), count);  // the same answer again: no state left from the first
  // With a driver, nothing is left pending for the next CUDA call. (Without one, every CUDA
  // call keeps failing with the initialisation error: nothing to clear.)
  if (count > 0) {
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  }
}

// MPI for the GPU tests: a singleton, initialised on first use and finalised at exit.
void EnsureMpi() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return;
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
  std::atexit([] {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  });
}

class CudaResourcesGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (VisibleGpuCount(&why) == 0) GTEST_SKIP() << "no GPU visible: " << why;
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    EnsureMpi();
  }

  // One self send/recv of `count` ints through the resources' communicator and stream;
  // returns the received values.
  static std::vector<int> SelfExchange(CudaResources& res, const std::vector<int>& values) {
    const size_t bytes = values.size() * sizeof(int);
    int *send = nullptr, *recv = nullptr;
    EXPECT_EQ(cudaMalloc(&send, bytes), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&recv, bytes), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(send, values.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaMemset(recv, 0xA5, bytes), cudaSuccess);
    EXPECT_EQ(ncclGroupStart(), ncclSuccess);
    EXPECT_EQ(ncclSend(send, values.size(), ncclInt32, 0, res.nccl(), res.stream()), ncclSuccess);
    EXPECT_EQ(ncclRecv(recv, values.size(), ncclInt32, 0, res.nccl(), res.stream()), ncclSuccess);
    EXPECT_EQ(ncclGroupEnd(), ncclSuccess);
    EXPECT_TRUE(res.Synchronize().ok());
    std::vector<int> out(values.size());
    EXPECT_EQ(cudaMemcpy(out.data(), recv, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    cudaFree(send);
    cudaFree(recv);
    return out;
  }
};

std::vector<int> Ramp(int n, int offset) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = i * 7 + offset;
  return v;
}

TEST_F(CudaResourcesGpuTest, CreatesStreamAndCommunicatorAndFillsTheFingerprint) {
  auto res = CudaResources::Create(0, MPI_COMM_WORLD);
  ASSERT_TRUE(res.ok()) << res.status();
  EXPECT_EQ((*res)->device(), 0);
  EXPECT_NE((*res)->stream(), nullptr);
  EXPECT_NE((*res)->nccl(), nullptr);
  EXPECT_FALSE((*res)->aborted());
  unsigned int flags = 0;
  ASSERT_EQ(cudaStreamGetFlags((*res)->stream(), &flags), cudaSuccess);
  EXPECT_EQ(flags, static_cast<unsigned>(cudaStreamNonBlocking));

  EnvironmentFingerprint fp;
  (*res)->FillFingerprint(fp);
  ASSERT_FALSE(fp.gpus.empty());
  EXPECT_EQ(fp.gpus[0].ordinal, 0);
  EXPECT_FALSE(fp.gpus[0].name.empty());
  EXPECT_TRUE(std::regex_match(fp.gpus[0].pci_bus_id, std::regex("[0-9A-Fa-f:.]+")))
      << fp.gpus[0].pci_bus_id;
  EXPECT_GE(fp.gpus[0].sm_major, 7);
  EXPECT_GT(fp.gpus[0].memory_bytes, int64_t{1} << 30);
  EXPECT_TRUE(std::regex_match(fp.driver_version, std::regex("[0-9]+\\.[0-9]+(\\.[0-9]+)?")))
      << fp.driver_version;
  EXPECT_TRUE(std::regex_match(fp.cuda_driver_api, std::regex("[0-9]+\\.[0-9]+")));
  EXPECT_TRUE(std::regex_match(fp.cuda_runtime, std::regex("[0-9]+\\.[0-9]+")));
  EXPECT_TRUE(std::regex_match(fp.nccl_runtime, std::regex("2\\.[0-9]+\\.[0-9]+")));
  EXPECT_EQ(fp.nccl_compiled, FormatNcclVersionCode(NCCL_VERSION_CODE));

  EXPECT_EQ(SelfExchange(**res, Ramp(1000, 3)), Ramp(1000, 3));
}

TEST_F(CudaResourcesGpuTest, RecreateAfterAnAbortGivesAWorkingCommunicator) {
  auto res = CudaResources::Create(0, MPI_COMM_WORLD);
  ASSERT_TRUE(res.ok()) << res.status();
  EXPECT_EQ(SelfExchange(**res, Ramp(256, 1)), Ramp(256, 1));
  (*res)->AbortFromWatchdog();
  EXPECT_TRUE((*res)->aborted());
  EXPECT_EQ((*res)->nccl(), nullptr);
  (*res)->AbortFromWatchdog();  // idempotent
  absl::Status recreated = (*res)->Recreate(MPI_COMM_WORLD);
  ASSERT_TRUE(recreated.ok()) << recreated;
  EXPECT_FALSE((*res)->aborted());
  ASSERT_NE((*res)->nccl(), nullptr);
  EXPECT_EQ(SelfExchange(**res, Ramp(4096, 9)), Ramp(4096, 9));
}

// Holds the stream until released: work that cannot finish until someone intervenes. (At one
// rank NCCL refuses a receive without a matching send with ncclInvalidUsage, so the blocker is
// a host function; the NCCL kernel's own abort is covered end to end by the GPU test
// StalledRankTimesOutNamingItsStep.)
void CUDART_CB HoldUntilReleased(void* released) {
  while (!static_cast<std::atomic<bool>*>(released)->load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

TEST_F(CudaResourcesGpuTest, AbortFromAnotherThreadEndsAWaitThatWouldNeverEnd) {
  auto res = CudaResources::Create(0, MPI_COMM_WORLD);
  ASSERT_TRUE(res.ok()) << res.status();
  std::atomic<bool> released{false};
  ASSERT_EQ(cudaLaunchHostFunc((*res)->stream(), HoldUntilReleased, &released), cudaSuccess);
  const auto start = std::chrono::steady_clock::now();
  std::thread watchdog([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    (*res)->AbortFromWatchdog();
  });
  absl::Status waited = (*res)->Synchronize();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  released.store(true);  // before joining: the abort may itself wait for the device
  watchdog.join();
  ASSERT_EQ(cudaStreamSynchronize((*res)->stream()), cudaSuccess);
  EXPECT_EQ(waited.code(), absl::StatusCode::kAborted) << waited;
  EXPECT_EQ(waited.message(), "ncclCommAbort: communicator aborted by the watchdog");
  EXPECT_LT(seconds, 10.0);
  EXPECT_GE(seconds, 0.25);
  // Once drained, waiting still reports the abort: the communicator is gone until Recreate.
  EXPECT_EQ((*res)->Synchronize().code(), absl::StatusCode::kAborted);
}

TEST_F(CudaResourcesGpuTest, UnmatchedSelfReceiveIsAnErrorWithTheNcclSignature) {
  auto res = CudaResources::Create(0, MPI_COMM_WORLD);
  ASSERT_TRUE(res.ok()) << res.status();
  int* recv = nullptr;
  ASSERT_EQ(cudaMalloc(&recv, 4096), cudaSuccess);
  ncclResult_t result = ncclRecv(recv, 1024, ncclInt32, 0, (*res)->nccl(), (*res)->stream());
  EXPECT_EQ(result, ncclInvalidUsage);
  if (result != ncclSuccess) {
    std::string signature = NcclErrorSignature(result, (*res)->nccl());
    EXPECT_EQ(signature.rfind("ncclInvalidUsage: ", 0), 0u) << signature;
    std::printf("signature: %s\n", signature.c_str());
  }
  cudaFree(recv);
}

}  // namespace
}  // namespace gh
