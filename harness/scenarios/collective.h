// collective: every collective nccl-tests covers (all_reduce, all_gather, reduce_scatter,
// broadcast, reduce, alltoall, alltoallv, gather, scatter, sendrecv, hypercube), over every NCCL
// data type and reduction, verified element by element and timed as nccl-tests times them
// (docs/scenarios/collective.md). The cuda backend runs NCCL (collective_cuda.cc), the host
// backend the matching MPI collectives (collective_host.cc); the parameters, the buffer layout
// (collective_plan.h), the data (collective_data.h) and the bandwidths (collective_bandwidth.h)
// are shared.
#ifndef GPUHARNESS_SCENARIOS_COLLECTIVE_H_
#define GPUHARNESS_SCENARIOS_COLLECTIVE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "harness/core/enum_names.h"
#include "harness/core/outcome.h"
#include "harness/core/param.h"
#include "harness/core/registry.h"
#include "harness/scenarios/allocators.h"
#include "harness/scenarios/collective_dtype.h"
#include "harness/scenarios/registration.h"

namespace gh {

class PointContext;

enum class CollectiveOp {
  kAllReduce, kAllGather, kReduceScatter, kBroadcast, kReduce, kAlltoall, kAlltoallv, kGather,
  kScatter, kSendrecv, kHypercube,
};
GH_ENUM_NAMES(CollectiveOp, {CollectiveOp::kAllReduce, "all_reduce"},
    {CollectiveOp::kAllGather, "all_gather"}, {CollectiveOp::kReduceScatter, "reduce_scatter"},
    {CollectiveOp::kBroadcast, "broadcast"}, {CollectiveOp::kReduce, "reduce"},
    {CollectiveOp::kAlltoall, "alltoall"}, {CollectiveOp::kAlltoallv, "alltoallv"},
    {CollectiveOp::kGather, "gather"}, {CollectiveOp::kScatter, "scatter"},
    {CollectiveOp::kSendrecv, "sendrecv"}, {CollectiveOp::kHypercube, "hypercube"});

// Whether the op combines values (reads `redop`), and whether it has a root (reads `root`).
GH_COLL_HD inline bool IsReduction(CollectiveOp op) {
  return op == CollectiveOp::kAllReduce || op == CollectiveOp::kReduceScatter ||
         op == CollectiveOp::kReduce;
}
GH_COLL_HD inline bool HasRoot(CollectiveOp op) {
  return op == CollectiveOp::kBroadcast || op == CollectiveOp::kReduce ||
         op == CollectiveOp::kGather || op == CollectiveOp::kScatter;
}

// NCCL's reductions in ncclRedOp_t order, then nccl-tests' "mulsum": a per-rank pre-multiplier
// (ncclRedOpCreatePreMulSum) of 1 on even ranks and 2 on odd ones.
enum class CollRedop { kSum, kProd, kMax, kMin, kAvg, kPreMulSum };
GH_ENUM_NAMES(CollRedop, {CollRedop::kSum, "sum"}, {CollRedop::kProd, "prod"},
    {CollRedop::kMax, "max"}, {CollRedop::kMin, "min"}, {CollRedop::kAvg, "avg"},
    {CollRedop::kPreMulSum, "premulsum"});

// nccl-tests' -z: when the host waits for a collective.
enum class CollBlocking { kNone, kOpSyncBarrier, kOpSync, kIterationSync };
GH_ENUM_NAMES(CollBlocking, {CollBlocking::kNone, "none"},
    {CollBlocking::kOpSyncBarrier, "op_sync_barrier"}, {CollBlocking::kOpSync, "op_sync"},
    {CollBlocking::kIterationSync, "iteration_sync"});

// nccl-tests' NCCL_TESTS_SPLIT: each rank's colour in the communicator split is its rank
// combined with `split_value` by this rule.
enum class CollSplit { kNone, kMod, kDiv, kAnd, kOr };
GH_ENUM_NAMES(CollSplit, {CollSplit::kNone, "none"}, {CollSplit::kMod, "mod"},
    {CollSplit::kDiv, "div"}, {CollSplit::kAnd, "and"}, {CollSplit::kOr, "or"});

// The colour of `rank` under the rule (0 for every rank without a split).
int SplitColor(CollSplit rule, int value, int rank);

// Who moves the data: NCCL's collective, or (all_reduce and alltoall) a kernel of this kind on
// NCCL's device API, as nccl-tests' -D 1 (collective_device_api_cuda.h).
enum class CollImplementation { kNccl, kDeviceLsa };
GH_ENUM_NAMES(CollImplementation, {CollImplementation::kNccl, "nccl"},
    {CollImplementation::kDeviceLsa, "device_lsa"});

enum class CollFault { kNone, kCorruptElement };
GH_ENUM_NAMES(CollFault, {CollFault::kNone, "none"}, {CollFault::kCorruptElement, "corrupt_element"});

struct CollectiveParams {
  CollectiveOp op = CollectiveOp::kAllReduce;
  CollDtype dtype = CollDtype::kFloat;
  CollRedop redop = CollRedop::kSum;
  int root = 0;
  bool in_place = false;
  int64_t bytes = 0;         // nccl-tests' size: the larger of a rank's send and receive bytes
  int64_t rotate_bytes = 0;  // nccl-tests' -e: buffers this large, iterations move through them
  AllocatorKind allocator = AllocatorKind::kNcclMemAlloc;  // cuda only
  RegistrationKind registration = RegistrationKind::kNone;
  CollImplementation implementation = CollImplementation::kNccl;
  int ctas = 16;    // device_lsa: CTAs (nccl-tests' -V)
  int unalign = 0;  // elements
  int agg = 1;
  CollBlocking blocking = CollBlocking::kNone;
  int graph_replays = 0;
  CollSplit split = CollSplit::kNone;
  int split_value = 1;
  double alltoallv_spread = 1.0;
  CollFault fault = CollFault::kNone;
  int fault_rank = 0;
};

CollectiveParams CollectiveParamsFromPoint(const Point& point);

// The data seed of a point's trial: the timed iterations' data, and a fresh one for the checked
// operation, so that nothing left over from the timing can pass the check. The same on every
// rank; never 0.
uint64_t CollectiveSeed(const Point& point, int trial, bool verified);

// "3 of 4096 elements wrong, first at 17": a failed check's signature.
std::string CollectiveMismatchSignature(const Mismatch& mismatch);

// Why implementation device_lsa cannot run `params` (an op, reduction or type its kernels lack,
// or no symmetric registration), or nullopt.
std::optional<std::string> DeviceLsaUnsupported(const CollectiveParams& params);

// Why this combination cannot run on `backend` with `nranks` ranks in the (split) communicator,
// or nullopt. Backend-independent reasons only; the cuda backend adds what the loaded NCCL and
// the GPU lack.
std::optional<std::string> CollectiveSkipReason(const CollectiveParams& params, Backend backend,
                                                int nranks);

RankOutcome RunCollectiveHost(PointContext& ctx, const CollectiveParams& params);
#if defined(GH_HAVE_CUDA)
RankOutcome RunCollectiveCuda(PointContext& ctx, const CollectiveParams& params);
#endif

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_COLLECTIVE_H_
