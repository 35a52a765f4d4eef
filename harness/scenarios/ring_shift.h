// ring_shift: every rank writes its block into its right neighbour's output and checks,
// element by element, that it holds its left neighbour's block. Shared by the host
// implementation (ring_shift.cc, MPI) and the cuda one (ring_shift_cuda.cu, NCCL).
#ifndef GPUHARNESS_SCENARIOS_RING_SHIFT_H_
#define GPUHARNESS_SCENARIOS_RING_SHIFT_H_

#include <cstdint>
#include <string>

#include "harness/core/outcome.h"

namespace gh {

class PointContext;

enum class RingDtype { kF32, kBF16, kI32, kF64 };
int DtypeSize(RingDtype dtype);

// Deliberate faults, for testing the harness itself (the `fault` parameter).
enum class RingFault {
  kNone,
  kCorruptElement,  // fault_rank flips one element of what it received
  kStaleBlock,      // fault_rank keeps the previous iteration's data (skips the last exchange)
  kPartialWrite,    // fault_rank's sender writes only the first half of the block
  kStall,           // fault_rank sleeps past the timeout before exchanging
  kCrash,           // fault_rank raises SIGSEGV before exchanging
  kDeviceFault,     // cuda: after the exchange fault_rank's kernel stores through a null
                    // pointer, a sticky cudaErrorIllegalAddress that ends its CUDA context
};

struct RingShiftParams {
  int64_t bytes = 0;      // per rank block, rounded down to whole elements
  RingDtype dtype = RingDtype::kF32;
  std::string transport;  // mpi_p2p, mpi_put (host); nccl_p2p (cuda)
  RingFault fault = RingFault::kNone;
  int fault_rank = 0;
  int64_t count() const { return bytes / DtypeSize(dtype); }
};

#if defined(GH_HAVE_CUDA)
// ring_shift_cuda.cu: NCCL grouped send/recv on the job's stream, timing with CUDA events.
RankOutcome RunRingShiftCuda(PointContext& ctx, const RingShiftParams& params);
#endif

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_RING_SHIFT_H_
