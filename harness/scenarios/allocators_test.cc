#include "harness/scenarios/allocators.h"

#include "gtest/gtest.h"

namespace gh {
namespace {

TEST(CheckAllocationRequest, NamesTheBackendTheAllocatorNeedsAndBadSizes) {
  EXPECT_EQ(CheckAllocationRequest({AllocatorKind::kCudaMalloc}, 64, Backend::kHost).message(),
            "allocator cuda_malloc needs the cuda backend");
  EXPECT_EQ(CheckAllocationRequest({AllocatorKind::kMalloc}, 64, Backend::kCuda).message(),
            "allocator malloc needs the host backend");
  EXPECT_TRUE(CheckAllocationRequest({AllocatorKind::kArena}, 64, Backend::kHost).ok());
  EXPECT_TRUE(CheckAllocationRequest({AllocatorKind::kArena}, 0, Backend::kCuda).ok());
  for (const AllocatorSpec& bad : {AllocatorSpec{AllocatorKind::kArena, 0, 0},
                                   AllocatorSpec{AllocatorKind::kArena, 256, -1}}) {
    const absl::Status status = CheckAllocationRequest(bad, 64, Backend::kHost);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(status.message(), "allocation size, offset and alignment must be positive");
  }
  EXPECT_EQ(CheckAllocationRequest({AllocatorKind::kMalloc}, -1, Backend::kHost).message(),
            "allocation size, offset and alignment must be positive");
}

// AllocateHost refuses what CheckAllocationRequest refuses, with the same message.
TEST(CheckAllocationRequest, AllocateHostRefusesADeviceAllocator) {
  absl::StatusOr<std::unique_ptr<Allocation>> refused =
      AllocateHost({AllocatorKind::kVmm}, 64);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "allocator vmm needs the cuda backend");
}

}  // namespace
}  // namespace gh
