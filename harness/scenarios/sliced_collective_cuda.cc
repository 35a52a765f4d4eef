// sliced_collective on the cuda backend: a cuBLAS GEMM writes the producer's output into memory
// from the allocator axis, the buffers are registered with NCCL as the registration axis says,
// and an NCCL collective (or the device-initiated ring shift) consumes a row slice of it.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/core/timing_stats.h"
#include "harness/runtime/cuda_resources.h"
#include "harness/runtime/point_context.h"
#include "harness/runtime/cuda_errors_cuda.h"
#include "harness/scenarios/ring_shift_device.h"
#include "harness/scenarios/sliced_collective.h"
#include "harness/scenarios/sliced_collective_data.h"
#include "harness/scenarios/sliced_collective_kernels_cuda.h"

namespace gh {
namespace {

absl::Status CudaOk(cudaError_t e, std::string_view what) {
  if (e == cudaSuccess) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(CudaErrorSignature(e), " (", std::string(what), ")"));
}

absl::Status NcclOk(ncclResult_t r, ncclComm_t comm, std::string_view what) {
  if (r == ncclSuccess) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(NcclErrorSignature(r, comm), " (", std::string(what), ")"));
}

std::string CublasName(cublasStatus_t s) {
  return absl::StrCat(cublasGetStatusName(s), ": ", cublasGetStatusString(s));
}

// One cuBLAS handle per process, created on first use: CUDA work is initialised once per job.
absl::StatusOr<cublasHandle_t> JobCublas() {
  static cublasHandle_t handle = nullptr;
  static cublasStatus_t created = cublasCreate(&handle);
  if (created != CUBLAS_STATUS_SUCCESS) {
    return absl::InternalError(absl::StrCat(CublasName(created), " (cublasCreate)"));
  }
  return handle;
}

// Row-major out[rows, cols] = a[rows, inner] @ w[inner, cols]: column-major out^T = w^T a^T.
absl::Status Gemm(const SlicedCollectiveParams& p, const float* a, const float* w, float* out,
                  cudaStream_t stream) {
  auto handle = JobCublas();
  if (!handle.ok()) return handle.status();
  cublasSetStream(*handle, stream);
  const float one = 1.0f, zero = 0.0f;
  cublasStatus_t s = cublasSgemm(*handle, CUBLAS_OP_N, CUBLAS_OP_N, int(p.cols), int(p.rows),
                                 int(p.inner), &one, w, int(p.cols), a, int(p.inner), &zero, out,
                                 int(p.cols));
  if (s != CUBLAS_STATUS_SUCCESS) return absl::InternalError(absl::StrCat(CublasName(s), " (cublasSgemm)"));
  return absl::OkStatus();
}

// Keeps what `out` measured so far, as the error record shows it.
RankOutcome ErrorAt(RankOutcome out, const char* step, const absl::Status& status) {
  RankOutcome error = RankOutcome::Error(std::string(status.message()), step);
  error.metrics = std::move(out.metrics);
  return error;
}

}  // namespace

RankOutcome RunSlicedCollectiveCuda(PointContext& ctx, const SlicedCollectiveParams& params) {
  RankOutcome out;
  out.rank = ctx.rank();
  CudaResources* cuda = ctx.cuda();
  out.device = cuda->device();
  cudaStream_t stream = cuda->stream();
  ncclComm_t comm = cuda->nccl();
  if (comm == nullptr) {
    return RankOutcome::Error("ncclCommAbort: communicator aborted by the watchdog");
  }
  const int rank = ctx.rank(), nranks = ctx.nranks();
  const uint64_t seed = SlicedCollectiveSeed(ctx.point(), ctx.trial());
  const int64_t count = params.count();
  const int64_t output_count = params.output_count(nranks);

  // The bounds are checked before anything is enqueued; every rank learns whether any rank's
  // slice is bad, so that no collective starts on some ranks only.
  std::string bounds = SliceBoundsError(params, rank, nranks);
  if (CountFailedRanks(!bounds.empty(), ctx.comm()) > 0) {
    if (bounds.empty()) {
      RankOutcome skip = RankOutcome::Skip("another rank's slice is out of bounds");
      skip.step = "slice";
      return skip;
    }
    return ErrorAt(std::move(out), "slice", absl::InternalError(bounds));
  }

  ctx.SetStep("allocate");
  RegisteredBuffer producer, output, scratch;
  absl::Status status;
  auto producer_alloc = AllocateDevice(params.allocator, params.producer_bytes(), stream);
  auto output_alloc = AllocateDevice(params.allocator, output_count * int64_t(sizeof(float)), stream);
  // GEMM inputs and the slice's begin-row cell: plain cudaMalloc, not part of the axis.
  int64_t scratch_bytes = (params.rows * params.inner + params.inner * params.cols) * 4 + 64;
  auto scratch_alloc = AllocateDevice({AllocatorKind::kCudaMalloc, 256, 0}, scratch_bytes, stream);
  for (auto* a : {&producer_alloc, &output_alloc, &scratch_alloc}) {
    if (!a->ok()) status.Update(a->status());
  }
  if (CountFailedRanks(!status.ok(), ctx.comm()) > 0) {
    if (status.ok()) status = absl::InternalError("allocation failed on another rank");
    return ErrorAt(std::move(out), "allocate", status);
  }
  producer.allocation = *std::move(producer_alloc);
  output.allocation = *std::move(output_alloc);
  scratch.allocation = *std::move(scratch_alloc);

  ctx.SetStep("register");
  auto producer_reg = RegisterDevice(params.registration, *producer.allocation, comm);
  if (producer_reg.ok()) {
    producer.registration = *std::move(producer_reg);
  } else {
    status = producer_reg.status();
  }
  if (status.ok()) {
    auto output_reg = RegisterDevice(params.registration, *output.allocation, comm);
    if (output_reg.ok()) {
      output.registration = *std::move(output_reg);
    } else {
      status = output_reg.status();
    }
  }
  if (CountFailedRanks(!status.ok(), ctx.comm()) > 0) {
    if (status.ok()) {
      if (RegistrationIsCollective(params.registration)) {
        (void)producer.ReleaseWithoutDeregistering();
        (void)output.ReleaseWithoutDeregistering();
      }
      status = absl::InternalError("registration failed on another rank");
    }
    return ErrorAt(std::move(out), "register", status);
  }

  ctx.SetStep("produce");
  auto* a = static_cast<float*>(scratch.allocation->data());
  float* w = a + params.rows * params.inner;
  auto* begin_cell = reinterpret_cast<int64_t*>(
      static_cast<char*>(scratch.allocation->data()) + scratch_bytes - 64);
  auto* produced = static_cast<float*>(producer.allocation->data());
  auto* result = static_cast<float*>(output.allocation->data());
  int64_t begin_row = SliceBeginRow(params, rank);
  if (params.fault == SlicedFault::kWrongSlice && params.fault_rank == rank) {
    begin_row += begin_row + params.slice_rows() < params.rows ? 1 : -1;
  }
  status.Update(CudaOk(LaunchFillProducerInputs(a, w, rank, params.rows, params.inner, params.cols,
                                                seed, stream),
                       "LaunchFillProducerInputs"));
  if (status.ok()) status = Gemm(params, a, w, produced, stream);
  status.Update(CudaOk(LaunchWriteBeginRow(begin_cell, begin_row, stream), "LaunchWriteBeginRow"));
  status.Update(CudaOk(cudaMemsetAsync(result, kPoisonByte, output_count * sizeof(float), stream),
                       "cudaMemsetAsync"));
  const float* operand = produced + begin_row * params.cols;
  if (status.ok() && params.slice == SliceMode::kDynamic &&
      params.collective != SlicedCollectiveOp::kRingShiftDevice) {
    // NCCL's host API takes pointers: the dynamic offset comes back to the host first.
    int64_t row = 0;
    status = CudaOk(cudaMemcpyAsync(&row, begin_cell, sizeof(row), cudaMemcpyDeviceToHost, stream),
                    "cudaMemcpyAsync(begin row)");
    if (status.ok()) status = cuda->Synchronize();
    operand = produced + row * params.cols;
  }
  if (CountFailedRanks(!status.ok(), ctx.comm()) > 0) {
    if (status.ok()) status = absl::InternalError("producer failed on another rank");
    return ErrorAt(std::move(out), "produce", status);
  }

  std::unique_ptr<LsaRingShift> lsa;
  if (params.collective == SlicedCollectiveOp::kRingShiftDevice) {
    ctx.SetStep("device_comm");
    auto created = LsaRingShift::Create(comm);
    if (!created.ok()) {
      out.step = "device_comm";
      if (absl::IsFailedPrecondition(created.status())) {
        // Some refusals leave NCCL's communicator unfit for the next point: release the
        // windows while it still exists, then every rank builds a fresh one.
        absl::Status released = producer.Release();
        released.Update(output.Release());
        released.Update(scratch.Release());
        if (LsaRingShift::RefusalNeedsNewCommunicator(created.status())) {
          released.Update(cuda->Recreate(ctx.comm()));
        }
        if (!released.ok()) return ErrorAt(std::move(out), "device_comm", released);
        return RankOutcome::Skip(std::string(created.status().message()));
      }
      return ErrorAt(std::move(out), "device_comm", created.status());
    }
    lsa = *std::move(created);
  }

  ctx.SetStep("collective", EnumToName(params.collective).data(), count * int64_t(sizeof(float)));
  const int left = (rank + nranks - 1) % nranks, right = (rank + 1) % nranks;
  auto enqueue = [&]() -> absl::Status {
    switch (params.collective) {
      case SlicedCollectiveOp::kRingShift: {
        absl::Status s = NcclOk(ncclGroupStart(), comm, "ncclGroupStart");
        s.Update(NcclOk(ncclSend(operand, size_t(count), ncclFloat, right, comm, stream), comm, "ncclSend"));
        s.Update(NcclOk(ncclRecv(result, size_t(count), ncclFloat, left, comm, stream), comm, "ncclRecv"));
        s.Update(NcclOk(ncclGroupEnd(), comm, "ncclGroupEnd"));
        return s;
      }
      case SlicedCollectiveOp::kAllGather:
        return NcclOk(ncclAllGather(operand, result, size_t(count), ncclFloat, comm, stream), comm,
                      "ncclAllGather");
      case SlicedCollectiveOp::kAllReduce:
        return NcclOk(ncclAllReduce(operand, result, size_t(count), ncclFloat, ncclSum, comm, stream),
                      comm, "ncclAllReduce");
      case SlicedCollectiveOp::kRingShiftDevice: {
        size_t bytes = size_t(count) * sizeof(float);
        if (params.slice == SliceMode::kDynamic) {
          // The kernel reads the begin row itself: the offset never visits the host.
          return lsa->Enqueue(output.registration->nccl_window(), 0, produced, bytes, bytes,
                              begin_cell, size_t(params.cols) * sizeof(float), stream);
        }
        return lsa->Enqueue(output.registration->nccl_window(), 0, operand, bytes, bytes, nullptr,
                            0, stream);
      }
    }
    return absl::OkStatus();
  };
  const int iterations = std::max(ctx.iterations(), 1);
  for (int i = 0; status.ok() && i < ctx.warmup(); ++i) status = enqueue();
  std::vector<cudaEvent_t> events(size_t(iterations) + 1, nullptr);
  for (auto& e : events) status.Update(CudaOk(cudaEventCreate(&e), "cudaEventCreate"));
  if (status.ok()) status = CudaOk(cudaEventRecord(events[0], stream), "cudaEventRecord");
  for (int i = 0; status.ok() && i < iterations; ++i) {
    status = enqueue();
    status.Update(CudaOk(cudaEventRecord(events[i + 1], stream), "cudaEventRecord"));
  }
  if (status.ok()) status = cuda->Synchronize();
  if (status.ok()) {
    ncclResult_t async_error = ncclSuccess;
    ncclCommGetAsyncError(comm, &async_error);
    status = NcclOk(async_error, comm, "ncclCommGetAsyncError");
  }
  std::vector<double> samples;
  for (int i = 0; status.ok() && i < iterations; ++i) {
    float ms = 0;
    status = CudaOk(cudaEventElapsedTime(&ms, events[i], events[i + 1]), "cudaEventElapsedTime");
    samples.push_back(double(ms) * 1e3);
  }
  for (auto& e : events) {
    if (e != nullptr) cudaEventDestroy(e);
  }
  if (!status.ok()) return ErrorAt(std::move(out), "collective", status);

  ctx.SetStep("verify");
  if (params.fault == SlicedFault::kCorruptElement && params.fault_rank == rank) {
    status = CudaOk(LaunchFlipElement(result, output_count / 2, stream), "LaunchFlipElement");
  }
  std::vector<float> host(static_cast<size_t>(output_count));
  if (status.ok()) status = CudaOk(cudaMemcpyAsync(host.data(), result, host.size() * sizeof(float),
                                  cudaMemcpyDeviceToHost, stream),
                  "cudaMemcpyAsync(verify)");
  if (status.ok()) status = cuda->Synchronize();
  if (!status.ok()) return ErrorAt(std::move(out), "verify", status);
  std::vector<float> expected = ExpectedSlicedOutput(params, rank, nranks, seed);
  std::optional<Mismatch> mismatch = CompareSlicedOutput(expected, host.data());

  int64_t algorithm_bytes = output_count * int64_t(sizeof(float));
  out.metrics = TimingMetrics(SummarizeTimings(samples), double(algorithm_bytes));
  out.metrics.push_back({"checked_elements", double(expected.size()), "count"});
  for (Metric& m : SliceLayoutMetrics(*producer.allocation, produced + SliceBeginRow(params, rank) * params.cols)) {
    out.metrics.push_back(m);
  }

  ctx.SetStep("release");
  lsa.reset();
  absl::Status released = producer.Release();
  released.Update(output.Release());
  released.Update(scratch.Release());
  if (mismatch) {
    out.outcome = Outcome::kFail;
    out.signature = absl::StrCat("wrong data: ", mismatch->wrong_elements, " of ",
                                 mismatch->checked_elements, " elements");
    out.mismatch = *mismatch;
    return out;
  }
  if (!released.ok()) return ErrorAt(std::move(out), "release", released);
  out.outcome = Outcome::kPass;
  return out;
}

}  // namespace gh
