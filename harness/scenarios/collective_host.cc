// collective on the host backend: the matching MPI collective for every op (MPI_Allreduce,
// MPI_Allgather, MPI_Reduce_scatter_block, MPI_Bcast, MPI_Reduce, MPI_Alltoall(v), MPI_Gather,
// MPI_Scatter, MPI_Sendrecv; hypercube as nccl-tests builds it, from send/recv pairs), timed
// with the host clock and checked element by element with the cuda backend's data
// (collective_data.h). MPI has no half, bfloat16 or float8: those reduce through user-defined
// MPI operations that decode each element exactly, combine in double and round to nearest even
// (the inputs make every step exact); uint8 sums too (Open MPI's saturate). NCCL's avg and
// premulsum are emulated as NCCL defines
// them: floats are pre-multiplied (by 1/n as NCCL rounds it, or by the rank's factor) and
// summed; integers are summed, then divided by n, truncating towards zero.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <new>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/runtime/mpi_errors.h"
#include "harness/runtime/point_context.h"
#include "harness/scenarios/collective.h"
#include "harness/scenarios/collective_bandwidth.h"
#include "harness/scenarios/collective_data.h"
#include "harness/scenarios/collective_plan.h"
#include "harness/scenarios/rank_steps.h"

namespace gh {
namespace {

constexpr int kHypercubeTag = 3907;
constexpr int kSendrecvTag = 3908;

// User-defined reductions over `D`'s bits for the types MPI lacks.
template <CollDtype D, CollRedop R>
void EmulatedReduce(void* in, void* inout, int* len, MPI_Datatype*) {
  const DtypeTraits t = TraitsOf(D);
  for (int i = 0; i < *len; ++i) {
    const double a = DecodeFloat(t.format, LoadBits(in, i, t.width));
    const double b = DecodeFloat(t.format, LoadBits(inout, i, t.width));
    double c = 0;
    switch (R) {
      case CollRedop::kProd: c = a * b; break;
      case CollRedop::kMin: c = std::min(a, b); break;
      case CollRedop::kMax: c = std::max(a, b); break;
      default: c = a + b; break;
    }
    StoreBits(inout, i, t.width, EncodeFloat(t.format, c));
  }
}

// uint8 sums modulo 256, as NCCL's and C's. Open MPI 4.1's AVX reductions (op/avx) saturate
// 8-bit sums instead: 200 + 100 gives 255 in an MPI_UINT8_T MPI_SUM of 64 elements, 44 for one
// element or with OMPI_MCA_op=^avx (Open MPI 4.1.4, Debian 12). Signed int8 data stays in
// bounds, so its sums never reach the difference.
void ModularByteSum(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const uint8_t*>(in);
  auto* b = static_cast<uint8_t*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = static_cast<uint8_t>(a[i] + b[i]);
}

template <CollDtype D>
MPI_User_function* EmulatedFunction(CollRedop redop) {
  switch (redop) {
    case CollRedop::kProd: return &EmulatedReduce<D, CollRedop::kProd>;
    case CollRedop::kMin: return &EmulatedReduce<D, CollRedop::kMin>;
    case CollRedop::kMax: return &EmulatedReduce<D, CollRedop::kMax>;
    default: return &EmulatedReduce<D, CollRedop::kSum>;
  }
}

// The MPI type and operation a reduction runs with (freed with the point).
class MpiReduction {
 public:
  MpiReduction(const MpiReduction&) = delete;
  MpiReduction& operator=(const MpiReduction&) = delete;
  MpiReduction() = default;
  ~MpiReduction() {
    if (custom_op_ != MPI_OP_NULL) MPI_Op_free(&custom_op_);
    if (custom_type_ != MPI_DATATYPE_NULL) MPI_Type_free(&custom_type_);
  }

  int Init(CollDtype dtype, CollRedop redop) {
    // avg and premulsum arrive here as sums (pre-multiplied, or divided afterwards).
    const CollRedop combine = redop == CollRedop::kAvg || redop == CollRedop::kPreMulSum ? CollRedop::kSum : redop;
    switch (combine) {
      case CollRedop::kProd: op = MPI_PROD; break;
      case CollRedop::kMin: op = MPI_MIN; break;
      case CollRedop::kMax: op = MPI_MAX; break;
      default: op = MPI_SUM; break;
    }
    MPI_User_function* function = nullptr;
    switch (dtype) {
      case CollDtype::kInt8: type = MPI_INT8_T; return MPI_SUCCESS;
      case CollDtype::kUint8:
        type = MPI_UINT8_T;
        if (combine != CollRedop::kSum) return MPI_SUCCESS;
        function = &ModularByteSum;
        break;
      case CollDtype::kInt32: type = MPI_INT32_T; return MPI_SUCCESS;
      case CollDtype::kUint32: type = MPI_UINT32_T; return MPI_SUCCESS;
      case CollDtype::kInt64: type = MPI_INT64_T; return MPI_SUCCESS;
      case CollDtype::kUint64: type = MPI_UINT64_T; return MPI_SUCCESS;
      case CollDtype::kFloat: type = MPI_FLOAT; return MPI_SUCCESS;
      case CollDtype::kDouble: type = MPI_DOUBLE; return MPI_SUCCESS;
      default: break;
    }
    if (function != nullptr) {  // a user operation over MPI's own type
      const int rc = MPI_Op_create(function, /*commute=*/1, &custom_op_);
      op = custom_op_;
      return rc;
    }
    switch (dtype) {
      case CollDtype::kHalf: function = EmulatedFunction<CollDtype::kHalf>(combine); break;
      case CollDtype::kBfloat16: function = EmulatedFunction<CollDtype::kBfloat16>(combine); break;
      case CollDtype::kF8e4m3: function = EmulatedFunction<CollDtype::kF8e4m3>(combine); break;
      default: function = EmulatedFunction<CollDtype::kF8e5m2>(combine); break;
    }
    int rc = MPI_Type_contiguous(TraitsOf(dtype).width, MPI_BYTE, &custom_type_);
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&custom_type_);
    if (rc == MPI_SUCCESS) rc = MPI_Op_create(function, /*commute=*/1, &custom_op_);
    type = custom_type_;
    op = custom_op_;
    return rc;
  }

  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;

 private:
  MPI_Datatype custom_type_ = MPI_DATATYPE_NULL;
  MPI_Op custom_op_ = MPI_OP_NULL;
};

// Each element of `data` times `factor` (exact for the inputs collective_data.h makes).
void Scale(CollDtype dtype, void* data, int64_t count, double factor) {
  const DtypeTraits t = TraitsOf(dtype);
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t bits = LoadBits(data, i, t.width);
    uint64_t scaled;
    if (t.is_float) {
      scaled = EncodeFloat(t.format, DecodeFloat(t.format, bits) * factor);
    } else {
      scaled = bits * static_cast<uint64_t>(factor);  // premulsum's factor 1 or 2, modulo 2^bits
    }
    StoreBits(data, i, t.width, scaled & WidthMask(t.width));
  }
}

class CollectiveHost : RankSteps {
 public:
  CollectiveHost(PointContext& ctx, const CollectiveParams& params)
      : RankSteps(ctx), ctx_(ctx), p_(params) {}

  ~CollectiveHost() {
    if (split_comm_ != MPI_COMM_NULL) MPI_Comm_free(&split_comm_);
  }

  RankOutcome Run() {
    RankOutcome out;
    out.rank = ctx_.rank();
    const int rc = RunSteps(out);
    if (rc != MPI_SUCCESS) {
      return ErrorKeepingMetrics(std::move(out), MpiErrorSignature(rc), step_);
    }
    return out;
  }

 private:
  // Where operation k reads its input, and its receive buffer and output (collective_plan.h).
  char* SendPtr(int64_t k) {
    return (p_.in_place ? recv_.data() : send_.data()) + OffsetsOf(layout_, p_, rank_, k).send;
  }
  char* RecvBase(int64_t k) { return recv_.data() + OffsetsOf(layout_, p_, rank_, k).recv; }
  char* OutputPtr(int64_t k) { return recv_.data() + OffsetsOf(layout_, p_, rank_, k).output; }

  // One collective, operation k (its rotation slot).
  int Collect(int64_t k) {
    char* send = SendPtr(k);
    char* recv = RecvBase(k);
    char* output = OutputPtr(k);
    const int w = layout_.width;
    const int count = static_cast<int>(layout_.count);
    const int bytes = count * w;  // copies move bytes
    const bool in_place = p_.in_place;
    switch (p_.op) {
      case CollectiveOp::kAllReduce:
      case CollectiveOp::kReduce:
      case CollectiveOp::kReduceScatter:
        return Reduce(send, recv, output);
      case CollectiveOp::kAllGather:
        return MPI_Allgather(in_place ? MPI_IN_PLACE : send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, comm_);
      case CollectiveOp::kBroadcast:
        if (!in_place && rank_ == p_.root) std::memcpy(recv, send, static_cast<size_t>(bytes));
        return MPI_Bcast(recv, bytes, MPI_BYTE, p_.root, comm_);
      case CollectiveOp::kAlltoall:
        return MPI_Alltoall(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, comm_);
      case CollectiveOp::kAlltoallv:
        return MPI_Alltoallv(send, alltoallv_.send_counts.data(), alltoallv_.send_displs.data(), MPI_BYTE,
                             recv, alltoallv_.recv_counts.data(), alltoallv_.recv_displs.data(), MPI_BYTE,
                             comm_);
      case CollectiveOp::kGather:
        return MPI_Gather(in_place && rank_ == p_.root ? MPI_IN_PLACE : send, bytes, MPI_BYTE, recv,
                          bytes, MPI_BYTE, p_.root, comm_);
      case CollectiveOp::kScatter:
        return MPI_Scatter(send, bytes, MPI_BYTE, in_place && rank_ == p_.root ? MPI_IN_PLACE : output,
                           bytes, MPI_BYTE, p_.root, comm_);
      case CollectiveOp::kSendrecv:
        return MPI_Sendrecv(send, bytes, MPI_BYTE, (rank_ + 1) % nranks_, kSendrecvTag, recv, bytes,
                            MPI_BYTE, (rank_ - 1 + nranks_) % nranks_, kSendrecvTag, comm_,
                            MPI_STATUS_IGNORE);
      case CollectiveOp::kHypercube: {
        // nccl-tests src/hypercube.cu: own block into place, then at step `mask` swap the
        // mask-sized run of blocks held so far with rank ^ mask.
        const int64_t block = int64_t{bytes};
        if (send != recv + rank_ * block) std::memmove(recv + rank_ * block, send, static_cast<size_t>(block));
        for (int mask = 1; mask < nranks_; mask <<= 1) {
          const int s = rank_ & ~(mask - 1);
          const int r = s ^ mask;
          const int rc = MPI_Sendrecv(recv + s * block, bytes * mask, MPI_BYTE, rank_ ^ mask, kHypercubeTag,
                                      recv + r * block, bytes * mask, MPI_BYTE, rank_ ^ mask,
                                      kHypercubeTag, comm_, MPI_STATUS_IGNORE);
          if (rc != MPI_SUCCESS) return rc;
        }
        return MPI_SUCCESS;
      }
    }
    return MPI_SUCCESS;
  }

  // all_reduce, reduce and reduce_scatter, with NCCL's avg and premulsum.
  int Reduce(char* send, char* recv, char* output) {
    const int count = static_cast<int>(layout_.count);
    const DtypeTraits t = TraitsOf(p_.dtype);
    const bool premultiply = p_.redop == CollRedop::kPreMulSum || (p_.redop == CollRedop::kAvg && t.is_float);
    const void* input = send;
    bool in_place = p_.in_place;
    if (premultiply) {
      std::memcpy(scaled_.data(), send, scaled_.size());
      Scale(p_.dtype, scaled_.data(), layout_.send_count,
            p_.redop == CollRedop::kAvg ? check_.reduction.avg_scale : PreMulFactor(rank_));
      input = scaled_.data();
      in_place = false;  // from the scaled copy into the output, which is where NCCL leaves it
    }
    int rc = MPI_SUCCESS;
    bool has_output = true;
    switch (p_.op) {
      case CollectiveOp::kAllReduce:
        rc = MPI_Allreduce(in_place ? MPI_IN_PLACE : input, output, count, mpi_.type, mpi_.op, comm_);
        break;
      case CollectiveOp::kReduce:
        has_output = rank_ == p_.root;
        rc = MPI_Reduce(in_place && has_output ? MPI_IN_PLACE : input, output, count, mpi_.type, mpi_.op,
                        p_.root, comm_);
        break;
      default:  // reduce_scatter: MPI's in-place result lands at the start of the buffer
        rc = MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : input, in_place ? recv : output, count,
                                      mpi_.type, mpi_.op, comm_);
        if (rc == MPI_SUCCESS && in_place && output != recv) {
          std::memmove(output, recv, static_cast<size_t>(count) * layout_.width);
        }
        break;
    }
    if (rc == MPI_SUCCESS && has_output && p_.redop == CollRedop::kAvg && !t.is_float) {
      for (int64_t i = 0; i < count; ++i) {
        const uint64_t sum = LoadBits(output, i, t.width);
        const uint64_t average = t.is_signed ? static_cast<uint64_t>(SignedFromBits(sum, t.width) / nranks_)
                                             : sum / static_cast<uint64_t>(nranks_);
        StoreBits(output, i, t.width, average & WidthMask(t.width));
      }
    }
    return rc;
  }

  // One iteration of agg operations, with nccl-tests' blocking; the time of its operations.
  int Iteration(int iteration, double* op_seconds) {
    const auto start = std::chrono::steady_clock::now();
    for (int a = 0; a < p_.agg; ++a) {
      if (const int rc = Collect(int64_t{iteration} * p_.agg + a); rc != MPI_SUCCESS) return rc;
      if (p_.blocking == CollBlocking::kOpSyncBarrier) {
        if (const int rc = MPI_Barrier(comm_); rc != MPI_SUCCESS) return rc;
      }
    }
    *op_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (p_.blocking == CollBlocking::kIterationSync) return MPI_Barrier(comm_);
    return MPI_SUCCESS;
  }

  void FillInput(uint64_t seed) {
    check_.seed = seed;
    check_.reduction.seed = seed;
    char* send = SendPtr(0);
    for (int64_t i = 0; i < layout_.send_count; ++i) {
      StoreBits(send, i, layout_.width, SendInputBits(check_, i));
    }
  }

  // The communicator the collective runs on: the world, or this rank's part of a split.
  int JoinCommunicator(int color) {
    MPI_Comm world = ctx_.comm();
    comm_ = world;
    if (p_.split != CollSplit::kNone) {
      if (const int rc = MPI_Comm_split(world, color, ctx_.rank(), &split_comm_); rc != MPI_SUCCESS) return rc;
      MPI_Comm_set_errhandler(split_comm_, MPI_ERRORS_RETURN);
      comm_ = split_comm_;
    }
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &nranks_);
    return MPI_SUCCESS;
  }

  // alltoallv's byte counts and displacements, and the receive segments its check reads.
  void PlanAlltoallv() {
    const AlltoallvCounts counts =
        AlltoallvCountsOf(rank_, nranks_, layout_.count, layout_.width, p_.alltoallv_spread);
    for (auto [from, to] : {std::pair{&counts.send_counts, &alltoallv_.send_counts},
                            std::pair{&counts.send_displs, &alltoallv_.send_displs},
                            std::pair{&counts.recv_counts, &alltoallv_.recv_counts},
                            std::pair{&counts.recv_displs, &alltoallv_.recv_displs}}) {
      for (int64_t elements : *from) to->push_back(static_cast<int>(elements * layout_.width));
    }
    segments_ = AlltoallvReceiveSegments(rank_, nranks_, layout_.count, layout_.width, p_.alltoallv_spread);
    check_.segments = segments_.data();
    check_.num_segments = static_cast<int>(segments_.size());
  }

  // The plan, its check and the buffers; `out` becomes a skip where the host backend cannot
  // run the point.
  int Prepare(RankOutcome& out) {
    if (auto reason = CollectiveSkipReason(p_, Backend::kHost, nranks_)) {
      out = RankOutcome::Skip(*reason);
      return MPI_SUCCESS;
    }
    layout_ = PlanCollective(p_, nranks_);
    if (std::max(layout_.send_count, layout_.recv_count) * layout_.width > INT_MAX) {
      out = RankOutcome::Skip("the host backend's MPI counts are int: at most 2 GiB per rank and call");
      return MPI_SUCCESS;
    }
    check_ = MakeCollectiveCheck(p_, layout_, rank_, nranks_);
    if (IsReduction(p_.op)) {
      if (const int rc = mpi_.Init(p_.dtype, p_.redop); rc != MPI_SUCCESS) return rc;
    }
    if (p_.op == CollectiveOp::kAlltoallv) PlanAlltoallv();
    const int64_t buffer_bytes = BufferBytes(layout_, p_.unalign);
    try {
      recv_.assign(static_cast<size_t>(buffer_bytes), 0);
      if (!p_.in_place) send_.assign(static_cast<size_t>(buffer_bytes), 0);
      scaled_.assign(static_cast<size_t>(layout_.send_count * layout_.width), 0);
    } catch (const std::bad_alloc&) {
      return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
  }

  // The warm-ups; the timed iterations, one sample each; then the loop, as nccl-tests times it:
  // one host clock around the iterations (iteration_sync: only the operations, not the
  // barriers between iterations).
  int TimeIterations(RankOutcome& out) {
    for (int it = 0; it < ctx_.warmup(); ++it) {
      double unused = 0;
      if (const int rc = Iteration(it, &unused); rc != MPI_SUCCESS) return rc;
    }
    if (const int rc = MPI_Barrier(comm_); rc != MPI_SUCCESS) return rc;
    const int iterations = std::max(ctx_.iterations(), 1);
    std::vector<double> samples_us;
    for (int it = 0; it < iterations; ++it) {
      double seconds = 0;
      if (const int rc = Iteration(it, &seconds); rc != MPI_SUCCESS) return rc;
      samples_us.push_back(seconds * 1e6 / p_.agg);
    }
    if (const int rc = MPI_Barrier(comm_); rc != MPI_SUCCESS) return rc;
    double operations_seconds = 0;
    const auto loop_start = std::chrono::steady_clock::now();
    for (int it = 0; it < iterations; ++it) {
      double seconds = 0;
      if (const int rc = Iteration(it, &seconds); rc != MPI_SUCCESS) return rc;
      operations_seconds += seconds;
    }
    double loop_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - loop_start).count();
    if (p_.blocking == CollBlocking::kIterationSync) loop_seconds = operations_seconds;
    out.metrics = CollectiveTimingMetrics(p_.op, layout_, nranks_, samples_us,
                                          loop_seconds * 1e6 / (double(iterations) * p_.agg), {});
    return MPI_SUCCESS;
  }

  // The output element by element against the expected bits.
  Mismatch CompareOutput(const char* output) const {
    Mismatch mismatch;
    mismatch.checked_elements = layout_.recv_count;
    for (int64_t j = 0; j < layout_.recv_count; ++j) {
      const uint64_t expected = ExpectedOutputBits(check_, j);
      const uint64_t actual = LoadBits(output, j, layout_.width);
      if (actual == expected) continue;
      if (mismatch.wrong_elements++ == 0) {
        mismatch.first_index = j;
        mismatch.expected = FormatCollElement(p_.dtype, expected);
        mismatch.actual = FormatCollElement(p_.dtype, actual);
      }
    }
    return mismatch;
  }

  int RunSteps(RankOutcome& out) {
    Step("setup");
    const int color = SplitColor(p_.split, p_.split_value, ctx_.rank());
    if (const int rc = JoinCommunicator(color); rc != MPI_SUCCESS) return rc;
    if (const int rc = Prepare(out); rc != MPI_SUCCESS || out.outcome == Outcome::kSkip) return rc;

    const uint64_t timed_seed = CollectiveSeed(ctx_.point(), ctx_.trial(), /*verified=*/false);
    FillInput(timed_seed);
    const int64_t op_bytes = layout_.slot_bytes;
    Step("collective", EnumToName(p_.op).data(), op_bytes);
    if (const int rc = TimeIterations(out); rc != MPI_SUCCESS) return rc;

    Step("verify", EnumToName(p_.op).data(), op_bytes);
    std::memset(RecvBase(0), kPoisonByte, static_cast<size_t>(layout_.slot_bytes));
    FillInput(CollectiveSeed(ctx_.point(), ctx_.trial(), /*verified=*/true));
    if (const int rc = MPI_Barrier(comm_); rc != MPI_SUCCESS) return rc;
    if (const int rc = Collect(0); rc != MPI_SUCCESS) return rc;
    if (p_.fault == CollFault::kCorruptElement && ctx_.rank() == std::min(p_.fault_rank, ctx_.nranks() - 1)) {
      char* flipped = OutputPtr(0) + (layout_.recv_count / 2) * layout_.width;
      flipped[0] ^= 1;  // little-endian: the element's lowest bit
    }
    Mismatch mismatch = CompareOutput(OutputPtr(0));
    out.metrics.push_back({"checked_elements", double(layout_.recv_count), "count"});
    if (p_.split != CollSplit::kNone) {
      out.metrics.push_back({"split_color", double(color), "count"});
      out.metrics.push_back({"comm_ranks", double(nranks_), "count"});
    }
    Step("teardown");
    if (mismatch.wrong_elements == 0) {
      out.outcome = Outcome::kPass;
      return MPI_SUCCESS;
    }
    std::vector<Metric> metrics = std::move(out.metrics);
    out = RankOutcome::Fail(CollectiveMismatchSignature(mismatch), "verify");
    out.metrics = std::move(metrics);
    out.mismatch = std::move(mismatch);
    return MPI_SUCCESS;
  }

  PointContext& ctx_;
  const CollectiveParams& p_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Comm split_comm_ = MPI_COMM_NULL;
  int rank_ = 0, nranks_ = 1;
  CollectiveLayout layout_;
  CollectiveCheck check_;
  MpiReduction mpi_;
  struct {
    std::vector<int> send_counts, send_displs, recv_counts, recv_displs;
  } alltoallv_;
  std::vector<AlltoallvSegment> segments_;
  std::vector<char> send_, recv_, scaled_;
};

}  // namespace

RankOutcome RunCollectiveHost(PointContext& ctx, const CollectiveParams& params) {
  return CollectiveHost(ctx, params).Run();
}

}  // namespace gh
