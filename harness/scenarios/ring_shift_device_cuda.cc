// Device-initiated ring shift through NCCL's device API: a device communicator with one LSA
// barrier per CTA, the receive buffer in a symmetric window, and the kernel of
// ring_shift_device_kernels.cu storing into the right neighbour's window (nccl_device) or a
// cudaMemcpyAsync into it between two one-CTA barriers (nccl_ce, the copy engine). The device
// API itself is reached through a table (ring_shift_device_api.h): the built-in one, or a
// plugin's built against the runtime NCCL's headers (runtime/nccl_device_plugin.h).
#include <cstddef>

#include <cuda_runtime.h>
#include <nccl.h>

#include <chrono>
#include <csignal>
#include <optional>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/core/status_macros.h"
#include "harness/core/timing_stats.h"
#include "harness/runtime/cuda_errors_cuda.h"
#include "harness/runtime/cuda_resources.h"
#include "harness/runtime/nccl_device_plugin.h"
#include "harness/runtime/point_context.h"
#include "harness/scenarios/allocators.h"
#include "harness/scenarios/cuda_point_status_cuda.h"
#include "harness/scenarios/data_pattern.h"
#include "harness/scenarios/nccl_device_api_skip.h"
#include "harness/scenarios/registration.h"
#include "harness/scenarios/ring_shift_device.h"
#include "harness/scenarios/ring_shift_device_api.h"
#include "harness/scenarios/ring_shift_device_kernels_cuda.h"
#include "harness/scenarios/ring_shift_kernels_cuda.h"
#include "harness/scenarios/ring_shift_loop_cuda.h"
#include "harness/scenarios/ring_shift_timing.h"

namespace gh {
namespace {

std::string HexBits(uint64_t bits, int width) {
  return absl::StrFormat("0x%0*x", 2 * width, bits);
}

// The plugin's table when one is loaded, else the one compiled in.
const GhNcclDeviceApi& DeviceApi() {
  const NcclDevicePlugin* plugin = ActiveNcclDevicePlugin();
  return plugin != nullptr ? *plugin->api : *CompiledNcclDeviceApi();
}

}  // namespace

struct LsaRingShift::Impl {
  const GhNcclDeviceApi* api = nullptr;
  GhNcclDeviceComm* dev = nullptr;
  int ctas = 0;
};

LsaRingShift::LsaRingShift(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

LsaRingShift::~LsaRingShift() {
  if (impl_) (void)impl_->api->destroy(impl_->dev);
}

int LsaRingShift::ctas() const { return impl_->ctas; }

absl::Status LsaRingShift::EnqueueCopyEngine(void* peer, const void* src, size_t bytes,
                                             size_t store_bytes, cudaStream_t stream) {
  if (store_bytes > bytes) store_bytes = bytes;
  auto barrier = [&] {
    return CudaOk(cudaError_t(impl_->api->launch_barrier(impl_->dev, stream)), "LaunchLsaBarrier");
  };
  GH_RETURN_IF_ERROR(barrier());
  if (store_bytes > 0) {
    GH_RETURN_IF_ERROR(CudaOk(
        cudaMemcpyAsync(peer, src, store_bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync"));
  }
  return barrier();
}

absl::StatusOr<void*> LsaRingShift::RightPeerPointer(ncclWindow_t window, size_t window_offset,
                                                     cudaStream_t stream) {
  void** slot = nullptr;
  GH_RETURN_IF_ERROR(CudaOk(cudaMallocAsync(reinterpret_cast<void**>(&slot), sizeof(void*), stream),
                            "cudaMallocAsync"));
  void* peer = nullptr;
  absl::Status status = CudaOk(
      cudaError_t(impl_->api->launch_right_pointer(impl_->dev, window, window_offset, slot, stream)),
      "LaunchRightLsaPointer");
  if (status.ok()) {
    status = CudaOk(cudaMemcpyAsync(&peer, slot, sizeof(peer), cudaMemcpyDeviceToHost, stream),
                    "cudaMemcpyAsync");
  }
  status.Update(CudaOk(cudaFreeAsync(slot, stream), "cudaFreeAsync"));
  status.Update(CudaOk(cudaStreamSynchronize(stream), "cudaStreamSynchronize"));
  if (!status.ok()) return status;
  return peer;
}

bool LsaRingShift::RefusalNeedsNewCommunicator(const absl::Status& refusal) {
  std::string_view text(refusal.message().data(), refusal.message().size());
  if (text.find("does not support symmetric memory") != std::string_view::npos) return false;
  if (text.find("outside the LSA team") != std::string_view::npos) return false;  // ours
  return true;
}

absl::StatusOr<std::unique_ptr<LsaRingShift>> LsaRingShift::Create(ncclComm_t comm) {
  auto impl = std::make_unique<Impl>();
  impl->api = &DeviceApi();
  int device = 0;
  if (absl::Status s = CudaOk(cudaGetDevice(&device), "cudaGetDevice"); !s.ok()) return s;
  if (absl::Status s = CudaOk(
          cudaDeviceGetAttribute(&impl->ctas, cudaDevAttrMultiProcessorCount, device),
          "cudaDeviceGetAttribute");
      !s.ok()) {
    return s;
  }
  int lsa = 0, n = 0;
  auto r = ncclResult_t(impl->api->create(comm, impl->ctas, &impl->dev, &lsa, &n));  // one barrier per CTA
  if (r != ncclSuccess) {
    std::string refusal = absl::StrCat("ncclDevCommCreate: ", NcclErrorSignature(r, comm));
    int runtime = 0;
    if (ncclGetVersion(&runtime) == ncclSuccess) {  // a device API of another NCCL: a skip naming both
      if (std::optional<std::string> skip =
              DeviceApiVersionSkip(refusal, FormatNcclVersionCode(impl->api->nccl_version_code),
                                   FormatNcclVersionCode(runtime))) {
        refusal = *std::move(skip);
      }
    }
    return absl::FailedPreconditionError(refusal);
  }
  if (lsa != n) {
    (void)impl->api->destroy(impl->dev);
    return absl::FailedPreconditionError(absl::StrCat(
        "right neighbour outside the LSA team (", lsa, " of ", n, " ranks load/store-reachable)"));
  }
  return std::unique_ptr<LsaRingShift>(new LsaRingShift(std::move(impl)));
}

absl::Status LsaRingShift::Enqueue(ncclWindow_t window, size_t window_offset, const void* src,
                                   size_t bytes, size_t store_bytes,
                                   const int64_t* device_begin_row, size_t row_bytes,
                                   cudaStream_t stream) {
  if (store_bytes > bytes) store_bytes = bytes;
  return CudaOk(cudaError_t(impl_->api->launch_ring_shift(impl_->dev, impl_->ctas, window,
                                                          window_offset, src, store_bytes,
                                                          device_begin_row, row_bytes, stream)),
                "LaunchLsaRingShift");
}

namespace {

// The point's device buffers: the send block, the receive block in a symmetric window, and the
// cell the verification kernel counts into.
struct RingDeviceBuffers {
  RegisteredBuffer send, recv, scratch;
  ncclWindow_t window = nullptr;
  VerifyCounters* counters = nullptr;
};

absl::Status AllocateRingDeviceBuffers(PointContext& ctx, ncclComm_t comm, size_t bytes,
                                       cudaStream_t stream, RingDeviceBuffers& buffers) {
  ctx.SetStep("allocate");
  auto send_alloc = AllocateDevice({AllocatorKind::kCudaMalloc, 256, 0}, bytes, stream);
  if (!send_alloc.ok()) return send_alloc.status();
  buffers.send.allocation = *std::move(send_alloc);
  auto recv_alloc = AllocateDevice({AllocatorKind::kNcclMemAlloc, 256, 0}, bytes, stream);
  if (!recv_alloc.ok()) return recv_alloc.status();
  buffers.recv.allocation = *std::move(recv_alloc);

  ctx.SetStep("register");
  auto window = RegisterDevice(RegistrationKind::kWindowSymmetric, *buffers.recv.allocation, comm);
  if (!window.ok()) return window.status();
  buffers.recv.registration = *std::move(window);
  buffers.window = buffers.recv.registration->nccl_window();
  auto scratch_alloc =
      AllocateDevice({AllocatorKind::kCudaMalloc, 256, 0}, sizeof(VerifyCounters), stream);
  if (!scratch_alloc.ok()) return scratch_alloc.status();
  buffers.scratch.allocation = *std::move(scratch_alloc);
  buffers.counters = static_cast<VerifyCounters*>(buffers.scratch.allocation->data());
  return absl::OkStatus();
}

// A refused device communicator: a skip when this NCCL or topology cannot run the point.
RankOutcome LsaRefusalOutcome(PointContext& ctx, RankOutcome out, const absl::Status& refusal) {
  out.step = "device_comm";
  if (!absl::IsFailedPrecondition(refusal)) return ErrorKeepingMetrics(std::move(out), refusal);
  // Some refusals leave NCCL's communicator unfit for the next point: then every rank
  // builds a fresh one (see RefusalNeedsNewCommunicator).
  if (LsaRingShift::RefusalNeedsNewCommunicator(refusal)) {
    if (absl::Status recreated = ctx.cuda()->Recreate(ctx.comm()); !recreated.ok()) {
      return ErrorKeepingMetrics(std::move(out), recreated);
    }
  }
  return RankOutcome::Skip(std::string(refusal.message()));
}

// Sends `seed`'s pattern from `send` and poisons `recv`, so a block not stored stands out.
absl::Status FillSendPoisonRecv(const RingDeviceBuffers& buffers, int64_t count, int element_bytes,
                                int rank, uint64_t seed, size_t bytes, cudaStream_t stream) {
  absl::Status status = CudaOk(LaunchFillPattern(buffers.send.allocation->data(), count,
                                                 element_bytes, rank, seed, stream),
                               "LaunchFillPattern");
  status.Update(CudaOk(cudaMemsetAsync(buffers.recv.allocation->data(), kPoisonByte, bytes, stream),
                       "cudaMemsetAsync"));
  return status;
}

// The transport's times and those of a device-to-device copy of the same bytes: the bound a
// remote store can approach.
struct StoreAndCopyTimes {
  std::vector<double> store_us, copy_us;  // one sample an iteration
  double store_loop_us = 0, copy_loop_us = 0;  // the bare loops (ring_shift_timing.h)
};

// Timed: `store`'s iterations back to back, an event after each, then `copy`'s alike; then both
// again with no event between iterations. Runs only while `status` is ok, and updates it.
StoreAndCopyTimes TimeStoreAndCopy(CudaResources* cuda, int iterations,
                                   const std::function<absl::Status()>& store,
                                   const std::function<absl::Status()>& copy, absl::Status& status) {
  cudaStream_t stream = cuda->stream();
  std::vector<cudaEvent_t> events(size_t(iterations) + 1);
  for (auto& e : events) status.Update(CudaOk(cudaEventCreate(&e), "cudaEventCreate"));
  auto time_loop = [&](const std::function<absl::Status()>& body) -> std::vector<double> {
    std::vector<double> samples;
    if (!status.ok()) return samples;
    status.Update(CudaOk(cudaEventRecord(events[0], stream), "cudaEventRecord"));
    for (int i = 0; status.ok() && i < iterations; ++i) {
      status.Update(body());
      status.Update(CudaOk(cudaEventRecord(events[i + 1], stream), "cudaEventRecord"));
    }
    if (status.ok()) status = cuda->Synchronize();
    for (int i = 0; status.ok() && i < iterations; ++i) {
      float ms = 0;
      status.Update(CudaOk(cudaEventElapsedTime(&ms, events[i], events[i + 1]), "cudaEventElapsedTime"));
      samples.push_back(double(ms) * 1e3);
    }
    return samples;
  };
  StoreAndCopyTimes times;
  times.store_us = time_loop(store);
  times.copy_us = time_loop(copy);
  for (auto& e : events) cudaEventDestroy(e);
  auto bare_loop = [&](const std::function<absl::Status()>& body) -> double {
    if (!status.ok()) return 0;
    absl::StatusOr<double> us =
        TimeBareLoopUs(stream, iterations, body, [&] { return cuda->Synchronize(); });
    status = us.status();
    return us.ok() ? *us : 0;
  };
  times.store_loop_us = bare_loop(store);
  times.copy_loop_us = bare_loop(copy);
  return times;
}

// A stall past the point's timeout (until the watchdog aborts the communicator) or a crash.
void StallOrCrash(PointContext& ctx, RingFault fault) {
  if (fault == RingFault::kStall) {
    auto until = std::chrono::steady_clock::now() +
                 absl::ToChronoMilliseconds(ctx.point().spec->timeout) + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < until && !ctx.cuda()->aborted()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  if (fault == RingFault::kCrash) std::raise(SIGSEGV);
}

// The bytes a rank stores in its verified exchange: fewer, or none, on a faulty rank.
size_t StoredBytes(bool faulty, RingFault fault, size_t bytes) {
  if (faulty && fault == RingFault::kPartialWrite) return bytes / 2;
  if (faulty && fault == RingFault::kStaleBlock) return 0;
  return bytes;
}

// The verified exchange of `seed`'s pattern, shaped by a faulty rank's fault (a stall, a crash,
// a partial or no store, a flipped element). Runs only while `status` is ok, and returns it.
absl::Status VerifiedExchange(PointContext& ctx, const RingShiftParams& params,
                              const RingDeviceBuffers& buffers, uint64_t seed,
                              const std::function<absl::Status(size_t)>& enqueue,
                              absl::Status status) {
  const int element_bytes = DtypeSize(params.dtype);
  const int64_t count = params.count();
  const size_t bytes = size_t(count) * element_bytes;
  const bool faulty = params.fault != RingFault::kNone && params.fault_rank == ctx.rank();
  CudaResources* cuda = ctx.cuda();
  ctx.SetStep("verify_exchange", "device remote store", int64_t(bytes));
  if (status.ok()) {
    status = FillSendPoisonRecv(buffers, count, element_bytes, ctx.rank(), seed, bytes, cuda->stream());
  }
  if (status.ok() && faulty) StallOrCrash(ctx, params.fault);
  if (status.ok()) status = enqueue(StoredBytes(faulty, params.fault, bytes));
  if (status.ok()) status = cuda->Synchronize();

  ctx.SetStep("verify");
  if (status.ok() && faulty && params.fault == RingFault::kCorruptElement && count > 0) {
    status = CudaOk(LaunchFlipLowestBit(buffers.recv.allocation->data(), count / 2, element_bytes,
                                        cuda->stream()),
                    "LaunchFlipLowestBit");
  }
  return status;
}

// Counts the received elements that differ from `left`'s pattern, on the device (a 4 GiB block
// never crosses PCIe), and reads back the first wrong one's bits.
absl::Status CountWrongOnDevice(CudaResources* cuda, const RingDeviceBuffers& buffers,
                                int64_t count, int element_bytes, int left, uint64_t seed,
                                VerifyCounters& found, uint64_t& actual_bits) {
  cudaStream_t stream = cuda->stream();
  const void* received = buffers.recv.allocation->data();
  absl::Status status = CudaOk(LaunchVerifyPattern(received, count, element_bytes, left, seed,
                                                   buffers.counters, stream),
                               "LaunchVerifyPattern");
  status.Update(CudaOk(cudaMemcpyAsync(&found, buffers.counters, sizeof(found),
                                       cudaMemcpyDeviceToHost, stream),
                       "cudaMemcpyAsync"));
  if (status.ok()) status = cuda->Synchronize();
  if (status.ok() && found.wrong_elements > 0) {
    status = CudaOk(cudaMemcpy(&actual_bits,
                               static_cast<const char*>(received) +
                                   found.first_index * uint64_t(element_bytes),
                               size_t(element_bytes), cudaMemcpyDeviceToHost),
                    "cudaMemcpy");
  }
  return status;
}

Mismatch RingMismatch(const VerifyCounters& found, uint64_t actual_bits, int64_t count,
                      int element_bytes, int left, uint64_t seed) {
  Mismatch mismatch;
  mismatch.checked_elements = count;
  mismatch.wrong_elements = int64_t(found.wrong_elements);
  if (found.wrong_elements > 0) {
    mismatch.first_index = int64_t(found.first_index);
    mismatch.expected =
        HexBits(ExpectedPatternBits(left, found.first_index, seed, element_bytes), element_bytes);
    mismatch.actual = HexBits(actual_bits, element_bytes);
  }
  return mismatch;
}

// The transport's timings side by side with the copy's.
std::vector<Metric> StoreVsCopyMetrics(const StoreAndCopyTimes& times, int iterations, size_t bytes) {
  TimingStats store = SummarizeTimings(times.store_us);
  TimingStats copy = SummarizeTimings(times.copy_us);
  std::vector<Metric> metrics = TimingMetrics(store, double(bytes));
  metrics.push_back({"copy_time_median_us", copy.median_us, "us"});
  if (copy.median_us > 0) {
    metrics.push_back({"copy_bandwidth_GBps", double(bytes) / (copy.median_us * 1e3), "GB/s"});
  }
  if (store.median_us > 0) {
    metrics.push_back({"bandwidth_vs_copy", copy.median_us / store.median_us, "ratio"});
  }
  for (std::vector<Metric> loop :
       {LoopMetrics("", times.store_loop_us, iterations, double(bytes)),
        LoopMetrics("copy_", times.copy_loop_us, iterations, double(bytes))}) {
    for (Metric& m : loop) metrics.push_back(std::move(m));
  }
  if (times.store_loop_us > 0) {
    metrics.push_back({"bandwidth_loop_vs_copy", times.copy_loop_us / times.store_loop_us, "ratio"});
  }
  return metrics;
}

}  // namespace

RankOutcome RunRingShiftDeviceCuda(PointContext& ctx, const RingShiftParams& params) {
  RankOutcome out = CudaPointOutcome(ctx);
  CudaResources* cuda = ctx.cuda();
  cudaStream_t stream = cuda->stream();
  ncclComm_t comm = cuda->nccl();
  if (comm == nullptr) return CommAbortedOutcome();
  const int element_bytes = DtypeSize(params.dtype);
  const int64_t count = params.count();
  const size_t bytes = size_t(count) * element_bytes;
  const int left = (ctx.rank() + ctx.nranks() - 1) % ctx.nranks();

  ctx.SetStep("device_comm");
  auto lsa = LsaRingShift::Create(comm);
  if (!lsa.ok()) return LsaRefusalOutcome(ctx, std::move(out), lsa.status());

  RingDeviceBuffers buffers;
  if (absl::Status s = AllocateRingDeviceBuffers(ctx, comm, bytes, stream, buffers); !s.ok()) {
    return ErrorKeepingMetrics(std::move(out), s);
  }
  void* const send = buffers.send.allocation->data();
  const uint64_t seed = uint64_t(ctx.point().index) * 1009 + uint64_t(ctx.trial()) * 2 + 1;
  absl::Status status = FillSendPoisonRecv(buffers, count, element_bytes, ctx.rank(), seed, bytes, stream);

  // nccl_ce copies into the neighbour's window through its address in this process.
  const bool copy_engine = params.transport == RingTransport::kNcclCe;
  void* peer = nullptr;
  if (status.ok() && copy_engine) {
    absl::StatusOr<void*> found_peer = (*lsa)->RightPeerPointer(buffers.window, 0, stream);
    if (found_peer.ok()) peer = *found_peer;
    status = found_peer.status();
  }

  ctx.SetStep("exchange", copy_engine ? "device copy engine" : "device remote store", int64_t(bytes));
  auto enqueue = [&](size_t store_bytes) {
    if (copy_engine) return (*lsa)->EnqueueCopyEngine(peer, send, bytes, store_bytes, stream);
    return (*lsa)->Enqueue(buffers.window, 0, send, bytes, store_bytes, nullptr, 0, stream);
  };
  for (int i = 0; status.ok() && i < ctx.warmup(); ++i) status = enqueue(bytes);
  const int iterations = std::max(ctx.iterations(), 1);
  const StoreAndCopyTimes times = TimeStoreAndCopy(
      cuda, iterations, [&] { return enqueue(bytes); },
      [&] {
        return CudaOk(cudaMemcpyAsync(buffers.recv.allocation->data(), send, bytes,
                                      cudaMemcpyDeviceToDevice, stream),
                      "cudaMemcpyAsync");
      },
      status);

  // The verified exchange: fresh data (next seed), so a stale block cannot pass.
  const uint64_t verify_seed = seed + 1;
  status = VerifiedExchange(ctx, params, buffers, verify_seed, enqueue, std::move(status));
  VerifyCounters found{0, ~0ull};
  uint64_t actual_bits = 0;
  if (status.ok()) {
    status = CountWrongOnDevice(cuda, buffers, count, element_bytes, left, verify_seed, found,
                                actual_bits);
  }
  if (!status.ok()) {
    out.step = "exchange";
    (void)buffers.send.Release();
    (void)buffers.recv.Release();
    return ErrorKeepingMetrics(std::move(out), status);
  }
  Mismatch mismatch = RingMismatch(found, actual_bits, count, element_bytes, left, verify_seed);
  out.metrics = StoreVsCopyMetrics(times, iterations, bytes);
  if (!copy_engine) out.metrics.push_back({"ctas", double((*lsa)->ctas()), "count"});

  ctx.SetStep("release");
  absl::Status released = buffers.send.Release();
  released.Update(buffers.recv.Release());
  released.Update(buffers.scratch.Release());
  if (mismatch.wrong_elements > 0) {
    out.outcome = Outcome::kFail;
    out.signature = absl::StrCat("wrong data: ", mismatch.wrong_elements, " of ", count,
                                 " elements from rank ", left);
    out.mismatch = mismatch;
    return out;
  }
  if (!released.ok()) return ErrorKeepingMetrics(std::move(out), released);
  out.outcome = Outcome::kPass;
  return out;
}

}  // namespace gh
