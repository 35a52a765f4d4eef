// ring_shift on the cuda backend: device buffers, NCCL grouped send/recv on the job's stream,
// CUDA-event timing (per iteration, then a bare back-to-back loop, then on request a CUDA-graph
// replay: ring_shift_timing.h), and
// verification on the device (kernels in ring_shift_kernels.cu).
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "harness/core/status_macros.h"
#include "harness/core/timing_stats.h"
#include "harness/runtime/cuda_errors_cuda.h"
#include "harness/runtime/cuda_resources.h"
#include "harness/runtime/point_context.h"
#include "harness/scenarios/allocators.h"
#include "harness/scenarios/cuda_point_status_cuda.h"
#include "harness/scenarios/data_pattern.h"
#include "harness/scenarios/device_buffer_cuda.h"
#include "harness/scenarios/ring_shift.h"
#include "harness/scenarios/ring_shift_kernels_cuda.h"
#include "harness/scenarios/ring_shift_loop_cuda.h"
#include "harness/scenarios/ring_shift_timing.h"

namespace gh {
namespace {

// The timed iterations' start and stop events.
class EventPairs {
 public:
  EventPairs() = default;
  EventPairs(const EventPairs&) = delete;
  EventPairs& operator=(const EventPairs&) = delete;
  ~EventPairs() {
    for (cudaEvent_t event : events_) cudaEventDestroy(event);
  }
  absl::Status Create(int pairs) {
    events_.reserve(2 * static_cast<size_t>(pairs));
    for (int i = 0; i < 2 * pairs; ++i) {
      cudaEvent_t event = nullptr;
      GH_CUDA_RETURN_IF_ERROR(cudaEventCreate(&event));
      events_.push_back(event);
    }
    return absl::OkStatus();
  }
  cudaEvent_t start(int i) const { return events_[2 * i]; }
  cudaEvent_t stop(int i) const { return events_[2 * i + 1]; }

 private:
  std::vector<cudaEvent_t> events_;
};

ncclDataType_t NcclType(RingDtype dtype) {
  switch (dtype) {
    case RingDtype::kF32: return ncclFloat32;
    case RingDtype::kBF16: return ncclBfloat16;
    case RingDtype::kI32: return ncclInt32;
    case RingDtype::kF64: return ncclFloat64;
  }
  return ncclUint8;
}

// Distinct per trial and per phase, so a block left over from the timed iterations (or an
// earlier trial) cannot pass verification.
uint64_t SeedFor(int trial, bool verified) {
  return (static_cast<uint64_t>(trial) << 8) | (verified ? 2u : 1u);
}

class RingShiftCuda : public RingShiftRank {
 public:
  RingShiftCuda(PointContext& ctx, const RingShiftParams& params)
      : RingShiftRank(ctx, params), cuda_(*ctx.cuda()), stream_(cuda_.stream()),
        type_(NcclType(params.dtype)) {}

  RankOutcome Run() {
    RankOutcome out = CudaPointOutcome(ctx_);
    absl::Status status = RunSteps(out);
    if (!status.ok()) {
      // Keeps the timings measured before the failing step.
      out = ErrorKeepingMetrics(std::move(out), status, step_);
    }
    return out;
  }

 private:
  // One grouped send to the right and receive from the left. The group is always closed, so
  // a failed enqueue cannot leave NCCL inside an open group.
  absl::Status Exchange(const void* send, int64_t send_count, void* recv, int64_t recv_count) {
    ncclComm_t comm = cuda_.nccl();
    if (comm == nullptr) return absl::AbortedError("ncclCommAbort: communicator aborted by the watchdog");
    GH_NCCL_RETURN_IF_ERROR(comm, ncclGroupStart());
    ncclResult_t sent = ncclSend(send, send_count, type_, right_, comm, stream_);
    ncclResult_t received = ncclRecv(recv, recv_count, type_, left_, comm, stream_);
    ncclResult_t ended = ncclGroupEnd();
    if (sent != ncclSuccess) return NcclStatus(sent, comm, "ncclSend", GH_CUDA_WHERE);
    if (received != ncclSuccess) return NcclStatus(received, comm, "ncclRecv", GH_CUDA_WHERE);
    if (ended != ncclSuccess) return NcclStatus(ended, comm, "ncclGroupEnd", GH_CUDA_WHERE);
    return absl::OkStatus();
  }

  // kStall: sleep past the point's timeout inside step "exchange"; the watchdog ends the job.
  void Stall() {
    const auto until = std::chrono::steady_clock::now() +
                       absl::ToChronoMilliseconds(ctx_.point().spec->timeout) +
                       std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < until && !cuda_.aborted()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  // The point's device memory: the blocks from the point's allocator (at least 16 bytes, so an
  // empty point still has a pointer); the rest is the harness's own and stays cudaMalloc.
  struct Blocks {
    std::unique_ptr<Allocation> send, recv;
    DeviceBuffer stale_sink, counters;
    EventPairs events;
  };

  absl::Status Allocate(size_t bytes, Blocks& blocks) {
    AllocatorSpec spec;
    spec.kind = params_.allocator;
    const int64_t block_bytes = std::max<int64_t>(static_cast<int64_t>(bytes), 16);
    absl::StatusOr<std::unique_ptr<Allocation>> send_block = AllocateDevice(spec, block_bytes, stream_);
    if (!send_block.ok()) return send_block.status();
    blocks.send = *std::move(send_block);
    absl::StatusOr<std::unique_ptr<Allocation>> recv_block = AllocateDevice(spec, block_bytes, stream_);
    if (!recv_block.ok()) return recv_block.status();
    blocks.recv = *std::move(recv_block);
    absl::Status status = blocks.counters.Allocate(sizeof(VerifyCounters));
    if (status.ok() && FaultHere(RingFault::kStaleBlock)) status = blocks.stale_sink.Allocate(bytes);
    if (status.ok()) status = blocks.events.Create(ctx_.iterations());
    return status;
  }

  // The timed iterations, each between two events; then the same iterations with no event
  // between them (nccl-tests' statistic: events between NCCL kernels slow them, ring_shift_timing.h);
  // then on request as a replayed CUDA graph, which leaves the host's enqueue (7-10 us per
  // exchange up to 16 MiB, which sets each process's level) out.
  absl::Status MeasureExchanges(Blocks& blocks, size_t bytes, RankOutcome& out) {
    void* const send = blocks.send->data();
    void* const recv = blocks.recv->data();
    auto exchange = [&] { return Exchange(send, count_, recv, count_); };
    for (int i = 0; i < ctx_.warmup(); ++i) GH_RETURN_IF_ERROR(exchange());
    // Timed region: an event, the exchange, an event. Nothing else on the stream between them.
    for (int i = 0; i < ctx_.iterations(); ++i) {
      GH_CUDA_RETURN_IF_ERROR(cudaEventRecord(blocks.events.start(i), stream_));
      GH_RETURN_IF_ERROR(exchange());
      GH_CUDA_RETURN_IF_ERROR(cudaEventRecord(blocks.events.stop(i), stream_));
    }
    GH_RETURN_IF_ERROR(cuda_.Synchronize());
    std::vector<double> samples_us;
    samples_us.reserve(ctx_.iterations());
    for (int i = 0; i < ctx_.iterations(); ++i) {
      float ms = 0;
      GH_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, blocks.events.start(i), blocks.events.stop(i)));
      samples_us.push_back(static_cast<double>(ms) * 1e3);
    }
    out.metrics = TimingMetrics(SummarizeTimings(samples_us), static_cast<double>(bytes));
    auto synchronize = [&] { return cuda_.Synchronize(); };
    absl::StatusOr<double> loop_us = TimeBareLoopUs(stream_, ctx_.iterations(), exchange, synchronize);
    if (!loop_us.ok()) return loop_us.status();
    for (Metric& m : LoopMetrics("", *loop_us, ctx_.iterations(), static_cast<double>(bytes))) {
      out.metrics.push_back(std::move(m));
    }
    if (params_.graph_replays > 0) {
      absl::StatusOr<std::vector<double>> replay_us = TimeGraphReplaysUs(
          stream_, ctx_.iterations(), params_.graph_replays, exchange, synchronize);
      if (!replay_us.ok()) return replay_us.status();
      for (Metric& m : GraphMetrics(*replay_us, ctx_.iterations(), static_cast<double>(bytes))) {
        out.metrics.push_back(std::move(m));
      }
    }
    return absl::OkStatus();
  }

  // One exchange of fresh data (the verified seed), shaped by this rank's fault.
  absl::Status VerifiedExchange(Blocks& blocks, size_t bytes, uint64_t seed) {
    void* const send = blocks.send->data();
    void* const recv = blocks.recv->data();
    GH_CUDA_RETURN_IF_ERROR(LaunchFillPattern(send, count_, width_, rank_, seed, stream_));
    // kStaleBlock keeps the timed iterations' data: no poison, and the fresh block lands in a
    // sink, so the neighbours' exchange still completes.
    void* landing = recv;
    if (FaultHere(RingFault::kStaleBlock)) {
      landing = blocks.stale_sink.get();
    } else {
      GH_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(recv, kPoisonByte, bytes, stream_));
    }
    // kPartialWrite: the fault rank's sender (its left neighbour) sends only the first half,
    // and the fault rank expects just that much, so the second half stays poisoned.
    const int64_t half = count_ / 2;
    const bool partial_send =
        params_.fault == RingFault::kPartialWrite && right_ == params_.fault_rank;
    const int64_t send_count = partial_send ? half : count_;
    const int64_t recv_count = FaultHere(RingFault::kPartialWrite) ? half : count_;
    return Exchange(send, send_count, landing, recv_count);
  }

  // Counts the wrong elements on the device; a failure names the first one.
  absl::Status Verify(Blocks& blocks, uint64_t seed, RankOutcome& out) {
    const void* recv = blocks.recv->data();
    auto* device_counters = static_cast<VerifyCounters*>(blocks.counters.get());
    GH_CUDA_RETURN_IF_ERROR(
        LaunchVerifyPattern(recv, count_, width_, left_, seed, device_counters, stream_));
    VerifyCounters found{};
    GH_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(&found, device_counters, sizeof(found),
                                            cudaMemcpyDeviceToHost, stream_));
    GH_RETURN_IF_ERROR(cuda_.Synchronize());
    if (found.wrong_elements == 0) {
      out.outcome = Outcome::kPass;
      return absl::OkStatus();
    }

    Mismatch mismatch;
    mismatch.wrong_elements = static_cast<int64_t>(found.wrong_elements);
    mismatch.checked_elements = count_;
    mismatch.first_index = static_cast<int64_t>(found.first_index);
    uint64_t actual_bits = 0;  // little-endian: the element's bytes are its low bits
    GH_CUDA_RETURN_IF_ERROR(cudaMemcpy(&actual_bits,
                                       static_cast<const char*>(recv) +
                                           found.first_index * static_cast<uint64_t>(width_),
                                       width_, cudaMemcpyDeviceToHost));
    mismatch.expected = FormatRingElement(
        params_.dtype, ExpectedPatternBits(left_, found.first_index, seed, width_));
    mismatch.actual = FormatRingElement(params_.dtype, actual_bits);
    out.outcome = Outcome::kFail;
    out.signature = absl::StrFormat("%d of %d elements wrong, first at %d", mismatch.wrong_elements,
                                    mismatch.checked_elements, mismatch.first_index);
    out.mismatch = std::move(mismatch);
    return absl::OkStatus();
  }

  absl::Status RunSteps(RankOutcome& out) {
    Step("setup");
    const size_t bytes = static_cast<size_t>(count_) * width_;
    GH_CUDA_RETURN_IF_ERROR(cudaSetDevice(cuda_.device()));
    Blocks blocks;
    GH_RETURN_IF_ERROR(Allocate(bytes, blocks));
    const uint64_t timed_seed = SeedFor(ctx_.trial(), false);
    GH_CUDA_RETURN_IF_ERROR(
        LaunchFillPattern(blocks.send->data(), count_, width_, rank_, timed_seed, stream_));
    GH_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(blocks.recv->data(), kPoisonByte, bytes, stream_));
    GH_RETURN_IF_ERROR(cuda_.Synchronize());

    Step("exchange", "ncclSend/ncclRecv", int64_t(bytes));
    if (FaultHere(RingFault::kStall)) Stall();
    if (FaultHere(RingFault::kCrash)) std::raise(SIGSEGV);
    GH_RETURN_IF_ERROR(MeasureExchanges(blocks, bytes, out));

    Step("verify", "ncclSend/ncclRecv", int64_t(bytes));
    const uint64_t seed = SeedFor(ctx_.trial(), true);
    GH_RETURN_IF_ERROR(VerifiedExchange(blocks, bytes, seed));
    if (FaultHere(RingFault::kDeviceFault)) {
      // Every rank's exchange was enqueued; only this rank's context dies.
      GH_RETURN_IF_ERROR(cuda_.Synchronize());
      GH_CUDA_RETURN_IF_ERROR(LaunchIllegalStore(stream_));
      return cuda_.Synchronize();
    }
    if (FaultHere(RingFault::kCorruptElement) && count_ > 0) {
      GH_CUDA_RETURN_IF_ERROR(LaunchFlipLowestBit(blocks.recv->data(), count_ / 2, width_, stream_));
    }
    return Verify(blocks, seed, out);
  }

  CudaResources& cuda_;
  cudaStream_t stream_;
  const ncclDataType_t type_;
};

}  // namespace

RankOutcome RunRingShiftCuda(PointContext& ctx, const RingShiftParams& params) {
  if (ctx.cuda() == nullptr) return MissingCudaResourcesOutcome();
  return RingShiftCuda(ctx, params).Run();
}

}  // namespace gh
