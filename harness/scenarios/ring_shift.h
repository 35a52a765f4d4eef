// ring_shift: every rank writes its block into its right neighbour's output and checks,
// element by element, that it holds its left neighbour's block. Shared by the host
// implementation (ring_shift.cc, MPI) and the cuda one (ring_shift_nccl_cuda.cc, NCCL).
#ifndef GPUHARNESS_SCENARIOS_RING_SHIFT_H_
#define GPUHARNESS_SCENARIOS_RING_SHIFT_H_

#include <cstdint>
#include <string>

#include "harness/core/enum_names.h"
#include "harness/core/outcome.h"
#include "harness/core/param.h"
#include "harness/scenarios/allocators.h"
#include "harness/scenarios/rank_steps.h"

namespace gh {

class PointContext;

enum class RingDtype { kF32, kBF16, kI32, kF64 };
GH_ENUM_NAMES(RingDtype, {RingDtype::kF32, "f32"}, {RingDtype::kBF16, "bf16"},
    {RingDtype::kI32, "i32"}, {RingDtype::kF64, "f64"});
int DtypeSize(RingDtype dtype);
// "<value> (0x<bits>)": an element as the dtype reads it, and its exact bits (mismatch reports).
std::string FormatRingElement(RingDtype dtype, uint64_t bits);

// How blocks move: kAuto resolves per backend (mpi_p2p on host, nccl_p2p on cuda); a transport
// of the other backend is a skip.
enum class RingTransport { kAuto, kMpiP2p, kMpiPut, kNcclP2p, kNcclDevice, kNcclCe };
GH_ENUM_NAMES(RingTransport, {RingTransport::kAuto, "auto"}, {RingTransport::kMpiP2p, "mpi_p2p"},
    {RingTransport::kMpiPut, "mpi_put"}, {RingTransport::kNcclP2p, "nccl_p2p"},
    {RingTransport::kNcclDevice, "nccl_device"}, {RingTransport::kNcclCe, "nccl_ce"});

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
GH_ENUM_NAMES(RingFault, {RingFault::kNone, "none"},
    {RingFault::kCorruptElement, "corrupt_element"}, {RingFault::kStaleBlock, "stale_block"},
    {RingFault::kPartialWrite, "partial_write"}, {RingFault::kStall, "stall"},
    {RingFault::kCrash, "crash"}, {RingFault::kDeviceFault, "device_fault"});

struct RingShiftParams {
  int64_t bytes = 0;      // per rank block, rounded down to whole elements
  RingDtype dtype = RingDtype::kF32;
  RingTransport transport = RingTransport::kAuto;  // never kAuto once read from a point
  RingFault fault = RingFault::kNone;
  int fault_rank = 0;
  int graph_replays = 0;  // nccl_p2p: replays of the timed iterations captured as a CUDA graph
  // nccl_p2p: where the send and receive blocks live (nccl-tests allocates with ncclMemAlloc)
  AllocatorKind allocator = AllocatorKind::kCudaMalloc;
  int64_t count() const { return bytes / DtypeSize(dtype); }
};

// What the host and the cuda implementation of one rank share: its place in the ring, the step
// it is in (which its error outcome names) and whether a deliberate fault is its to do.
class RingShiftRank : protected RankSteps {
 protected:
  RingShiftRank(PointContext& ctx, const RingShiftParams& params);

  bool FaultHere(RingFault fault) const {
    return params_.fault == fault && params_.fault_rank == rank_;
  }

  PointContext& ctx_;
  const RingShiftParams& params_;
  const int rank_, right_, left_, width_;
  const int64_t count_;
};

#if defined(GH_HAVE_CUDA)
// ring_shift_nccl_cuda.cc: NCCL grouped send/recv on the job's stream, timing with CUDA events.
RankOutcome RunRingShiftCuda(PointContext& ctx, const RingShiftParams& params);
#endif

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_RING_SHIFT_H_
