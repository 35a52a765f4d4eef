// sliced_collective on the cuda backend: a cuBLAS GEMM writes the producer's output into memory
// from the allocator axis, the buffers are registered with NCCL as the registration axis says,
// and an NCCL collective (or the device-initiated ring shift) consumes a row slice of it.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/core/timing_stats.h"
#include "harness/runtime/cuda_resources.h"
#include "harness/runtime/point_context.h"
#include "harness/runtime/cuda_errors_cuda.h"
#include "harness/core/status_macros.h"
#include "harness/scenarios/cuda_point_status_cuda.h"
#include "harness/scenarios/ring_shift_device.h"
#include "harness/scenarios/sliced_collective.h"
#include "harness/scenarios/sliced_collective_data.h"
#include "harness/scenarios/sliced_collective_kernels_cuda.h"

namespace gh {
namespace {

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

// Every rank learns whether any rank failed `what`, so that no collective starts on some ranks
// only: `local` where this rank failed, an error naming another rank where one did.
absl::Status AllRanksOk(PointContext& ctx, absl::Status local, const char* what) {
  if (CountFailedRanks(!local.ok(), ctx.comm()) == 0) return absl::OkStatus();
  if (local.ok()) return absl::InternalError(absl::StrCat(what, " failed on another rank"));
  return local;
}

// The point's device memory: the producer's output and the collective's output (both from the
// allocator axis), and scratch for the GEMM inputs and the slice's begin-row cell.
struct SlicedBuffers {
  RegisteredBuffer producer, output, scratch;
  int64_t scratch_bytes = 0;

  absl::Status Release() {
    absl::Status released = producer.Release();
    released.Update(output.Release());
    released.Update(scratch.Release());
    return released;
  }
};

absl::Status AllocateSlicedBuffers(PointContext& ctx, const SlicedCollectiveParams& params,
                                   SlicedBuffers& buffers) {
  ctx.SetStep("allocate");
  cudaStream_t stream = ctx.cuda()->stream();
  absl::Status status;
  auto producer_alloc = AllocateDevice(params.allocator, params.producer_bytes(), stream);
  auto output_alloc = AllocateDevice(
      params.allocator, params.output_count(ctx.nranks()) * int64_t(sizeof(float)), stream);
  // GEMM inputs and the slice's begin-row cell: plain cudaMalloc, not part of the axis.
  buffers.scratch_bytes = (params.rows * params.inner + params.inner * params.cols) * 4 + 64;
  auto scratch_alloc =
      AllocateDevice({AllocatorKind::kCudaMalloc, 256, 0}, buffers.scratch_bytes, stream);
  for (auto* a : {&producer_alloc, &output_alloc, &scratch_alloc}) {
    if (!a->ok()) status.Update(a->status());
  }
  GH_RETURN_IF_ERROR(AllRanksOk(ctx, status, "allocation"));
  buffers.producer.allocation = *std::move(producer_alloc);
  buffers.output.allocation = *std::move(output_alloc);
  buffers.scratch.allocation = *std::move(scratch_alloc);
  return absl::OkStatus();
}

absl::Status RegisterSlicedBuffers(PointContext& ctx, const SlicedCollectiveParams& params,
                                   SlicedBuffers& buffers) {
  ctx.SetStep("register");
  ncclComm_t comm = ctx.cuda()->nccl();
  absl::Status status;
  for (RegisteredBuffer* buffer : {&buffers.producer, &buffers.output}) {
    auto registered = RegisterDevice(params.registration, *buffer->allocation, comm);
    if (!registered.ok()) {
      status = registered.status();
      break;
    }
    buffer->registration = *std::move(registered);
  }
  absl::Status agreed = AllRanksOk(ctx, status, "registration");
  if (!agreed.ok() && status.ok() && RegistrationIsCollective(params.registration)) {
    (void)buffers.producer.ReleaseWithoutDeregistering();
    (void)buffers.output.ReleaseWithoutDeregistering();
  }
  return agreed;
}

// Where the producer and the collective read and write on the device.
struct SliceOperands {
  float* a = nullptr;          // GEMM input [rows, inner]
  float* w = nullptr;          // GEMM weights [inner, cols]
  int64_t* begin_cell = nullptr;  // the slice's begin row, on the device
  float* produced = nullptr;   // the producer's output [rows, cols]
  float* result = nullptr;     // the collective's output
  const float* operand = nullptr;  // the slice the collective sends
};

SliceOperands SliceOperandsIn(const SlicedCollectiveParams& params, const SlicedBuffers& buffers) {
  SliceOperands ops;
  ops.a = static_cast<float*>(buffers.scratch.allocation->data());
  ops.w = ops.a + params.rows * params.inner;
  ops.begin_cell = reinterpret_cast<int64_t*>(static_cast<char*>(buffers.scratch.allocation->data()) +
                                              buffers.scratch_bytes - 64);
  ops.produced = static_cast<float*>(buffers.producer.allocation->data());
  ops.result = static_cast<float*>(buffers.output.allocation->data());
  return ops;
}

// The GEMM writes the producer's output, the begin row goes to its device cell and the output
// is poisoned; the operand is the slice the collective sends (a faulty rank's off by one row).
absl::Status Produce(PointContext& ctx, const SlicedCollectiveParams& params, uint64_t seed,
                     SliceOperands& ops) {
  ctx.SetStep("produce");
  const int rank = ctx.rank();
  cudaStream_t stream = ctx.cuda()->stream();
  int64_t begin_row = SliceBeginRow(params, rank);
  if (params.fault == SlicedFault::kWrongSlice && params.fault_rank == rank) {
    begin_row += begin_row + params.slice_rows() < params.rows ? 1 : -1;
  }
  absl::Status status = CudaOk(LaunchFillProducerInputs(ops.a, ops.w, rank, params.rows,
                                                        params.inner, params.cols, seed, stream),
                               "LaunchFillProducerInputs");
  if (status.ok()) status = Gemm(params, ops.a, ops.w, ops.produced, stream);
  status.Update(CudaOk(LaunchWriteBeginRow(ops.begin_cell, begin_row, stream), "LaunchWriteBeginRow"));
  status.Update(CudaOk(cudaMemsetAsync(ops.result, kPoisonByte,
                                       params.output_count(ctx.nranks()) * sizeof(float), stream),
                       "cudaMemsetAsync"));
  ops.operand = ops.produced + begin_row * params.cols;
  if (status.ok() && params.slice == SliceMode::kDynamic &&
      params.collective != SlicedCollectiveOp::kRingShiftDevice) {
    // NCCL's host API takes pointers: the dynamic offset comes back to the host first.
    int64_t row = 0;
    status = CudaOk(cudaMemcpyAsync(&row, ops.begin_cell, sizeof(row), cudaMemcpyDeviceToHost, stream),
                    "cudaMemcpyAsync(begin row)");
    if (status.ok()) status = ctx.cuda()->Synchronize();
    ops.operand = ops.produced + row * params.cols;
  }
  return AllRanksOk(ctx, status, "producer");
}

// A refused device communicator: a skip when this NCCL or topology cannot run the point.
RankOutcome LsaRefusalOutcome(PointContext& ctx, RankOutcome out, SlicedBuffers& buffers,
                              const absl::Status& refusal) {
  out.step = "device_comm";
  if (!absl::IsFailedPrecondition(refusal)) {
    return ErrorKeepingMetrics(std::move(out), refusal, "device_comm");
  }
  // Some refusals leave NCCL's communicator unfit for the next point: release the
  // windows while it still exists, then every rank builds a fresh one.
  absl::Status released = buffers.Release();
  if (LsaRingShift::RefusalNeedsNewCommunicator(refusal)) {
    released.Update(ctx.cuda()->Recreate(ctx.comm()));
  }
  if (!released.ok()) return ErrorKeepingMetrics(std::move(out), released, "device_comm");
  return RankOutcome::Skip(std::string(refusal.message()));
}

// One collective of the point's kind on the slice.
absl::Status EnqueueCollective(const SlicedCollectiveParams& params, const SliceOperands& ops,
                               int64_t count, ncclWindow_t window, LsaRingShift* lsa,
                               PointContext& ctx) {
  ncclComm_t comm = ctx.cuda()->nccl();
  cudaStream_t stream = ctx.cuda()->stream();
  const int rank = ctx.rank(), nranks = ctx.nranks();
  const int left = (rank + nranks - 1) % nranks, right = (rank + 1) % nranks;
  switch (params.collective) {
    case SlicedCollectiveOp::kRingShift: {
      absl::Status s = NcclOk(ncclGroupStart(), comm, "ncclGroupStart");
      s.Update(NcclOk(ncclSend(ops.operand, size_t(count), ncclFloat, right, comm, stream), comm, "ncclSend"));
      s.Update(NcclOk(ncclRecv(ops.result, size_t(count), ncclFloat, left, comm, stream), comm, "ncclRecv"));
      s.Update(NcclOk(ncclGroupEnd(), comm, "ncclGroupEnd"));
      return s;
    }
    case SlicedCollectiveOp::kAllGather:
      return NcclOk(ncclAllGather(ops.operand, ops.result, size_t(count), ncclFloat, comm, stream),
                    comm, "ncclAllGather");
    case SlicedCollectiveOp::kAllReduce:
      return NcclOk(
          ncclAllReduce(ops.operand, ops.result, size_t(count), ncclFloat, ncclSum, comm, stream),
          comm, "ncclAllReduce");
    case SlicedCollectiveOp::kRingShiftDevice: {
      size_t bytes = size_t(count) * sizeof(float);
      if (params.slice == SliceMode::kDynamic) {
        // The kernel reads the begin row itself: the offset never visits the host.
        return lsa->Enqueue(window, 0, ops.produced, bytes, bytes, ops.begin_cell,
                            size_t(params.cols) * sizeof(float), stream);
      }
      return lsa->Enqueue(window, 0, ops.operand, bytes, bytes, nullptr, 0, stream);
    }
  }
  return absl::OkStatus();
}

// The warm-ups, then the timed iterations with an event after each; NCCL's asynchronous error
// is checked before the times are read.
absl::StatusOr<std::vector<double>> TimeCollective(PointContext& ctx,
                                                   const std::function<absl::Status()>& enqueue) {
  CudaResources* cuda = ctx.cuda();
  cudaStream_t stream = cuda->stream();
  absl::Status status;
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
    ncclCommGetAsyncError(cuda->nccl(), &async_error);
    status = NcclOk(async_error, cuda->nccl(), "ncclCommGetAsyncError");
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
  if (!status.ok()) return status;
  return samples;
}

// The collective's output on the host, after a faulty rank flipped an element of it.
absl::StatusOr<std::vector<float>> ReadBackOutput(PointContext& ctx,
                                                  const SlicedCollectiveParams& params,
                                                  float* result, int64_t output_count) {
  ctx.SetStep("verify");
  cudaStream_t stream = ctx.cuda()->stream();
  absl::Status status;
  if (params.fault == SlicedFault::kCorruptElement && params.fault_rank == ctx.rank()) {
    status = CudaOk(LaunchFlipElement(result, output_count / 2, stream), "LaunchFlipElement");
  }
  std::vector<float> host(static_cast<size_t>(output_count));
  if (status.ok()) {
    status = CudaOk(cudaMemcpyAsync(host.data(), result, host.size() * sizeof(float),
                                    cudaMemcpyDeviceToHost, stream),
                    "cudaMemcpyAsync(verify)");
  }
  if (status.ok()) status = ctx.cuda()->Synchronize();
  if (!status.ok()) return status;
  return host;
}

}  // namespace

RankOutcome RunSlicedCollectiveCuda(PointContext& ctx, const SlicedCollectiveParams& params) {
  RankOutcome out = CudaPointOutcome(ctx);
  ncclComm_t comm = ctx.cuda()->nccl();
  if (comm == nullptr) return CommAbortedOutcome();
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
    return ErrorKeepingMetrics(std::move(out), absl::InternalError(bounds), "slice");
  }

  SlicedBuffers buffers;
  if (absl::Status s = AllocateSlicedBuffers(ctx, params, buffers); !s.ok()) {
    return ErrorKeepingMetrics(std::move(out), s, "allocate");
  }
  if (absl::Status s = RegisterSlicedBuffers(ctx, params, buffers); !s.ok()) {
    return ErrorKeepingMetrics(std::move(out), s, "register");
  }
  SliceOperands ops = SliceOperandsIn(params, buffers);
  if (absl::Status s = Produce(ctx, params, seed, ops); !s.ok()) {
    return ErrorKeepingMetrics(std::move(out), s, "produce");
  }

  std::unique_ptr<LsaRingShift> lsa;
  if (params.collective == SlicedCollectiveOp::kRingShiftDevice) {
    ctx.SetStep("device_comm");
    auto created = LsaRingShift::Create(comm);
    if (!created.ok()) return LsaRefusalOutcome(ctx, std::move(out), buffers, created.status());
    lsa = *std::move(created);
  }

  ctx.SetStep("collective", EnumToName(params.collective).data(), count * int64_t(sizeof(float)));
  ncclWindow_t window = params.collective == SlicedCollectiveOp::kRingShiftDevice
                            ? buffers.output.registration->nccl_window()
                            : nullptr;
  absl::StatusOr<std::vector<double>> samples = TimeCollective(
      ctx, [&] { return EnqueueCollective(params, ops, count, window, lsa.get(), ctx); });
  if (!samples.ok()) return ErrorKeepingMetrics(std::move(out), samples.status(), "collective");

  absl::StatusOr<std::vector<float>> host = ReadBackOutput(ctx, params, ops.result, output_count);
  if (!host.ok()) return ErrorKeepingMetrics(std::move(out), host.status(), "verify");
  std::vector<float> expected = ExpectedSlicedOutput(params, rank, nranks, seed);
  std::optional<Mismatch> mismatch = CompareSlicedOutput(expected, host->data());

  int64_t algorithm_bytes = output_count * int64_t(sizeof(float));
  out.metrics = TimingMetrics(SummarizeTimings(*samples), double(algorithm_bytes));
  out.metrics.push_back({"checked_elements", double(expected.size()), "count"});
  for (Metric& m : SliceLayoutMetrics(*buffers.producer.allocation,
                                      ops.produced + SliceBeginRow(params, rank) * params.cols)) {
    out.metrics.push_back(m);
  }

  ctx.SetStep("release");
  lsa.reset();
  absl::Status released = buffers.Release();
  if (mismatch) {
    out.outcome = Outcome::kFail;
    out.signature = absl::StrCat("wrong data: ", mismatch->wrong_elements, " of ",
                                 mismatch->checked_elements, " elements");
    out.mismatch = *mismatch;
    return out;
  }
  if (!released.ok()) return ErrorKeepingMetrics(std::move(out), released, "release");
  out.outcome = Outcome::kPass;
  return out;
}

}  // namespace gh
