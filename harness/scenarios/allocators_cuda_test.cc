// Device buffers are released only after the work already enqueued on their stream finished:
// a host function holds the stream, a memset into the buffer waits behind it, and Free() or
// RegisteredBuffer::Release() must not return before both ran. Without that wait ncclMemFree
// and cuMemUnmap pulled the memory from under a GEMM still writing it (an illegal address in
// cuBLAS's split-K kernel on the H200, NCCL 2.28.3). Skips where no GPU is visible.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <nccl.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "harness/runtime/cuda_resources.h"
#include "harness/scenarios/allocators.h"
#include "harness/scenarios/registration.h"

namespace gh {
namespace {

constexpr int64_t kBytes = int64_t{1} << 20;

struct HeldStream {
  std::atomic<bool> released{false};
};

// Sleeps on the stream's host thread, then marks that it ran: work that is still pending when a
// release that does not wait returns.
void CUDART_CB SleepThenMark(void* held) {
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  static_cast<HeldStream*>(held)->released.store(true);
}

class DeviceRelease : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (VisibleGpuCount(&why) == 0) GTEST_SKIP() << "no GPU visible: " << why;
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
  }
  void TearDown() override {
    if (stream_ != nullptr) {
      EXPECT_EQ(cudaStreamDestroy(stream_), cudaSuccess);
    }
  }

  // Holds the stream, then enqueues a memset into the buffer behind the hold.
  void EnqueueHeldWrite(const Allocation& buffer, HeldStream& held) {
    ASSERT_EQ(cudaLaunchHostFunc(stream_, SleepThenMark, &held), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(buffer.data(), 0x5A, size_t(buffer.bytes()), stream_), cudaSuccess);
  }

  cudaStream_t stream_ = nullptr;
};

class DeviceReleaseTest : public DeviceRelease,
                          public ::testing::WithParamInterface<AllocatorKind> {};

TEST_P(DeviceReleaseTest, FreeWaitsForWorkEnqueuedOnTheStream) {
  auto buffer = AllocateDevice({GetParam(), 4096, 0}, kBytes, stream_);
  ASSERT_TRUE(buffer.ok()) << buffer.status();
  HeldStream held;
  EnqueueHeldWrite(**buffer, held);
  absl::Status freed = (*buffer)->Free();
  EXPECT_TRUE(freed.ok()) << freed;
  EXPECT_TRUE(held.released.load()) << "Free() returned while the stream still held the buffer";
  EXPECT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

// A window over the buffer on a one-rank communicator: deregistration waits too.
TEST_F(DeviceRelease, ReleaseWaitsBeforeDeregisteringAWindow) {
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  ncclComm_t comm = nullptr;
  std::vector<int> devices = {0};
  ASSERT_EQ(ncclCommInitAll(&comm, 1, devices.data()), ncclSuccess);
  {
    RegisteredBuffer buffer;
    auto allocation = AllocateDevice({AllocatorKind::kNcclMemAlloc, 4096, 0}, kBytes, stream_);
    ASSERT_TRUE(allocation.ok()) << allocation.status();
    buffer.allocation = *std::move(allocation);
    auto window = RegisterDevice(RegistrationKind::kWindow, *buffer.allocation, comm);
    ASSERT_TRUE(window.ok()) << window.status();
    buffer.registration = *std::move(window);
    HeldStream held;
    EnqueueHeldWrite(*buffer.allocation, held);
    absl::Status released = buffer.Release();
    EXPECT_TRUE(released.ok()) << released;
    EXPECT_TRUE(held.released.load()) << "Release() returned while the stream still held the buffer";
  }
  EXPECT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  EXPECT_EQ(ncclCommDestroy(comm), ncclSuccess);
}

INSTANTIATE_TEST_SUITE_P(EveryDeviceAllocator, DeviceReleaseTest,
                         ::testing::Values(AllocatorKind::kCudaMalloc,
                                           AllocatorKind::kCudaMallocAsync,
                                           AllocatorKind::kNcclMemAlloc, AllocatorKind::kVmm,
                                           AllocatorKind::kArena),
                         [](const ::testing::TestParamInfo<AllocatorKind>& info) {
                           std::string out;  // cuda_malloc -> CudaMalloc
                           bool upper = true;
                           for (char c : EnumToName(info.param)) {
                             if (c == '_') {
                               upper = true;
                             } else {
                               out += upper ? char(std::toupper(c)) : c;
                               upper = false;
                             }
                           }
                           return out;
                         });

}  // namespace
}  // namespace gh
