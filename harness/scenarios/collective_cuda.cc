// collective on the cuda backend: NCCL's collective for every op (ncclAllReduce ...
// ncclAlltoAll, ncclGather, ncclScatter; alltoallv, sendrecv and hypercube from grouped
// ncclSend/ncclRecv as nccl-tests builds them), on the job's stream and communicator (or one
// split from it), in buffers from the point's allocator, registered as it asks. Timed three
// ways: CUDA events around each iteration, nccl-tests' loop (a host clock around the
// iterations back to back, then a stream synchronize), and on request a CUDA-graph replay.
// The data is filled and checked on the device (collective_kernels.cu).
#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/runtime/cuda_errors_cuda.h"
#include "harness/runtime/cuda_resources.h"
#include "harness/runtime/mpi_errors.h"
#include "harness/runtime/point_context.h"
#include "harness/scenarios/collective.h"
#include "harness/scenarios/collective_bandwidth.h"
#include "harness/scenarios/collective_data.h"
#include "harness/scenarios/collective_device_api_cuda.h"
#include "harness/scenarios/collective_kernels_cuda.h"
#include "harness/scenarios/collective_plan.h"
#include "harness/scenarios/cuda_point_status_cuda.h"
#include "harness/scenarios/device_buffer_cuda.h"
#include "harness/scenarios/ring_shift_device.h"
#include "harness/scenarios/ring_shift_loop_cuda.h"

// NCCL 2.28 added these three; an older libnccl.so.2 at run time lacks them, and the grouped
// send/recv nccl-tests used before 2.28 stands in.
#pragma weak ncclAlltoAll
#pragma weak ncclGather
#pragma weak ncclScatter

namespace gh {
namespace {

// Why the loaded NCCL or this GPU cannot run the point, or "".
std::string NcclSkipReason(const CollectiveParams& p, int nccl_version, int sm_major) {
  const std::string dtype(EnumToName(p.dtype));
  const std::string version = FormatNcclVersionCode(nccl_version);
  const bool fp8 = p.dtype == CollDtype::kF8e4m3 || p.dtype == CollDtype::kF8e5m2;
  if (fp8 && nccl_version < 22400) {
    return absl::StrCat("NCCL ", version, " has no ", dtype, " (float8 types came with NCCL 2.24)");
  }
  if (p.dtype == CollDtype::kBfloat16 && nccl_version < 21000) {
    return absl::StrCat("NCCL ", version, " has no bfloat16 (it came with NCCL 2.10)");
  }
  if (IsReduction(p.op)) {
    if (fp8 && sm_major < 9) {
      return absl::StrCat("NCCL reduces float8 only on sm_90 and newer; this GPU is sm_", sm_major, "x");
    }
    if (p.redop == CollRedop::kAvg && nccl_version < 21000) {
      return absl::StrCat("NCCL ", version, " has no avg (it came with NCCL 2.10)");
    }
    if (p.redop == CollRedop::kPreMulSum && nccl_version < 21100) {
      return absl::StrCat("NCCL ", version, " has no premulsum (it came with NCCL 2.11)");
    }
  }
  return "";
}

// A group that is always closed, so that a failed call cannot leave NCCL inside it.
template <typename Calls>
absl::Status InGroup(ncclComm_t comm, Calls&& calls) {
  GH_NCCL_RETURN_IF_ERROR(comm, ncclGroupStart());
  absl::Status status = calls();
  const ncclResult_t ended = ncclGroupEnd();
  if (status.ok() && ended != ncclSuccess) return NcclStatus(ended, comm, "ncclGroupEnd", GH_CUDA_WHERE);
  return status;
}

class CollectiveCuda : RankSteps {
 public:
  CollectiveCuda(PointContext& ctx, const CollectiveParams& params)
      : RankSteps(ctx), ctx_(ctx), p_(params), cuda_(*ctx.cuda()), stream_(cuda_.stream()),
        type_(static_cast<ncclDataType_t>(static_cast<int>(params.dtype))) {}

  ~CollectiveCuda() {
    lsa_.reset();
    send_.reset();
    recv_.reset();
    if (premul_created_) ncclRedOpDestroy(redop_, comm_);
    if (split_nccl_ != nullptr) ncclCommDestroy(split_nccl_);
    if (split_mpi_ != MPI_COMM_NULL) MPI_Comm_free(&split_mpi_);
  }

  RankOutcome Run() {
    RankOutcome out = CudaPointOutcome(ctx_);
    absl::Status status = RunSteps(out);
    if (!status.ok()) {
      RankOutcome error = ErrorKeepingMetrics(std::move(out), status, step_);
      error.device = cuda_.device();
      return error;
    }
    return out;
  }

 private:
  // Where operation k reads its input, and its receive buffer and output (collective_plan.h).
  char* SendPtr(int64_t k) const {
    void* base = p_.in_place ? recv_->allocation->data() : send_->allocation->data();
    return static_cast<char*>(base) + OffsetsOf(layout_, p_, rank_, k).send;
  }
  char* RecvBase(int64_t k) const {
    return static_cast<char*>(recv_->allocation->data()) + OffsetsOf(layout_, p_, rank_, k).recv;
  }
  char* OutputPtr(int64_t k) const {
    return static_cast<char*>(recv_->allocation->data()) + OffsetsOf(layout_, p_, rank_, k).output;
  }

  absl::Status Nccl(ncclResult_t result, const char* call) const {
    return result == ncclSuccess ? absl::OkStatus() : NcclStatus(result, comm_, call, GH_CUDA_WHERE);
  }

  // device_lsa: this kind's kernel on the symmetric windows.
  absl::Status EnqueueLsa(const char* send, const char* output, size_t count) {
    const RegisteredBuffer& from = p_.in_place ? *recv_ : *send_;
    const auto* from_base = static_cast<const char*>(from.allocation->data());
    const auto* to_base = static_cast<const char*>(recv_->allocation->data());
    return lsa_->Enqueue(p_.op, p_.dtype, from.registration->nccl_window(), size_t(send - from_base),
                         recv_->registration->nccl_window(), size_t(output - to_base), count, stream_);
  }

  // Alltoall as one send and one receive of a block per peer, where NCCL has no ncclAlltoAll.
  absl::Status EnqueueAlltoallPeers(const char* send, char* recv, size_t count, size_t block) {
    return InGroup(comm_, [&]() -> absl::Status {
      for (int peer = 0; peer < nranks_; ++peer) {
        absl::Status s = Nccl(ncclSend(send + peer * block, count, type_, peer, comm_, stream_), "ncclSend");
        if (s.ok()) s = Nccl(ncclRecv(recv + peer * block, count, type_, peer, comm_, stream_), "ncclRecv");
        if (!s.ok()) return s;
      }
      return absl::OkStatus();
    });
  }

  absl::Status EnqueueAlltoallv(const char* send, char* recv) {
    return InGroup(comm_, [&]() -> absl::Status {
      for (int peer = 0; peer < nranks_; ++peer) {
        const AlltoallvCounts& c = alltoallv_;
        const int w = layout_.width;
        if (c.send_counts[peer] > 0) {
          absl::Status s = Nccl(ncclSend(send + c.send_displs[peer] * w, c.send_counts[peer], type_,
                                         peer, comm_, stream_), "ncclSend");
          if (!s.ok()) return s;
        }
        if (c.recv_counts[peer] > 0) {
          absl::Status s = Nccl(ncclRecv(recv + c.recv_displs[peer] * w, c.recv_counts[peer], type_,
                                         peer, comm_, stream_), "ncclRecv");
          if (!s.ok()) return s;
        }
      }
      return absl::OkStatus();
    });
  }

  // Gather as sends to the root, where NCCL has no ncclGather.
  absl::Status EnqueueGatherPeers(const char* send, char* recv, size_t count, size_t block) {
    const int root = p_.root;
    return InGroup(comm_, [&]() -> absl::Status {
      absl::Status s = Nccl(ncclSend(send, count, type_, root, comm_, stream_), "ncclSend");
      for (int peer = 0; s.ok() && rank_ == root && peer < nranks_; ++peer) {
        s = Nccl(ncclRecv(recv + peer * block, count, type_, peer, comm_, stream_), "ncclRecv");
      }
      return s;
    });
  }

  // Scatter as sends from the root, where NCCL has no ncclScatter.
  absl::Status EnqueueScatterPeers(const char* send, char* output, size_t count, size_t block) {
    const int root = p_.root;
    return InGroup(comm_, [&]() -> absl::Status {
      absl::Status s;
      for (int peer = 0; s.ok() && rank_ == root && peer < nranks_; ++peer) {
        s = Nccl(ncclSend(send + peer * block, count, type_, peer, comm_, stream_), "ncclSend");
      }
      if (s.ok()) s = Nccl(ncclRecv(output, count, type_, root, comm_, stream_), "ncclRecv");
      return s;
    });
  }

  // nccl-tests src/hypercube.cu: own block into place, then at step `mask` exchange the
  // mask-sized run of blocks held so far with rank ^ mask.
  absl::Status EnqueueHypercube(const char* send, char* recv, size_t count, size_t block) {
    const int n = nranks_, r = rank_;
    if (recv + r * block != send) {
      GH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(recv + r * block, send, block, cudaMemcpyDeviceToDevice, stream_));
    }
    for (int mask = 1; mask < n; mask <<= 1) {
      const int s = r & ~(mask - 1);
      const int t = s ^ mask;
      absl::Status status = InGroup(comm_, [&]() -> absl::Status {
        absl::Status st = Nccl(ncclSend(recv + s * block, count * mask, type_, r ^ mask, comm_, stream_), "ncclSend");
        if (st.ok()) st = Nccl(ncclRecv(recv + t * block, count * mask, type_, r ^ mask, comm_, stream_), "ncclRecv");
        return st;
      });
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }

  // One collective, operation k (its rotation slot). Inside a group only where the op is one.
  absl::Status Enqueue(int64_t k) {
    const char* send = SendPtr(k);
    char* recv = RecvBase(k);
    char* output = OutputPtr(k);
    const size_t count = static_cast<size_t>(layout_.count);
    if (lsa_ != nullptr) return EnqueueLsa(send, output, count);
    const size_t block = count * layout_.width;
    const int n = nranks_, r = rank_, root = p_.root;
    switch (p_.op) {
      case CollectiveOp::kAllReduce:
        return Nccl(ncclAllReduce(send, output, count, type_, redop_, comm_, stream_), "ncclAllReduce");
      case CollectiveOp::kAllGather:
        return Nccl(ncclAllGather(send, recv, count, type_, comm_, stream_), "ncclAllGather");
      case CollectiveOp::kReduceScatter:
        return Nccl(ncclReduceScatter(send, output, count, type_, redop_, comm_, stream_), "ncclReduceScatter");
      case CollectiveOp::kBroadcast:
        return Nccl(ncclBroadcast(send, recv, count, type_, root, comm_, stream_), "ncclBroadcast");
      case CollectiveOp::kReduce:
        return Nccl(ncclReduce(send, recv, count, type_, redop_, root, comm_, stream_), "ncclReduce");
      case CollectiveOp::kAlltoall:
        if (ncclAlltoAll != nullptr) {
          return Nccl(ncclAlltoAll(send, recv, count, type_, comm_, stream_), "ncclAlltoAll");
        }
        return EnqueueAlltoallPeers(send, recv, count, block);
      case CollectiveOp::kAlltoallv:
        return EnqueueAlltoallv(send, recv);
      case CollectiveOp::kGather:
        if (ncclGather != nullptr) {
          return Nccl(ncclGather(send, recv, count, type_, root, comm_, stream_), "ncclGather");
        }
        return EnqueueGatherPeers(send, recv, count, block);
      case CollectiveOp::kScatter:
        if (ncclScatter != nullptr) {
          return Nccl(ncclScatter(send, output, count, type_, root, comm_, stream_), "ncclScatter");
        }
        return EnqueueScatterPeers(send, output, count, block);
      case CollectiveOp::kSendrecv:
        return InGroup(comm_, [&]() -> absl::Status {
          absl::Status s = Nccl(ncclSend(send, count, type_, (r + 1) % n, comm_, stream_), "ncclSend");
          if (s.ok()) s = Nccl(ncclRecv(recv, count, type_, (r - 1 + n) % n, comm_, stream_), "ncclRecv");
          return s;
        });
      case CollectiveOp::kHypercube:
        return EnqueueHypercube(send, recv, count, block);
    }
    return absl::OkStatus();
  }

  // One iteration: agg operations (in one group when more than one), then nccl-tests' waits.
  absl::Status Iteration(int iteration) {
    auto operations = [&]() -> absl::Status {
      for (int a = 0; a < p_.agg; ++a) {
        if (absl::Status s = Enqueue(int64_t{iteration} * p_.agg + a); !s.ok()) return s;
      }
      return absl::OkStatus();
    };
    absl::Status status = p_.agg > 1 ? InGroup(comm_, operations) : operations();
    if (!status.ok()) return status;
    if (p_.blocking == CollBlocking::kOpSync || p_.blocking == CollBlocking::kOpSyncBarrier) {
      if (absl::Status s = SpinWait(); !s.ok()) return s;
    }
    if (p_.blocking == CollBlocking::kOpSyncBarrier) return Barrier();
    return absl::OkStatus();
  }

  // Waits for the stream as nccl-tests does (cudaStreamQuery and yield, no sleeping), so the
  // loop's host clock stops when the work does. The job's Synchronize (which backs off to
  // 100 us sleeps after 1 ms, and watches NCCL's errors and the watchdog) takes over after 2 s.
  absl::Status SpinWait() {
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start < std::chrono::seconds(2) && !cuda_.aborted()) {
      const cudaError_t state = cudaStreamQuery(stream_);
      if (state == cudaSuccess) break;
      if (state != cudaErrorNotReady) return CudaStatus(state, "cudaStreamQuery", GH_CUDA_WHERE);
      std::this_thread::yield();
    }
    return cuda_.Synchronize();
  }

  absl::Status Barrier() {
    const int rc = MPI_Barrier(mpi_comm_);
    return rc == MPI_SUCCESS ? absl::OkStatus() : absl::InternalError(MpiErrorSignature(rc));
  }

  // Every rank of the job learns whether any failed `step`, so none starts a collective alone.
  absl::Status Agree(absl::Status status, const char* step) {
    absl::StatusOr<bool> any = ctx_.AnyRankFailed(!status.ok());
    if (!any.ok()) return any.status();
    if (*any && status.ok()) return absl::AbortedError(absl::StrCat(step, " failed on another rank"));
    return status;
  }

  absl::Status Communicator(RankOutcome& out, bool* skipped) {
    ncclComm_t parent = cuda_.nccl();
    if (parent == nullptr) return absl::AbortedError("ncclCommAbort: communicator aborted by the watchdog");
    comm_ = parent;
    mpi_comm_ = ctx_.comm();
    color_ = SplitColor(p_.split, p_.split_value, ctx_.rank());
    if (p_.split != CollSplit::kNone) {
      if (const int rc = MPI_Comm_split(ctx_.comm(), color_, ctx_.rank(), &split_mpi_); rc != MPI_SUCCESS) {
        return absl::InternalError(MpiErrorSignature(rc));
      }
      mpi_comm_ = split_mpi_;
      GH_NCCL_RETURN_IF_ERROR(parent, ncclCommSplit(parent, color_, ctx_.rank(), &split_nccl_, nullptr));
      comm_ = split_nccl_;
    }
    GH_NCCL_RETURN_IF_ERROR(comm_, ncclCommUserRank(comm_, &rank_));
    GH_NCCL_RETURN_IF_ERROR(comm_, ncclCommCount(comm_, &nranks_));
    int version = 0;
    ncclGetVersion(&version);
    cudaDeviceProp prop{};
    GH_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&prop, cuda_.device()));
    std::string reason = NcclSkipReason(p_, version, prop.major);
    if (reason.empty()) {
      if (auto common = CollectiveSkipReason(p_, Backend::kCuda, nranks_)) reason = *common;
    }
    if (!reason.empty()) {
      out = RankOutcome::Skip(reason);
      out.device = cuda_.device();
      *skipped = true;
    }
    return absl::OkStatus();
  }

  absl::Status Setup(RankOutcome& out, bool* skipped) {
    layout_ = PlanCollective(p_, nranks_);
    check_ = MakeCollectiveCheck(p_, layout_, rank_, nranks_);
    if (IsReduction(p_.op)) {
      if (p_.redop == CollRedop::kPreMulSum) {
        const DtypeTraits t = TraitsOf(p_.dtype);
        const int factor = PreMulFactor(rank_);
        uint64_t scalar = t.is_float ? EncodeFloat(t.format, factor) : static_cast<uint64_t>(factor);
        GH_NCCL_RETURN_IF_ERROR(comm_, ncclRedOpCreatePreMulSum(&redop_, &scalar, type_,
                                                                ncclScalarHostImmediate, comm_));
        premul_created_ = true;
      } else {
        redop_ = static_cast<ncclRedOp_t>(static_cast<int>(p_.redop));
      }
    }
    if (p_.op == CollectiveOp::kAlltoallv) {
      alltoallv_ = AlltoallvCountsOf(rank_, nranks_, layout_.count, layout_.width, p_.alltoallv_spread);
      segments_ = AlltoallvReceiveSegments(rank_, nranks_, layout_.count, layout_.width, p_.alltoallv_spread);
    }

    Step("allocate");
    const int64_t bytes = BufferBytes(layout_, p_.unalign);
    const AllocatorSpec spec{p_.allocator, 256, 0};
    absl::Status status;
    recv_ = std::make_unique<RegisteredBuffer>();
    send_ = std::make_unique<RegisteredBuffer>();
    auto recv_alloc = AllocateDevice(spec, bytes, stream_);
    if (recv_alloc.ok()) recv_->allocation = *std::move(recv_alloc); else status = recv_alloc.status();
    if (status.ok() && !p_.in_place) {
      auto send_alloc = AllocateDevice(spec, bytes, stream_);
      if (send_alloc.ok()) send_->allocation = *std::move(send_alloc); else status = send_alloc.status();
    }
    if (status.ok()) status = counters_.Allocate(sizeof(VerifyCounters));
    if (status.ok() && !segments_.empty()) status = segments_device_.Allocate(segments_.size() * sizeof(AlltoallvSegment));
    if (status.ok() && !segments_.empty()) {
      status = CheckTimedLoopCall(cudaMemcpy(segments_device_.get(), segments_.data(),
                                             segments_.size() * sizeof(AlltoallvSegment),
                                             cudaMemcpyHostToDevice), "cudaMemcpy(segments)");
    }
    if (absl::Status s = Agree(status, "allocate"); !s.ok()) return s;

    Step("register");
    for (RegisteredBuffer* buffer : {recv_.get(), send_.get()}) {
      if (buffer->allocation == nullptr || !status.ok()) continue;
      auto registration = RegisterDevice(p_.registration, *buffer->allocation, comm_);
      if (registration.ok()) buffer->registration = *std::move(registration); else status = registration.status();
    }
    absl::Status agreed = Agree(status, "register");
    if (!agreed.ok() && status.ok() && RegistrationIsCollective(p_.registration)) {
      // A collective registration failed elsewhere: deregistering would wait for that rank.
      (void)recv_->ReleaseWithoutDeregistering();
      (void)send_->ReleaseWithoutDeregistering();
    }
    if (!agreed.ok() || p_.implementation != CollImplementation::kDeviceLsa) return agreed;

    Step("device_comm");
    absl::StatusOr<std::unique_ptr<CollectiveDevComm>> lsa = CollectiveDevComm::Create(comm_, p_.ctas);
    if (lsa.ok()) {
      lsa_ = *std::move(lsa);
      return absl::OkStatus();
    }
    if (!absl::IsFailedPrecondition(lsa.status())) return lsa.status();
    // NCCL refused the device communicator: a skip with its reason. Some refusals leave the
    // communicator unfit for the next point (ring_shift_device.h): then every rank builds a
    // fresh one, after releasing the windows while the old one still exists.
    absl::Status released = send_->Release();
    released.Update(recv_->Release());
    if (p_.split == CollSplit::kNone && LsaRingShift::RefusalNeedsNewCommunicator(lsa.status())) {
      released.Update(cuda_.Recreate(ctx_.comm()));
    }
    if (!released.ok()) return released;
    out = RankOutcome::Skip(std::string(lsa.status().message()));
    out.device = cuda_.device();
    out.step = "device_comm";
    *skipped = true;
    return absl::OkStatus();
  }

  void FillInput(uint64_t seed) {
    check_.seed = seed;
    check_.reduction.seed = seed;
  }

  absl::Status Time(RankOutcome& out) {
    Step("collective", EnumToName(p_.op).data(), layout_.slot_bytes);
    for (int it = 0; it < ctx_.warmup(); ++it) {
      if (absl::Status s = Iteration(it); !s.ok()) return s;
    }
    if (absl::Status s = cuda_.Synchronize(); !s.ok()) return s;
    if (absl::Status s = Barrier(); !s.ok()) return s;
    const int iterations = std::max(ctx_.iterations(), 1);
    const double per_op = 1.0 / p_.agg;

    // Each iteration between its own events.
    std::vector<cudaEvent_t> events(2 * static_cast<size_t>(iterations), nullptr);
    absl::Status status;
    for (cudaEvent_t& e : events) {
      if (status.ok()) status = CheckTimedLoopCall(cudaEventCreate(&e), "cudaEventCreate");
    }
    for (int it = 0; status.ok() && it < iterations; ++it) {
      status = CheckTimedLoopCall(cudaEventRecord(events[2 * it], stream_), "cudaEventRecord");
      if (status.ok()) status = Iteration(it);
      if (status.ok()) status = CheckTimedLoopCall(cudaEventRecord(events[2 * it + 1], stream_), "cudaEventRecord");
    }
    if (status.ok()) status = cuda_.Synchronize();
    std::vector<double> samples_us;
    for (int it = 0; status.ok() && it < iterations; ++it) {
      float ms = 0;
      status = CheckTimedLoopCall(cudaEventElapsedTime(&ms, events[2 * it], events[2 * it + 1]), "cudaEventElapsedTime");
      samples_us.push_back(double(ms) * 1e3 * per_op);
    }
    for (cudaEvent_t e : events) {
      if (e != nullptr) cudaEventDestroy(e);
    }
    if (!status.ok()) return status;

    // nccl-tests' loop: a host clock around the iterations back to back and the final wait.
    if (absl::Status s = Barrier(); !s.ok()) return s;
    double operations_seconds = 0;
    const auto loop_start = std::chrono::steady_clock::now();
    for (int it = 0; it < iterations; ++it) {
      const auto start = std::chrono::steady_clock::now();
      if (absl::Status s = Iteration(it); !s.ok()) return s;
      if (p_.blocking == CollBlocking::kIterationSync) {
        if (absl::Status s = SpinWait(); !s.ok()) return s;
        operations_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (absl::Status s = Barrier(); !s.ok()) return s;
      }
    }
    if (absl::Status s = SpinWait(); !s.ok()) return s;
    double loop_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - loop_start).count();
    if (p_.blocking == CollBlocking::kIterationSync) loop_seconds = operations_seconds;

    // nccl-tests -G: the iterations captured once, replayed.
    std::vector<double> graph_us;
    if (p_.graph_replays > 0) {
      if (absl::Status s = Barrier(); !s.ok()) return s;
      int next = 0;
      absl::StatusOr<std::vector<double>> replays = TimeGraphReplaysUs(
          stream_, iterations, p_.graph_replays, [&] { return Iteration(next++); },
          [&] { return cuda_.Synchronize(); });
      if (!replays.ok()) return replays.status();
      for (double us : *replays) graph_us.push_back(us / (double(iterations) * p_.agg));
    }
    out.metrics = CollectiveTimingMetrics(p_.op, layout_, nranks_, samples_us,
                                          loop_seconds * 1e6 / (double(iterations) * p_.agg), graph_us);
    return absl::OkStatus();
  }

  // The checked operation, from a graph when the point replays graphs (as nccl-tests checks -G).
  absl::Status CheckedOperation() {
    if (p_.graph_replays == 0) return Enqueue(0);
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    absl::Status status = CheckTimedLoopCall(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal),
                                             "cudaStreamBeginCapture");
    if (status.ok()) {
      status = Enqueue(0);
      const absl::Status ended = CheckTimedLoopCall(cudaStreamEndCapture(stream_, &graph), "cudaStreamEndCapture");
      if (status.ok()) status = ended;
    }
    if (status.ok()) status = CheckTimedLoopCall(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
    if (status.ok()) status = CheckTimedLoopCall(cudaGraphLaunch(exec, stream_), "cudaGraphLaunch");
    if (status.ok()) status = cuda_.Synchronize();
    if (exec != nullptr) cudaGraphExecDestroy(exec);
    if (graph != nullptr) cudaGraphDestroy(graph);
    return status;
  }

  absl::Status Verify(RankOutcome& out) {
    Step("verify", EnumToName(p_.op).data(), layout_.slot_bytes);
    FillInput(CollectiveSeed(ctx_.point(), ctx_.trial(), /*verified=*/true));
    GH_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(RecvBase(0), kPoisonByte, layout_.slot_bytes, stream_));
    GH_CUDA_RETURN_IF_ERROR(LaunchCollectiveFill(SendPtr(0), layout_.send_count, check_, stream_));
    if (absl::Status s = cuda_.Synchronize(); !s.ok()) return s;
    if (absl::Status s = Barrier(); !s.ok()) return s;
    if (absl::Status s = CheckedOperation(); !s.ok()) return s;
    if (p_.fault == CollFault::kCorruptElement && ctx_.rank() == std::min(p_.fault_rank, ctx_.nranks() - 1)) {
      GH_CUDA_RETURN_IF_ERROR(LaunchFlipElementBit(OutputPtr(0), layout_.recv_count / 2, layout_.width, stream_));
    }
    CollectiveCheck device_check = check_;
    device_check.segments = static_cast<const AlltoallvSegment*>(segments_device_.get());
    device_check.num_segments = static_cast<int>(segments_.size());
    auto* counters = static_cast<VerifyCounters*>(counters_.get());
    GH_CUDA_RETURN_IF_ERROR(LaunchCollectiveVerify(OutputPtr(0), layout_.recv_count, device_check, counters, stream_));
    VerifyCounters found{};
    GH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(&found, counters, sizeof(found), cudaMemcpyDeviceToHost, stream_));
    if (absl::Status s = cuda_.Synchronize(); !s.ok()) return s;
    out.metrics.push_back({"checked_elements", double(layout_.recv_count), "count"});
    if (p_.split != CollSplit::kNone) {
      out.metrics.push_back({"split_color", double(color_), "count"});
      out.metrics.push_back({"comm_ranks", double(nranks_), "count"});
    }
    if (found.wrong_elements == 0) {
      out.outcome = Outcome::kPass;
      return absl::OkStatus();
    }
    Mismatch mismatch;
    mismatch.wrong_elements = static_cast<int64_t>(found.wrong_elements);
    mismatch.checked_elements = layout_.recv_count;
    mismatch.first_index = static_cast<int64_t>(found.first_index);
    uint64_t actual = 0;
    GH_CUDA_RETURN_IF_ERROR(cudaMemcpy(&actual, OutputPtr(0) + mismatch.first_index * layout_.width,
                                       layout_.width, cudaMemcpyDeviceToHost));
    CollectiveCheck host_check = check_;
    host_check.segments = segments_.data();
    host_check.num_segments = static_cast<int>(segments_.size());
    mismatch.expected = FormatCollElement(p_.dtype, ExpectedOutputBits(host_check, mismatch.first_index));
    mismatch.actual = FormatCollElement(p_.dtype, actual);
    out.outcome = Outcome::kFail;
    out.step = "verify";
    out.signature = CollectiveMismatchSignature(mismatch);
    out.mismatch = std::move(mismatch);
    return absl::OkStatus();
  }

  absl::Status RunSteps(RankOutcome& out) {
    Step("setup");
    GH_CUDA_RETURN_IF_ERROR(cudaSetDevice(cuda_.device()));
    bool skipped = false;
    if (absl::Status s = Communicator(out, &skipped); !s.ok() || skipped) return s;
    if (absl::Status s = Setup(out, &skipped); !s.ok() || skipped) return s;
    FillInput(CollectiveSeed(ctx_.point(), ctx_.trial(), /*verified=*/false));
    GH_CUDA_RETURN_IF_ERROR(LaunchCollectiveFill(SendPtr(0), layout_.send_count, check_, stream_));
    if (absl::Status s = Time(out); !s.ok()) return s;
    if (absl::Status s = Verify(out); !s.ok()) return s;
    Step("release");
    lsa_.reset();
    absl::Status released = send_->Release();
    released.Update(recv_->Release());
    if (!released.ok() && out.outcome == Outcome::kPass) return released;
    return absl::OkStatus();
  }

  PointContext& ctx_;
  const CollectiveParams& p_;
  CudaResources& cuda_;
  cudaStream_t stream_;
  const ncclDataType_t type_;
  ncclComm_t comm_ = nullptr;
  ncclComm_t split_nccl_ = nullptr;
  MPI_Comm mpi_comm_ = MPI_COMM_NULL;
  MPI_Comm split_mpi_ = MPI_COMM_NULL;
  int color_ = 0;
  int rank_ = 0, nranks_ = 1;
  ncclRedOp_t redop_ = ncclSum;
  bool premul_created_ = false;
  CollectiveLayout layout_;
  CollectiveCheck check_;
  AlltoallvCounts alltoallv_;
  std::vector<AlltoallvSegment> segments_;
  std::unique_ptr<RegisteredBuffer> send_, recv_;
  std::unique_ptr<CollectiveDevComm> lsa_;  // device_lsa only
  DeviceBuffer counters_, segments_device_;
};

}  // namespace

RankOutcome RunCollectiveCuda(PointContext& ctx, const CollectiveParams& params) {
  if (ctx.cuda() == nullptr) return MissingCudaResourcesOutcome();
  return CollectiveCuda(ctx, params).Run();
}

}  // namespace gh
