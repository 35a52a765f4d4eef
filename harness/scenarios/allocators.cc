#include "harness/scenarios/allocators.h"

#include <algorithm>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/core/status_macros.h"

namespace gh {
namespace {

// Host blocks start page-aligned (as device allocations start at least 4 KiB-aligned), or at
// the arena's alignment when that is larger, so the placement alone decides the alignment.
constexpr int64_t kHostBlockAlignment = 4096;

class HostAllocation : public Allocation {
 public:
  HostAllocation(void* base, int64_t allocation_bytes, int64_t placement, int64_t bytes)
      : Allocation(base, allocation_bytes, placement, bytes, /*on_device=*/false) {}
  ~HostAllocation() override { (void)Free(); }
  absl::Status Free() override {
    std::free(base_);
    base_ = data_ = nullptr;
    return absl::OkStatus();
  }
};

}  // namespace

bool AllocatorSupports(AllocatorKind kind, Backend backend) {
  if (kind == AllocatorKind::kArena) return true;
  bool host_kind = kind == AllocatorKind::kMalloc;
  return host_kind == (backend == Backend::kHost);
}

int64_t PlacementOffset(const AllocatorSpec& spec) {
  if (spec.kind != AllocatorKind::kArena || spec.alignment <= 1) return spec.offset;
  return (spec.offset + spec.alignment - 1) / spec.alignment * spec.alignment;
}

absl::Status CheckAllocationRequest(const AllocatorSpec& spec, int64_t bytes, Backend backend) {
  if (!AllocatorSupports(spec.kind, backend)) {
    return absl::InvalidArgumentError(absl::StrCat("allocator ", std::string(EnumToName(spec.kind)), " needs the ",
                                                   backend == Backend::kHost ? "cuda" : "host",
                                                   " backend"));
  }
  if (bytes < 0 || spec.offset < 0 || spec.alignment < 1) {
    return absl::InvalidArgumentError("allocation size, offset and alignment must be positive");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Allocation>> AllocateHost(const AllocatorSpec& spec,
                                                          int64_t bytes) {
  GH_RETURN_IF_ERROR(CheckAllocationRequest(spec, bytes, Backend::kHost));
  int64_t placement = PlacementOffset(spec);
  int64_t total = std::max<int64_t>(placement + bytes, 1);
  int64_t block_alignment = kHostBlockAlignment;
  if (spec.kind == AllocatorKind::kArena) block_alignment = std::max(block_alignment, spec.alignment);
  void* base = nullptr;
  if (posix_memalign(&base, static_cast<size_t>(block_alignment), static_cast<size_t>(total)) != 0) {
    return absl::ResourceExhaustedError(
        absl::StrCat("posix_memalign(", total, " bytes) failed: out of host memory"));
  }
  return std::unique_ptr<Allocation>(new HostAllocation(base, total, placement, bytes));
}

int64_t AddressAlignment(const void* address) {
  auto value = reinterpret_cast<uintptr_t>(address);
  constexpr int64_t kCap = int64_t{1} << 30;
  if (value == 0) return kCap;
  int64_t alignment = static_cast<int64_t>(value & (~value + 1));
  return std::min(alignment, kCap);
}

}  // namespace gh
