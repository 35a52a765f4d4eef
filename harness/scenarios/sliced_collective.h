// sliced_collective: a producer writes a [rows, cols] f32 buffer (cuBLAS GEMM on cuda, a plain
// loop on host) into memory from the `allocator` axis; rows [begin, end) of it — a static
// slice, or a dynamic one whose first row is read from memory at run time — are the operand of
// a collective (`collective` axis), with the producer and output buffers registered as the
// `registration` axis says. Every rank verifies its output element by element against the
// host reference. Seed 000 (a collective kernel consuming a slice of a GEMM output, its buffers
// in default memory) and seed 003 (the NCCL user-buffer path) as scenarios.
#ifndef GPUHARNESS_SCENARIOS_SLICED_COLLECTIVE_H_
#define GPUHARNESS_SCENARIOS_SLICED_COLLECTIVE_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/outcome.h"
#include "harness/core/enum_names.h"
#include "harness/core/param.h"
#include "harness/core/point.h"
#include "harness/scenarios/allocators.h"
#include "harness/scenarios/registration.h"

namespace gh {

class PointContext;

enum class SliceMode { kStatic, kDynamic };
GH_ENUM_NAMES(SliceMode, {SliceMode::kStatic, "static"}, {SliceMode::kDynamic, "dynamic"});

enum class SlicedCollectiveOp { kRingShift, kAllGather, kAllReduce, kRingShiftDevice };
GH_ENUM_NAMES(SlicedCollectiveOp, {SlicedCollectiveOp::kRingShift, "ring_shift"},
    {SlicedCollectiveOp::kAllGather, "all_gather"}, {SlicedCollectiveOp::kAllReduce, "all_reduce"},
    {SlicedCollectiveOp::kRingShiftDevice, "ring_shift_device"});

// Deliberate faults, for testing the harness: fault_rank flips one element of its output, or
// sends rows one further down than the slice it was asked for.
enum class SlicedFault { kNone, kCorruptElement, kWrongSlice };
GH_ENUM_NAMES(SlicedFault, {SlicedFault::kNone, "none"},
    {SlicedFault::kCorruptElement, "corrupt_element"}, {SlicedFault::kWrongSlice, "wrong_slice"});

std::string SlicedCollectiveOpName(SlicedCollectiveOp op);

struct SlicedCollectiveParams {
  int64_t rows = 19, cols = 256, inner = 256;
  int64_t begin = 0, end = 15;  // rows [begin, end) of the producer's output
  SliceMode slice = SliceMode::kStatic;
  int64_t dynamic_stride = 0;   // dynamic slices: rank r starts at begin + r * dynamic_stride
  AllocatorSpec allocator;
  RegistrationKind registration = RegistrationKind::kNone;
  SlicedCollectiveOp collective = SlicedCollectiveOp::kRingShift;
  SlicedFault fault = SlicedFault::kNone;
  int fault_rank = 0;

  int64_t slice_rows() const { return end - begin; }
  int64_t count() const { return slice_rows() * cols; }  // elements each rank contributes
  int64_t producer_bytes() const { return rows * cols * int64_t(sizeof(float)); }
  // Elements in each rank's output: nranks slices for all_gather, one otherwise.
  int64_t output_count(int nranks) const;
};

// Reads the point's parameters (the loader has checked names, types and choices).
SlicedCollectiveParams SlicedCollectiveParamsFromPoint(const Point& point);

// The point's data seed: differs between points and between trials, never 0.
uint64_t SlicedCollectiveSeed(const Point& point, int trial);

// Why this rank cannot run the point on `backend` (allocator, registration or collective the
// backend lacks), or nullopt.
std::optional<std::string> SlicedCollectiveSkipReason(const SlicedCollectiveParams& params,
                                                      Backend backend);

// The first row rank `rank` sends. A dynamic slice's row is only known at run time: this is the
// value the producer writes for the collective to read. The wrong_slice fault is not applied.
int64_t SliceBeginRow(const SlicedCollectiveParams& params, int rank);

// Error text when rank `rank`'s slice leaves the producer's rows, else empty.
std::string SliceBoundsError(const SlicedCollectiveParams& params, int rank, int nranks);

// Collective over `comm`: how many ranks failed a step, so every rank learns whether any did
// (a collective must not start on some ranks only).
int CountFailedRanks(bool failed, MPI_Comm comm);

// The host reference: rows of out = A @ W for any rank, with W computed once.
class ProducerReference {
 public:
  ProducerReference(int64_t inner, int64_t cols, uint64_t seed);
  // Row `row` of rank `rank`'s producer output (cols values).
  std::vector<float> Row(int rank, int64_t row) const;

 private:
  int64_t inner_, cols_;
  uint64_t seed_;
  std::vector<float> w_;  // [inner, cols]
};

// Writes rank `rank`'s whole producer output into `out` (rows * cols): the host producer.
void ProduceOnHost(const SlicedCollectiveParams& params, int rank, uint64_t seed, float* out);

// What rank `rank` of `nranks` must hold after the collective (output_count elements).
std::vector<float> ExpectedSlicedOutput(const SlicedCollectiveParams& params, int rank, int nranks,
                                        uint64_t seed);

// Bitwise element-by-element comparison; nullopt when every element matches.
std::optional<Mismatch> CompareSlicedOutput(const std::vector<float>& expected, const float* actual);

// Shared by both backends: metrics saying where the operand sat in its allocation.
std::vector<Metric> SliceLayoutMetrics(const Allocation& producer, const void* operand);

RankOutcome RunSlicedCollectiveHost(PointContext& ctx, const SlicedCollectiveParams& params);
#if defined(GH_HAVE_CUDA)
RankOutcome RunSlicedCollectiveCuda(PointContext& ctx, const SlicedCollectiveParams& params);
#endif

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_SLICED_COLLECTIVE_H_
