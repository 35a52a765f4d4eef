// ring_shift: registration, parameters, and the host backend (CPU memory, MPI transports).
// The cuda backend lives in ring_shift_nccl_cuda.cc (kernels in ring_shift_kernels.cu) and
// ring_shift_device_cuda.cc (nccl_device, nccl_ce); Run() dispatches.
//
// Host data: each element's bits are PatternBits(rank, index, seed) cut to the dtype's width,
// the seed distinct per trial and iteration. Before the final, verified exchange the receive
// buffer is poisoned; afterwards every element is compared bitwise with the left neighbour's
// pattern. Faults (the `fault` parameter) exercise the harness itself and always show on
// fault_rank: corrupt_element flips the lowest bit of element count/2 of what it received;
// stale_block keeps the timed iterations' data; partial_write has its left neighbour send
// only the first half; stall sleeps past the timeout in step "exchange"; crash raises SIGSEGV
// there; device_fault (cuda only) faults fault_rank's CUDA context after the exchange.
#include "harness/scenarios/ring_shift.h"

#include <mpi.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstring>
#include <memory>
#include <new>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/core/registry.h"
#include "harness/core/timing_stats.h"
#include "harness/runtime/mpi_errors.h"
#include "harness/runtime/point_context.h"
#include "harness/scenarios/data_pattern.h"
#include "harness/scenarios/kind_backends.h"
#if defined(GH_HAVE_CUDA)
#include "harness/scenarios/ring_shift_device.h"
#endif

namespace gh {

int DtypeSize(RingDtype dtype) {
  switch (dtype) {
    case RingDtype::kF32: return 4;
    case RingDtype::kBF16: return 2;
    case RingDtype::kI32: return 4;
    case RingDtype::kF64: return 8;
  }
  return 1;
}

RingShiftRank::RingShiftRank(PointContext& ctx, const RingShiftParams& params)
    : RankSteps(ctx), ctx_(ctx), params_(params), rank_(ctx.rank()),
      right_((ctx.rank() + 1) % ctx.nranks()), left_((ctx.rank() + ctx.nranks() - 1) % ctx.nranks()), width_(DtypeSize(params.dtype)),
      count_(params.count()) {}

std::string FormatRingElement(RingDtype dtype, uint64_t bits) {
  const uint32_t low32 = static_cast<uint32_t>(bits);
  const uint32_t low16 = static_cast<uint32_t>(bits & 0xFFFF);
  switch (dtype) {
    case RingDtype::kF32:
      return absl::StrFormat("%.9g (0x%08x)", std::bit_cast<float>(low32), low32);
    case RingDtype::kBF16:  // a float's top half
      return absl::StrFormat("%.4g (0x%04x)", std::bit_cast<float>(low16 << 16), low16);
    case RingDtype::kI32:
      return absl::StrFormat("%d (0x%08x)", std::bit_cast<int32_t>(low32), low32);
    case RingDtype::kF64:
      return absl::StrFormat("%.17g (0x%016x)", std::bit_cast<double>(bits), bits);
  }
  return absl::StrFormat("0x%x", bits);
}

namespace {

// MPI counts are ints: larger blocks move in chunks of this many bytes.
constexpr int64_t kMaxChunkBytes = int64_t{1} << 30;
constexpr int kExchangeTag = 4242;

RingShiftParams ParamsFor(const PointContext& ctx) {
  const Point& point = ctx.point();
  RingShiftParams params;
  params.bytes = point.GetInt("bytes");
  params.dtype = point.GetEnum<RingDtype>("dtype");
  params.transport = point.GetEnum<RingTransport>("transport");
  if (params.transport == RingTransport::kAuto) {
    params.transport =
        ctx.backend() == Backend::kCuda ? RingTransport::kNcclP2p : RingTransport::kMpiP2p;
  }
  params.fault = point.GetEnum<RingFault>("fault");
  params.fault_rank =
      static_cast<int>(std::clamp<int64_t>(point.GetInt("fault_rank"), 0, ctx.nranks() - 1));
  params.graph_replays = static_cast<int>(point.GetInt("graph_replays"));
  params.allocator = point.GetEnum<AllocatorKind>("allocator");
  return params;
}

uint64_t WidthMask(int width) {
  return width >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * width)) - 1;
}

// Little-endian hosts: an element's bytes are the low bytes of its bits.
void FillBlock(uint8_t* data, int64_t count, int width, int rank, uint64_t seed) {
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t bits = PatternBits(rank, static_cast<uint64_t>(i), seed);
    std::memcpy(data + i * width, &bits, width);
  }
}

uint64_t LoadElement(const uint8_t* data, int64_t index, int width) {
  uint64_t bits = 0;
  std::memcpy(&bits, data + index * width, width);
  return bits;
}

// Distinct per trial and per iteration (the verified exchange is iteration warmup+iterations).
uint64_t SeedFor(int trial, int iteration) {
  return (static_cast<uint64_t>(trial) << 20) | static_cast<uint64_t>(iteration + 1);
}

class RingShiftHost : public RingShiftRank {
 public:
  RingShiftHost(PointContext& ctx, const RingShiftParams& params)
      : RingShiftRank(ctx, params), comm_(ctx.comm()), bytes_(count_ * width_),
        put_(params.transport == RingTransport::kMpiPut) {}

  ~RingShiftHost() {
    if (window_ != MPI_WIN_NULL && window_healthy_) MPI_Win_free(&window_);
  }

  RankOutcome Run() {
    RankOutcome out;
    out.rank = rank_;
    const int rc = RunSteps(out);
    if (rc != MPI_SUCCESS) {
      out = RankOutcome::Error(MpiErrorSignature(rc), step_);
      window_healthy_ = false;  // freeing is collective; peers may be stuck elsewhere
    }
    return out;
  }

 private:
  // Sends `send_bytes` of this rank's block to the right neighbour and receives the left
  // neighbour's into the receive buffer (or, for stale_block on the fault rank, `landing`).
  int Exchange(int64_t send_bytes, uint8_t* landing) {
    return put_ ? ExchangePut(send_bytes) : ExchangeP2p(send_bytes, landing);
  }

  int ExchangeP2p(int64_t send_bytes, uint8_t* landing) {
    // Both sides walk every chunk of the full block, so the message sequence matches even
    // when this sender sends less (partial_write).
    for (int64_t offset = 0; offset < bytes_; offset += kMaxChunkBytes) {
      const int64_t n = std::min(kMaxChunkBytes, bytes_ - offset);
      const int64_t s = std::clamp<int64_t>(send_bytes - offset, 0, n);
      const int rc = MPI_Sendrecv(send_.data() + offset, static_cast<int>(s), MPI_BYTE, right_,
                                  kExchangeTag, landing + offset, static_cast<int>(n), MPI_BYTE,
                                  left_, kExchangeTag, comm_, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
  }

  int ExchangePut(int64_t send_bytes) {
    int rc = MPI_Win_fence(0, window_);
    for (int64_t offset = 0; rc == MPI_SUCCESS && offset < send_bytes; offset += kMaxChunkBytes) {
      const int64_t n = std::min(kMaxChunkBytes, send_bytes - offset);
      rc = MPI_Put(send_.data() + offset, static_cast<int>(n), MPI_BYTE, right_, offset,
                   static_cast<int>(n), MPI_BYTE, window_);
    }
    if (rc != MPI_SUCCESS) return rc;
    return MPI_Win_fence(0, window_);
  }

  // kStall: sleep past the point's timeout inside step "exchange"; the watchdog ends the job.
  void Stall() {
    std::this_thread::sleep_for(absl::ToChronoMilliseconds(ctx_.point().spec->timeout) +
                                std::chrono::seconds(30));
  }

  int RunSteps(RankOutcome& out) {
    Step("setup");
    try {
      send_.resize(bytes_);
      if (!put_) receive_storage_.resize(bytes_);
      if (FaultHere(RingFault::kStaleBlock)) stale_sink_.resize(bytes_);
    } catch (const std::bad_alloc&) {
      return MPI_ERR_NO_MEM;
    }
    if (put_) {
      // One window per point, allocated by MPI so that it may use shared memory.
      uint8_t* base = nullptr;
      const int rc = MPI_Win_allocate(static_cast<MPI_Aint>(bytes_), 1, MPI_INFO_NULL, comm_,
                                      &base, &window_);
      if (rc != MPI_SUCCESS) return rc;
      MPI_Win_set_errhandler(window_, MPI_ERRORS_RETURN);
      receive_ = base;
    } else {
      receive_ = receive_storage_.data();
    }

    const int warmup = ctx_.warmup();
    const int iterations = ctx_.iterations();
    std::vector<double> samples_us;
    samples_us.reserve(iterations);
    for (int it = 0; it < warmup + iterations; ++it) {
      Step("setup");
      FillBlock(send_.data(), count_, width_, rank_, SeedFor(ctx_.trial(), it));
      Step("exchange", put_ ? "put" : "send/recv", bytes_);
      if (it == 0 && FaultHere(RingFault::kStall)) Stall();
      if (it == 0 && FaultHere(RingFault::kCrash)) std::raise(SIGSEGV);
      if (const int rc = MPI_Barrier(comm_); rc != MPI_SUCCESS) return rc;
      const auto start = std::chrono::steady_clock::now();
      if (const int rc = Exchange(bytes_, receive_); rc != MPI_SUCCESS) return rc;
      const auto stop = std::chrono::steady_clock::now();
      if (it >= warmup) {
        samples_us.push_back(std::chrono::duration<double, std::micro>(stop - start).count());
      }
    }
    out.metrics = TimingMetrics(SummarizeTimings(std::move(samples_us)), static_cast<double>(bytes_));

    Step("verify", put_ ? "put" : "send/recv", bytes_);
    const uint64_t seed = SeedFor(ctx_.trial(), warmup + iterations);
    FillBlock(send_.data(), count_, width_, rank_, seed);
    // stale_block keeps the timed iterations' data: no poison, and the fresh block lands in a
    // sink (or, for puts, the window's fresh data is overwritten by the saved copy).
    const bool stale = FaultHere(RingFault::kStaleBlock);
    if (stale) {
      std::memcpy(stale_sink_.data(), receive_, bytes_);
    } else {
      std::memset(receive_, kPoisonByte, bytes_);
    }
    // partial_write: the fault rank's left neighbour sends only the first half.
    const bool partial_send = params_.fault == RingFault::kPartialWrite && right_ == params_.fault_rank;
    const int64_t send_bytes = partial_send ? (count_ / 2) * width_ : bytes_;
    if (const int rc = MPI_Barrier(comm_); rc != MPI_SUCCESS) return rc;
    uint8_t* landing = stale && !put_ ? stale_sink_.data() : receive_;
    if (const int rc = Exchange(send_bytes, landing); rc != MPI_SUCCESS) return rc;
    if (stale && put_) std::memcpy(receive_, stale_sink_.data(), bytes_);
    if (FaultHere(RingFault::kCorruptElement)) receive_[(count_ / 2) * width_] ^= 1;

    const uint64_t mask = WidthMask(width_);
    Mismatch mismatch;
    mismatch.checked_elements = count_;
    for (int64_t i = 0; i < count_; ++i) {
      const uint64_t expected = PatternBits(left_, static_cast<uint64_t>(i), seed) & mask;
      const uint64_t actual = LoadElement(receive_, i, width_);
      if (actual == expected) continue;
      if (mismatch.wrong_elements++ == 0) {
        mismatch.first_index = i;
        mismatch.expected = FormatRingElement(params_.dtype, expected);
        mismatch.actual = FormatRingElement(params_.dtype, actual);
      }
    }
    Step("teardown");
    if (window_ != MPI_WIN_NULL) {
      window_healthy_ = false;
      if (const int rc = MPI_Win_free(&window_); rc != MPI_SUCCESS) return rc;
    }
    if (mismatch.wrong_elements == 0) {
      out.outcome = Outcome::kPass;
      return MPI_SUCCESS;
    }
    std::vector<Metric> metrics = std::move(out.metrics);
    out = RankOutcome::Fail(absl::StrFormat("%d of %d elements wrong, first at %d",
                                            mismatch.wrong_elements, mismatch.checked_elements,
                                            mismatch.first_index),
                            "verify");
    out.metrics = std::move(metrics);
    out.mismatch = std::move(mismatch);
    return MPI_SUCCESS;
  }

  MPI_Comm comm_;
  const int64_t bytes_;
  const bool put_;
  std::vector<uint8_t> send_, receive_storage_, stale_sink_;
  uint8_t* receive_ = nullptr;
  MPI_Win window_ = MPI_WIN_NULL;
  bool window_healthy_ = true;
};

class RingShift : public Scenario {
 public:
  RankOutcome Run(PointContext& ctx) override {
    const RingShiftParams params = ParamsFor(ctx);
    const bool host_transport =
        params.transport == RingTransport::kMpiP2p || params.transport == RingTransport::kMpiPut;
    const std::string transport(EnumToName(params.transport));
    if (ctx.backend() == Backend::kCuda) {
      if (host_transport) {
        return RankOutcome::Skip(absl::StrCat("transport ", transport, " runs on the host backend"));
      }
      if (params.transport == RingTransport::kNcclP2p &&
          !AllocatorSupports(params.allocator, Backend::kCuda)) {
        return RankOutcome::Skip(absl::StrCat("allocator ", std::string(EnumToName(params.allocator)),
                                              " runs on the host backend"));
      }
#if defined(GH_HAVE_CUDA)
      if (params.transport == RingTransport::kNcclDevice || params.transport == RingTransport::kNcclCe) {
        return RunRingShiftDeviceCuda(ctx, params);
      }
      return RunRingShiftCuda(ctx, params);
#endif
    }
    if (!host_transport) {
      return RankOutcome::Skip(absl::StrCat("transport ", transport, " needs the cuda backend"));
    }
    if (params.fault == RingFault::kDeviceFault) {
      return RankOutcome::Skip("fault device_fault needs the cuda backend");
    }
    if (params.count() == 0) {
      return RankOutcome::Skip(absl::StrCat("bytes=", params.bytes, " holds no whole ",
                                            std::string(EnumToName(params.dtype)), " element"));
    }
    return RingShiftHost(ctx, params).Run();
  }
};

KindInfo DescribeRingShift() {
  KindInfo info;
  info.name = "ring_shift";
  info.description =
      "Every rank writes its block into its right neighbour's output and checks, element by "
      "element, that it holds its left neighbour's block (warm-up, timed iterations, then one "
      "verified exchange into a poisoned buffer).";
  info.params =
      ParamsBuilder()
          .Bytes("bytes", int64_t{1} << 20, "per-rank block size, rounded down to whole elements")
          .Range(4, static_cast<double>(int64_t{16} << 30))
          .Enum("dtype", RingDtype::kF32,
                "element type: the pattern is cut to its width and compared bitwise")
          .Enum("transport", RingTransport::kAuto,
                "auto = mpi_p2p on host, nccl_p2p on cuda; mpi_p2p = MPI_Sendrecv, mpi_put = "
                "MPI_Put into the neighbour's window (host); nccl_p2p = grouped "
                "ncclSend/ncclRecv (cuda); nccl_device = each rank's kernel stores into the "
                "right neighbour's symmetric window (NCCL device API, cuda); nccl_ce = a "
                "cudaMemcpyAsync (copy engine) into that window, between LSA barriers (cuda); a "
                "transport of the other backend is a skip")
          .Enum("fault", RingFault::kNone,
                "harness self-test: inject a fault on fault_rank (wrong element, stale data, "
                "half a block, a stall past the timeout, SIGSEGV, an illegal address on the GPU "
                "after the exchange: cuda only)")
          .Int("fault_rank", 1, "the rank that shows the fault (clamped to nranks-1)")
          .Min(0)
          .Int("graph_replays", 0,
               "nccl_p2p: also capture the timed iterations once in a CUDA graph and replay it "
               "this many times, each replay between its own events: time_graph_mean_us and "
               "bandwidth_graph_GBps, one sample per replay, without the host's enqueue (other "
               "transports do not read it)")
          .Min(0)
          .Max(1000)
          .Enum("allocator", AllocatorKind::kCudaMalloc,
                "nccl_p2p: what the send and receive blocks are allocated with (cuda_malloc, "
                "cuda_malloc_async, nccl_mem_alloc as nccl-tests does, vmm, arena: "
                "allocators.h); malloc is a skip; other transports do not read it")
          .Build();
  info.backends = HostAndCudaBackends();
  info.ranks = RankRequirement{1, INT_MAX};
  info.make = [] { return std::make_unique<RingShift>(); };
  return info;
}

}  // namespace

GH_REGISTER_SCENARIO(ring_shift, DescribeRingShift);

}  // namespace gh
