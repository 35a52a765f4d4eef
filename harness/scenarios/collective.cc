// collective: registration, parameters and what every backend refuses alike; Run() dispatches
// to the host backend (collective_host.cc) or the cuda backend (collective_cuda.cc).
#include "harness/scenarios/collective.h"

#include <climits>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/core/registry.h"
#include "harness/runtime/point_context.h"
#include "harness/scenarios/kind_backends.h"

namespace gh {

int SplitColor(CollSplit rule, int value, int rank) {
  switch (rule) {
    case CollSplit::kNone: return 0;
    case CollSplit::kMod: return value > 0 ? rank % value : 0;
    case CollSplit::kDiv: return value > 0 ? rank / value : 0;
    case CollSplit::kAnd: return rank & value;
    case CollSplit::kOr: return rank | value;
  }
  return 0;
}

CollectiveParams CollectiveParamsFromPoint(const Point& point) {
  CollectiveParams p;
  p.op = point.GetEnum<CollectiveOp>("op");
  p.dtype = point.GetEnum<CollDtype>("dtype");
  p.redop = point.GetEnum<CollRedop>("redop");
  p.root = static_cast<int>(point.GetInt("root"));
  p.in_place = point.GetBool("in_place");
  p.bytes = point.GetInt("bytes");
  p.rotate_bytes = point.GetInt("rotate_bytes");
  p.allocator = point.GetEnum<AllocatorKind>("allocator");
  p.registration = point.GetEnum<RegistrationKind>("registration");
  p.implementation = point.GetEnum<CollImplementation>("implementation");
  p.ctas = static_cast<int>(point.GetInt("ctas"));
  p.unalign = static_cast<int>(point.GetInt("unalign"));
  p.agg = static_cast<int>(point.GetInt("agg"));
  p.blocking = point.GetEnum<CollBlocking>("blocking");
  p.graph_replays = static_cast<int>(point.GetInt("graph_replays"));
  p.split = point.GetEnum<CollSplit>("split");
  p.split_value = static_cast<int>(point.GetInt("split_value"));
  p.alltoallv_spread = point.GetFloat("alltoallv_spread");
  p.fault = point.GetEnum<CollFault>("fault");
  p.fault_rank = static_cast<int>(point.GetInt("fault_rank"));
  return p;
}

uint64_t CollectiveSeed(const Point& point, int trial, bool verified) {
  return (static_cast<uint64_t>(point.index) << 24) ^ (static_cast<uint64_t>(trial) << 2) ^
         (verified ? 2u : 1u);
}

std::string CollectiveMismatchSignature(const Mismatch& mismatch) {
  return absl::StrFormat("%d of %d elements wrong, first at %d", mismatch.wrong_elements,
                         mismatch.checked_elements, mismatch.first_index);
}

std::optional<std::string> DeviceLsaUnsupported(const CollectiveParams& p) {
  if (p.op != CollectiveOp::kAllReduce && p.op != CollectiveOp::kAlltoall) {
    return absl::StrCat("implementation device_lsa has kernels for all_reduce and alltoall, not ",
                        std::string(EnumToName(p.op)));
  }
  if (p.op == CollectiveOp::kAllReduce && p.redop != CollRedop::kSum) {
    return absl::StrCat("implementation device_lsa sums (as nccl-tests' -D kernels); redop ",
                        std::string(EnumToName(p.redop)), " needs implementation nccl");
  }
  if (p.dtype == CollDtype::kBfloat16 || p.dtype == CollDtype::kF8e4m3 || p.dtype == CollDtype::kF8e5m2) {
    return absl::StrCat("implementation device_lsa has no ", std::string(EnumToName(p.dtype)),
                        " kernel (nccl-tests' -D kernels cover int8 to double)");
  }
  if (p.registration != RegistrationKind::kWindowSymmetric) {
    return std::string("implementation device_lsa reads and writes symmetric windows: it needs "
                       "registration window_symmetric (nccl-tests' -D needs -R 2)");
  }
  return std::nullopt;
}

std::optional<std::string> CollectiveSkipReason(const CollectiveParams& params, Backend backend,
                                                int nranks) {
  const std::string op(EnumToName(params.op));
  if (HasRoot(params.op) && params.root >= nranks) {
    return absl::StrCat("root ", params.root, " is not a rank of a ", nranks, "-rank communicator");
  }
  if (params.op == CollectiveOp::kHypercube && (nranks & (nranks - 1)) != 0) {
    return absl::StrCat("hypercube pairs rank r with r xor 2^k: it needs a power-of-two rank count, not ",
                        nranks);
  }
  // NCCL defines no in-place form of these; nccl-tests runs them but reports no errors.
  if (params.in_place && (params.op == CollectiveOp::kSendrecv || params.op == CollectiveOp::kAlltoall ||
                          params.op == CollectiveOp::kAlltoallv)) {
    return absl::StrCat(op, " has no in-place form (NCCL's send and receive buffers may not overlap)");
  }
  if (params.implementation == CollImplementation::kDeviceLsa) {
    if (auto reason = DeviceLsaUnsupported(params)) return reason;
    if (backend == Backend::kHost) return std::string("implementation device_lsa needs the cuda backend");
  }
  if (params.registration == RegistrationKind::kMpiWindow) {
    return std::string("registration mpi_window is an MPI one-sided window, which neither MPI's "
                       "collectives nor NCCL's use");
  }
  if (params.graph_replays > 0 && params.blocking != CollBlocking::kNone) {
    return absl::StrCat("blocking ", std::string(EnumToName(params.blocking)),
                        " waits inside the iterations, which a CUDA graph cannot capture (nccl-tests "
                        "refuses -z with -G too)");
  }
  if (backend == Backend::kHost) {
    if (params.registration != RegistrationKind::kNone) {
      return absl::StrCat("registration ", std::string(EnumToName(params.registration)),
                          " registers with NCCL: it needs the cuda backend");
    }
    if (params.graph_replays > 0) return std::string("graph_replays needs the cuda backend");
  } else if (!AllocatorSupports(params.allocator, Backend::kCuda)) {
    return absl::StrCat("allocator ", std::string(EnumToName(params.allocator)),
                        " is host memory; NCCL needs device memory");
  }
  if (params.bytes / TraitsOf(params.dtype).width == 0) {
    return absl::StrCat("bytes=", params.bytes, " holds no whole ",
                        std::string(EnumToName(params.dtype)), " element");
  }
  return std::nullopt;
}

namespace {

class Collective : public Scenario {
 public:
  RankOutcome Run(PointContext& ctx) override {
    const CollectiveParams params = CollectiveParamsFromPoint(ctx.point());
#if defined(GH_HAVE_CUDA)
    if (ctx.backend() == Backend::kCuda) return RunCollectiveCuda(ctx, params);
#endif
    return RunCollectiveHost(ctx, params);
  }
};

KindInfo DescribeCollective() {
  KindInfo info;
  info.name = "collective";
  info.description =
      "Every collective nccl-tests covers, over every NCCL data type and reduction: each rank "
      "checks its output element by element (on the GPU on the cuda backend), and the timing "
      "gives nccl-tests' statistics and bandwidths (algbw, busbw) per operation.";
  info.params =
      ParamsBuilder()
          .Enum("op", CollectiveOp::kAllReduce,
                "all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, alltoallv "
                "(nccl-tests' distance-weighted pattern), gather, scatter, sendrecv (to rank+1, "
                "from rank-1), hypercube (all_gather by send/recv pairs, power-of-two ranks)")
          .Enum("dtype", CollDtype::kFloat,
                "element type, NCCL's (nccl-tests' names); one the loaded NCCL lacks is a skip")
          .Enum("redop", CollRedop::kSum,
                "reductions only: sum, prod, max, min, avg (NCCL's: floats pre-multiply by 1/n, "
                "integers sum then divide), premulsum (rank's factor 1 or 2, as nccl-tests' mulsum)")
          .Int("root", 0, "broadcast, reduce, gather, scatter: the root (>= ranks: a skip)")
          .Min(0)
          .Bool("in_place", false,
                "send data inside the receive buffer, at nccl-tests' in-place offsets")
          .Bytes("bytes", int64_t{1} << 20,
                 "nccl-tests' size: the larger of a rank's send and receive bytes (split ops round "
                 "each rank's share down to 16 bytes as nccl-tests does)")
          .Min(1)
          .Bytes("rotate_bytes", 0,
                 "nccl-tests' -e: allocate buffers this large and move each operation one slot "
                 "of `bytes` further, as nccl-tests does inside buffers made for its largest "
                 "size; 0 = exactly one slot")
          .Min(0)
          .Enum("allocator", AllocatorKind::kNcclMemAlloc,
                "cuda: what the send and receive buffers come from (nccl_mem_alloc as nccl-tests; "
                "host memory is a skip); the host backend always uses malloc")
          .Enum("registration", RegistrationKind::kNone,
                "cuda: none, nccl_register (nccl-tests -R 1), window, window_symmetric (-R 2); "
                "mpi_window is a skip")
          .Enum("implementation", CollImplementation::kNccl,
                "cuda: nccl (NCCL's collective), or device_lsa (nccl-tests' -D 1: this kind's "
                "kernel on NCCL's device API, loads and stores through symmetric windows; all_reduce "
                "sum and alltoall, int8 to double, registration window_symmetric)")
          .Int("ctas", 16, "device_lsa: CTAs of 512 threads, one LSA barrier each (nccl-tests' -V)")
          .Range(1, 1024)
          .Int("unalign", 0, "nccl-tests' -u: both buffers start this many elements late")
          .Range(0, 1024)
          .Int("agg", 1, "nccl-tests' -m: operations per iteration, in one NCCL group")
          .Range(1, 1024)
          .Enum("blocking", CollBlocking::kNone,
                "nccl-tests' -z: none (0), op_sync_barrier (1: wait for each call, then a "
                "barrier), op_sync (2: wait for each call), iteration_sync (3: wait after each "
                "iteration and time only the operations)")
          .Int("graph_replays", 0,
               "cuda, nccl-tests' -G: capture the timed iterations once in a CUDA graph and replay "
               "it this many times (time_graph_mean_us, busbw_graph_GBps); the checked operation "
               "runs from a graph too")
          .Range(0, 1000)
          .Enum("split", CollSplit::kNone,
                "NCCL_TESTS_SPLIT: split the ranks by colour = rank mod|div|and|or split_value; "
                "each group runs the collective on its own communicator")
          .Int("split_value", 1, "the operand of the split rule")
          .Min(0)
          .Float("alltoallv_spread", 1.0,
                 "alltoallv: 0 = uniform, 1 = fully distance-weighted (NCCL_TESTS_ALLTOALLV_SPREAD)")
          .Range(0, 1)
          .Enum("fault", CollFault::kNone,
                "harness self-test: corrupt_element flips the lowest bit of element n/2 of "
                "fault_rank's output before the check")
          .Int("fault_rank", 0, "the rank that shows the fault (clamped to ranks-1)")
          .Min(0)
          .Build();
  info.backends = HostAndCudaBackends();
  info.ranks = RankRequirement{1, INT_MAX};
  info.make = [] { return std::make_unique<Collective>(); };
  return info;
}

}  // namespace

GH_REGISTER_SCENARIO(collective, DescribeCollective);

}  // namespace gh
