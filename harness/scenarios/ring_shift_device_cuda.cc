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

absl::Status CudaOk(cudaError_t e, std::string_view what) {
  if (e == cudaSuccess) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(CudaErrorSignature(e), " (", std::string(what), ")"));
}

// Keeps what `out` measured so far, as the error record shows it.
RankOutcome ErrorOutcome(RankOutcome out, const absl::Status& status) {
  RankOutcome error = RankOutcome::Error(std::string(status.message()));
  error.metrics = std::move(out.metrics);
  return error;
}

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

RankOutcome RunRingShiftDeviceCuda(PointContext& ctx, const RingShiftParams& params) {
  RankOutcome out;
  out.rank = ctx.rank();
  CudaResources* cuda = ctx.cuda();
  out.device = cuda->device();
  cudaStream_t stream = cuda->stream();
  ncclComm_t comm = cuda->nccl();
  if (comm == nullptr) {
    return RankOutcome::Error("ncclCommAbort: communicator aborted by the watchdog");
  }
  const int element_bytes = DtypeSize(params.dtype);
  const int64_t count = params.count();
  const size_t bytes = size_t(count) * element_bytes;
  const int left = (ctx.rank() + ctx.nranks() - 1) % ctx.nranks();
  const bool faulty = params.fault != RingFault::kNone && params.fault_rank == ctx.rank();

  ctx.SetStep("device_comm");
  auto lsa = LsaRingShift::Create(comm);
  if (!lsa.ok()) {
    out.step = "device_comm";
    if (absl::IsFailedPrecondition(lsa.status())) {
      // Some refusals leave NCCL's communicator unfit for the next point: then every rank
      // builds a fresh one (see RefusalNeedsNewCommunicator).
      if (LsaRingShift::RefusalNeedsNewCommunicator(lsa.status())) {
        if (absl::Status recreated = cuda->Recreate(ctx.comm()); !recreated.ok()) {
          return ErrorOutcome(std::move(out), recreated);
        }
      }
      return RankOutcome::Skip(std::string(lsa.status().message()));
    }
    return ErrorOutcome(std::move(out), lsa.status());
  }

  ctx.SetStep("allocate");
  RegisteredBuffer send, recv;
  auto send_alloc = AllocateDevice({AllocatorKind::kCudaMalloc, 256, 0}, bytes, stream);
  if (!send_alloc.ok()) return ErrorOutcome(std::move(out), send_alloc.status());
  send.allocation = *std::move(send_alloc);
  auto recv_alloc = AllocateDevice({AllocatorKind::kNcclMemAlloc, 256, 0}, bytes, stream);
  if (!recv_alloc.ok()) return ErrorOutcome(std::move(out), recv_alloc.status());
  recv.allocation = *std::move(recv_alloc);

  ctx.SetStep("register");
  auto window = RegisterDevice(RegistrationKind::kWindowSymmetric, *recv.allocation, comm);
  if (!window.ok()) {
    out.step = "register";
    return ErrorOutcome(std::move(out), window.status());
  }
  recv.registration = *std::move(window);
  ncclWindow_t win = recv.registration->nccl_window();
  RegisteredBuffer scratch;
  auto scratch_alloc = AllocateDevice({AllocatorKind::kCudaMalloc, 256, 0}, sizeof(VerifyCounters), stream);
  if (!scratch_alloc.ok()) return ErrorOutcome(std::move(out), scratch_alloc.status());
  scratch.allocation = *std::move(scratch_alloc);
  auto* counters = static_cast<VerifyCounters*>(scratch.allocation->data());

  const uint64_t seed = uint64_t(ctx.point().index) * 1009 + uint64_t(ctx.trial()) * 2 + 1;
  absl::Status status = CudaOk(
      LaunchFillPattern(send.allocation->data(), count, element_bytes, ctx.rank(), seed, stream),
      "LaunchFillPattern");
  status.Update(CudaOk(cudaMemsetAsync(recv.allocation->data(), kPoisonByte, bytes, stream),
                       "cudaMemsetAsync"));

  // nccl_ce copies into the neighbour's window through its address in this process.
  const bool copy_engine = params.transport == RingTransport::kNcclCe;
  void* peer = nullptr;
  if (status.ok() && copy_engine) {
    absl::StatusOr<void*> found_peer = (*lsa)->RightPeerPointer(win, 0, stream);
    if (found_peer.ok()) peer = *found_peer;
    status = found_peer.status();
  }

  ctx.SetStep("exchange", copy_engine ? "device copy engine" : "device remote store", int64_t(bytes));
  auto enqueue = [&](size_t store_bytes) {
    if (copy_engine) {
      return (*lsa)->EnqueueCopyEngine(peer, send.allocation->data(), bytes, store_bytes, stream);
    }
    return (*lsa)->Enqueue(win, 0, send.allocation->data(), bytes, store_bytes, nullptr, 0, stream);
  };
  for (int i = 0; status.ok() && i < ctx.warmup(); ++i) status = enqueue(bytes);

  // Timed: the transport's iterations back to back, an event after each;
  // then a device-to-device copy of the same bytes, timed alike: the bound a remote store can
  // approach.
  const int iterations = std::max(ctx.iterations(), 1);
  std::vector<cudaEvent_t> events(size_t(iterations) + 1);
  for (auto& e : events) status.Update(CudaOk(cudaEventCreate(&e), "cudaEventCreate"));
  auto time_loop = [&](auto&& body) -> std::vector<double> {
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
  auto copy_once = [&] {
    return CudaOk(cudaMemcpyAsync(recv.allocation->data(), send.allocation->data(), bytes,
                                  cudaMemcpyDeviceToDevice, stream),
                  "cudaMemcpyAsync");
  };
  std::vector<double> store_us = time_loop([&] { return enqueue(bytes); });
  std::vector<double> copy_us = time_loop(copy_once);
  for (auto& e : events) cudaEventDestroy(e);
  // Both again with no event between iterations: the loop means (ring_shift_timing.h).
  auto bare_loop = [&](auto&& body) -> double {
    if (!status.ok()) return 0;
    absl::StatusOr<double> us = TimeBareLoopUs(stream, iterations, body, [&] { return cuda->Synchronize(); });
    status = us.status();
    return us.ok() ? *us : 0;
  };
  const double store_loop_us = bare_loop([&] { return enqueue(bytes); });
  const double copy_loop_us = bare_loop(copy_once);

  // The verified exchange: fresh data (next seed), so a stale block cannot pass.
  ctx.SetStep("verify_exchange", "device remote store", int64_t(bytes));
  const uint64_t verify_seed = seed + 1;
  if (status.ok()) {
    status = CudaOk(LaunchFillPattern(send.allocation->data(), count, element_bytes, ctx.rank(),
                                      verify_seed, stream),
                    "LaunchFillPattern");
    status.Update(CudaOk(cudaMemsetAsync(recv.allocation->data(), kPoisonByte, bytes, stream),
                         "cudaMemsetAsync"));
  }
  if (status.ok() && faulty && params.fault == RingFault::kStall) {
    // Past the point's timeout, until the watchdog aborts the communicator.
    auto until = std::chrono::steady_clock::now() +
                 absl::ToChronoMilliseconds(ctx.point().spec->timeout) + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < until && !cuda->aborted()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  if (status.ok() && faulty && params.fault == RingFault::kCrash) std::raise(SIGSEGV);
  size_t store_bytes = bytes;
  if (faulty && params.fault == RingFault::kPartialWrite) store_bytes = bytes / 2;
  if (faulty && params.fault == RingFault::kStaleBlock) store_bytes = 0;
  if (status.ok()) status = enqueue(store_bytes);
  if (status.ok()) status = cuda->Synchronize();

  ctx.SetStep("verify");
  if (status.ok() && faulty && params.fault == RingFault::kCorruptElement && count > 0) {
    status = CudaOk(LaunchFlipLowestBit(recv.allocation->data(), count / 2, element_bytes, stream),
                    "LaunchFlipLowestBit");
  }
  VerifyCounters found{0, ~0ull};
  uint64_t actual_bits = 0;
  if (status.ok()) {
    // Counted on the device: a 4 GiB block never crosses PCIe.
    status = CudaOk(LaunchVerifyPattern(recv.allocation->data(), count, element_bytes, left,
                                        verify_seed, counters, stream),
                    "LaunchVerifyPattern");
    status.Update(CudaOk(cudaMemcpyAsync(&found, counters, sizeof(found), cudaMemcpyDeviceToHost,
                                         stream),
                         "cudaMemcpyAsync"));
    if (status.ok()) status = cuda->Synchronize();
  }
  if (status.ok() && found.wrong_elements > 0) {
    status = CudaOk(cudaMemcpy(&actual_bits,
                               static_cast<const char*>(recv.allocation->data()) +
                                   found.first_index * uint64_t(element_bytes),
                               size_t(element_bytes), cudaMemcpyDeviceToHost),
                    "cudaMemcpy");
  }
  if (!status.ok()) {
    out.step = "exchange";
    (void)send.Release();
    (void)recv.Release();
    return ErrorOutcome(std::move(out), status);
  }
  Mismatch mismatch;
  mismatch.checked_elements = count;
  mismatch.wrong_elements = int64_t(found.wrong_elements);
  if (found.wrong_elements > 0) {
    mismatch.first_index = int64_t(found.first_index);
    mismatch.expected =
        HexBits(ExpectedPatternBits(left, found.first_index, verify_seed, element_bytes), element_bytes);
    mismatch.actual = HexBits(actual_bits, element_bytes);
  }

  TimingStats store = SummarizeTimings(store_us);
  TimingStats copy = SummarizeTimings(copy_us);
  out.metrics = TimingMetrics(store, double(bytes));
  out.metrics.push_back({"copy_time_median_us", copy.median_us, "us"});
  if (copy.median_us > 0) {
    out.metrics.push_back({"copy_bandwidth_GBps", double(bytes) / (copy.median_us * 1e3), "GB/s"});
  }
  if (store.median_us > 0) {
    out.metrics.push_back({"bandwidth_vs_copy", copy.median_us / store.median_us, "ratio"});
  }
  for (std::vector<Metric> loop : {LoopMetrics("", store_loop_us, iterations, double(bytes)),
                                   LoopMetrics("copy_", copy_loop_us, iterations, double(bytes))}) {
    for (Metric& m : loop) out.metrics.push_back(std::move(m));
  }
  if (store_loop_us > 0) {
    out.metrics.push_back({"bandwidth_loop_vs_copy", copy_loop_us / store_loop_us, "ratio"});
  }
  if (!copy_engine) out.metrics.push_back({"ctas", double((*lsa)->ctas()), "count"});

  ctx.SetStep("release");
  absl::Status released = send.Release();
  released.Update(recv.Release());
  released.Update(scratch.Release());
  if (mismatch.wrong_elements > 0) {
    out.outcome = Outcome::kFail;
    out.signature = absl::StrCat("wrong data: ", mismatch.wrong_elements, " of ", count,
                                 " elements from rank ", left);
    out.mismatch = mismatch;
    return out;
  }
  if (!released.ok()) return ErrorOutcome(std::move(out), released);
  out.outcome = Outcome::kPass;
  return out;
}

}  // namespace gh
