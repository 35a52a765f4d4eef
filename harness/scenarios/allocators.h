// Allocators as a scenario axis: where a collective's buffers live decides whether NCCL can
// register them (seeds 000 and 003). One small interface over every way the harness hands out
// memory, on both backends:
//   host: malloc, arena
//   cuda: cuda_malloc, cuda_malloc_async (the device's default pool), nccl_mem_alloc,
//         vmm (cuMemCreate with a POSIX-FD handle, reserved and mapped), arena
// `arena` is one large block carved into pieces the way a BFC allocator hands them out: a
// preceding piece of `offset` bytes, then ours, each starting at a multiple of `alignment` from
// the block's base. The cuda arena's block comes from ncclMemAlloc, as XLA's collective-memory
// BFC allocator's does. Every other allocator places the buffer `offset` bytes into its own
// allocation, so an offset of 256 stands for "a piece handed out at a 256-byte boundary".
#ifndef GPUHARNESS_SCENARIOS_ALLOCATORS_H_
#define GPUHARNESS_SCENARIOS_ALLOCATORS_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/enum_names.h"
#include "harness/core/param.h"
#include "harness/core/registry.h"

typedef struct CUstream_st* cudaStream_t;

namespace gh {

enum class AllocatorKind { kMalloc, kArena, kCudaMalloc, kCudaMallocAsync, kNcclMemAlloc, kVmm };
GH_ENUM_NAMES(AllocatorKind, {AllocatorKind::kMalloc, "malloc"}, {AllocatorKind::kArena, "arena"},
    {AllocatorKind::kCudaMalloc, "cuda_malloc"},
    {AllocatorKind::kCudaMallocAsync, "cuda_malloc_async"},
    {AllocatorKind::kNcclMemAlloc, "nccl_mem_alloc"}, {AllocatorKind::kVmm, "vmm"});

// A kind's name: EnumToName (param.h); parse with ParseEnum.
// Whether `backend` can hand out memory with `kind` (arena exists on both).
bool AllocatorSupports(AllocatorKind kind, Backend backend);

struct AllocatorSpec {
  AllocatorKind kind = AllocatorKind::kMalloc;
  int64_t alignment = 256;  // arena only: pieces start at multiples of this from the base
  int64_t offset = 0;       // bytes before our buffer (arena: the preceding piece's size)
};

// Where a buffer's placement lands for `spec`: `offset` for plain allocators, `offset` rounded
// up to `alignment` for the arena. Pure arithmetic, shared by both backends and the tests.
int64_t PlacementOffset(const AllocatorSpec& spec);

// Whether `backend` can allocate `bytes` with `spec`: InvalidArgument naming the backend the
// allocator needs, or a negative size, offset or alignment below 1; OK otherwise.
absl::Status CheckAllocationRequest(const AllocatorSpec& spec, int64_t bytes, Backend backend);

// One buffer of `bytes` bytes and the allocation it lives in. Free() releases the allocation
// (idempotent); the destructor frees too, ignoring errors, so that no path leaks. Callers that
// registered the buffer deregister it before Free() (registration.h does this in order).
class Allocation {
 public:
  virtual ~Allocation() = default;
  void* data() const { return data_; }          // the buffer: base() + offset_in_allocation()
  int64_t bytes() const { return bytes_; }      // the buffer's size
  void* base() const { return base_; }          // the allocation's first byte
  int64_t allocation_bytes() const { return allocation_bytes_; }
  int64_t offset_in_allocation() const {
    return static_cast<const char*>(data_) - static_cast<const char*>(base_);
  }
  bool on_device() const { return on_device_; }
  // Waits until the work already enqueued on the allocation's stream has finished, so that no
  // kernel or copy still uses the memory when it is deregistered or unmapped (ncclMemFree and
  // cuMemUnmap do not wait: a GEMM still writing a freed ncclMemAlloc buffer faulted on the
  // H200). Host memory has nothing in flight.
  virtual absl::Status WaitForPendingWork() { return absl::OkStatus(); }
  // Waits for pending work (see above), then releases the allocation; idempotent.
  virtual absl::Status Free() = 0;

 protected:
  // The buffer starts `placement` bytes into the allocation that starts at `base`.
  Allocation(void* base, int64_t allocation_bytes, int64_t placement, int64_t bytes,
             bool on_device)
      : data_(static_cast<char*>(base) + placement), base_(base), bytes_(bytes),
        allocation_bytes_(allocation_bytes), on_device_(on_device) {}

  void* data_ = nullptr;
  void* base_ = nullptr;
  int64_t bytes_ = 0;
  int64_t allocation_bytes_ = 0;
  bool on_device_ = false;
};

// Host memory: malloc and arena. Other kinds are InvalidArgument (the scenario skips first).
absl::StatusOr<std::unique_ptr<Allocation>> AllocateHost(const AllocatorSpec& spec,
                                                          int64_t bytes);

#if defined(GH_HAVE_CUDA)
// Device memory on the current device; `stream` orders cudaMallocAsync/cudaFreeAsync and is the
// stream Free() waits for (the stream that uses the buffer). Errors
// carry the CUDA or NCCL signature ("cudaErrorMemoryAllocation: out of memory").
absl::StatusOr<std::unique_ptr<Allocation>> AllocateDevice(const AllocatorSpec& spec,
                                                            int64_t bytes, cudaStream_t stream);
#endif

// Largest power of two (capped at 1 GiB) dividing `address`: how aligned a pointer is, for the
// records (NCCL windows need 4096).
int64_t AddressAlignment(const void* address);

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_ALLOCATORS_H_
