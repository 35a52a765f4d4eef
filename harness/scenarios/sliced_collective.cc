// sliced_collective: the kind's parameters, the host reference, and the host backend (MPI
// two-sided/collective calls, or one-sided puts and accumulates into MPI windows).
#include "harness/scenarios/sliced_collective.h"

#include <mpi.h>

#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/core/registry.h"
#include "harness/core/timing_stats.h"
#include "harness/runtime/mpi_errors.h"
#include "harness/runtime/point_context.h"
#include "harness/scenarios/kind_backends.h"
#include "harness/scenarios/rank_steps.h"
#include "harness/scenarios/sliced_collective_data.h"

namespace gh {

int CountFailedRanks(bool failed, MPI_Comm comm) {
  int mine = failed ? 1 : 0, total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, comm);
  return total;
}

namespace {

// One host collective on `operand` into `output`; returns an MPI error signature or "".
std::string HostCollective(const SlicedCollectiveParams& params, const float* operand,
                           float* output, MPI_Win output_window, int rank, int nranks,
                           MPI_Comm comm) {
  const int count = static_cast<int>(params.count());
  const int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
  const MPI_Aint slice_bytes = MPI_Aint(count) * MPI_Aint(sizeof(float));
  int rc = MPI_SUCCESS;
  if (output_window == MPI_WIN_NULL) {
    switch (params.collective) {
      case SlicedCollectiveOp::kRingShift:
        rc = MPI_Sendrecv(operand, count, MPI_FLOAT, right, 71, output, count, MPI_FLOAT, left, 71,
                          comm, MPI_STATUS_IGNORE);
        break;
      case SlicedCollectiveOp::kAllGather:
        rc = MPI_Allgather(operand, count, MPI_FLOAT, output, count, MPI_FLOAT, comm);
        break;
      case SlicedCollectiveOp::kAllReduce:
        rc = MPI_Allreduce(operand, output, count, MPI_FLOAT, MPI_SUM, comm);
        break;
      case SlicedCollectiveOp::kRingShiftDevice:
        return "ring_shift_device on the host backend";
    }
    return rc == MPI_SUCCESS ? "" : MpiErrorSignature(rc);
  }
  // One-sided: stores into the neighbours' windows between two fences, as a device kernel
  // stores through remote pointers between two barriers.
  if (params.collective == SlicedCollectiveOp::kAllReduce) {
    std::memset(output, 0, size_t(slice_bytes));
  }
  rc = MPI_Win_fence(0, output_window);
  for (int peer = 0; rc == MPI_SUCCESS && peer < nranks; ++peer) {
    switch (params.collective) {
      case SlicedCollectiveOp::kRingShift:
        if (peer == right) {
          rc = MPI_Put(operand, count, MPI_FLOAT, peer, 0, count, MPI_FLOAT, output_window);
        }
        break;
      case SlicedCollectiveOp::kAllGather:
        rc = MPI_Put(operand, count, MPI_FLOAT, peer, MPI_Aint(rank) * slice_bytes, count,
                     MPI_FLOAT, output_window);
        break;
      case SlicedCollectiveOp::kAllReduce:
        rc = MPI_Accumulate(operand, count, MPI_FLOAT, peer, 0, count, MPI_FLOAT, MPI_SUM,
                            output_window);
        break;
      case SlicedCollectiveOp::kRingShiftDevice:
        return "ring_shift_device on the host backend";
    }
  }
  if (rc == MPI_SUCCESS) rc = MPI_Win_fence(0, output_window);
  return rc == MPI_SUCCESS ? "" : MpiErrorSignature(rc);
}

KindInfo DescribeSlicedCollective();

class SlicedCollectiveScenario : public Scenario {
 public:
  RankOutcome Run(PointContext& ctx) override {
    SlicedCollectiveParams params = SlicedCollectiveParamsFromPoint(ctx.point());
    if (auto reason = SlicedCollectiveSkipReason(params, ctx.backend())) {
      return RankOutcome::Skip(*std::move(reason));
    }
#if defined(GH_HAVE_CUDA)
    if (ctx.backend() == Backend::kCuda) return RunSlicedCollectiveCuda(ctx, params);
#endif
    return RunSlicedCollectiveHost(ctx, params);
  }
};

}  // namespace

std::string SlicedCollectiveOpName(SlicedCollectiveOp op) { return std::string(EnumToName(op)); }

int64_t SlicedCollectiveParams::output_count(int nranks) const {
  return collective == SlicedCollectiveOp::kAllGather ? count() * nranks : count();
}

SlicedCollectiveParams SlicedCollectiveParamsFromPoint(const Point& point) {
  SlicedCollectiveParams p;
  p.rows = point.GetInt("rows");
  p.cols = point.GetInt("cols");
  p.inner = point.GetInt("inner");
  p.begin = point.GetInt("begin");
  p.end = point.GetInt("end");
  p.slice = point.GetEnum<SliceMode>("slice");
  p.dynamic_stride = point.GetInt("dynamic_stride");
  p.allocator.kind = point.GetEnum<AllocatorKind>("allocator");
  p.allocator.alignment = point.GetInt("alignment");
  p.allocator.offset = point.GetInt("offset");
  p.registration = point.GetEnum<RegistrationKind>("registration");
  p.collective = point.GetEnum<SlicedCollectiveOp>("collective");
  p.fault = point.GetEnum<SlicedFault>("fault");
  p.fault_rank = static_cast<int>(point.GetInt("fault_rank"));
  return p;
}

uint64_t SlicedCollectiveSeed(const Point& point, int trial) {
  return uint64_t(point.index) * 1009 + uint64_t(trial) + 1;
}

std::optional<std::string> SlicedCollectiveSkipReason(const SlicedCollectiveParams& params,
                                                      Backend backend) {
  if (!AllocatorSupports(params.allocator.kind, backend)) {
    return absl::StrCat("allocator ", std::string(EnumToName(params.allocator.kind)), " is not available on the ",
                        std::string(BackendName(backend)), " backend");
  }
  if (!RegistrationSupports(params.registration, backend)) {
    return absl::StrCat("registration ", std::string(EnumToName(params.registration)),
                        " is not available on the ", std::string(BackendName(backend)), " backend");
  }
  if (params.collective == SlicedCollectiveOp::kRingShiftDevice) {
    if (backend != Backend::kCuda) return std::string("ring_shift_device needs the cuda backend");
    if (params.registration != RegistrationKind::kWindowSymmetric) {
      return std::string(
          "ring_shift_device stores into symmetric windows: it needs registration=window_symmetric");
    }
  }
  return std::nullopt;
}

int64_t SliceBeginRow(const SlicedCollectiveParams& params, int rank) {
  if (params.slice == SliceMode::kStatic) return params.begin;
  return params.begin + int64_t(rank) * params.dynamic_stride;
}

std::string SliceBoundsError(const SlicedCollectiveParams& params, int rank, int nranks) {
  int64_t first = SliceBeginRow(params, rank);
  if (params.end <= params.begin) {
    return absl::StrCat("empty slice: end (", params.end, ") <= begin (", params.begin, ")");
  }
  if (first < 0 || first + params.slice_rows() > params.rows) {
    return absl::StrCat("slice rows [", first, ",", first + params.slice_rows(),
                        ") outside the producer's ", params.rows, " rows");
  }
  if (params.inner > kMaxProducerInner || nranks > kMaxExactRanks) {
    return absl::StrCat("inner ", params.inner, " at ", nranks,
                        " ranks: sums would leave f32's exact integers");
  }
  return "";
}

ProducerReference::ProducerReference(int64_t inner, int64_t cols, uint64_t seed)
    : inner_(inner), cols_(cols), seed_(seed), w_(size_t(inner * cols)) {
  for (int64_t k = 0; k < inner; ++k) {
    for (int64_t c = 0; c < cols; ++c) w_[size_t(k * cols + c)] = ProducerW(k, c, seed);
  }
}

std::vector<float> ProducerReference::Row(int rank, int64_t row) const {
  // Integers below 2^24: float accumulation in any order is exact.
  std::vector<float> out(size_t(cols_), 0.0f);
  for (int64_t k = 0; k < inner_; ++k) {
    float a = ProducerA(rank, row, k, seed_);
    if (a == 0.0f) continue;
    const float* w = &w_[size_t(k * cols_)];
    for (int64_t c = 0; c < cols_; ++c) out[size_t(c)] += a * w[c];
  }
  return out;
}

void ProduceOnHost(const SlicedCollectiveParams& params, int rank, uint64_t seed, float* out) {
  ProducerReference reference(params.inner, params.cols, seed);
  for (int64_t r = 0; r < params.rows; ++r) {
    std::vector<float> row = reference.Row(rank, r);
    std::memcpy(out + r * params.cols, row.data(), row.size() * sizeof(float));
  }
}

std::vector<float> ExpectedSlicedOutput(const SlicedCollectiveParams& params, int rank, int nranks,
                                        uint64_t seed) {
  ProducerReference reference(params.inner, params.cols, seed);
  std::vector<float> expected;
  expected.reserve(size_t(params.output_count(nranks)));
  auto append_slice_of = [&](int source) {
    for (int64_t r = 0; r < params.slice_rows(); ++r) {
      std::vector<float> row = reference.Row(source, SliceBeginRow(params, source) + r);
      expected.insert(expected.end(), row.begin(), row.end());
    }
  };
  switch (params.collective) {
    case SlicedCollectiveOp::kRingShift:
    case SlicedCollectiveOp::kRingShiftDevice:
      append_slice_of((rank + nranks - 1) % nranks);
      break;
    case SlicedCollectiveOp::kAllGather:
      for (int source = 0; source < nranks; ++source) append_slice_of(source);
      break;
    case SlicedCollectiveOp::kAllReduce: {
      expected.assign(size_t(params.count()), 0.0f);
      for (int source = 0; source < nranks; ++source) {
        for (int64_t r = 0; r < params.slice_rows(); ++r) {
          std::vector<float> row = reference.Row(source, SliceBeginRow(params, source) + r);
          for (int64_t c = 0; c < params.cols; ++c) expected[size_t(r * params.cols + c)] += row[size_t(c)];
        }
      }
      break;
    }
  }
  return expected;
}

std::optional<Mismatch> CompareSlicedOutput(const std::vector<float>& expected, const float* actual) {
  Mismatch mismatch;
  mismatch.checked_elements = int64_t(expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    if (std::memcmp(&expected[i], &actual[i], sizeof(float)) == 0) continue;
    if (mismatch.wrong_elements++ == 0) {
      mismatch.first_index = int64_t(i);
      mismatch.expected = absl::StrFormat("%g", expected[i]);
      mismatch.actual = absl::StrFormat("%g", actual[i]);
    }
  }
  if (mismatch.wrong_elements == 0) return std::nullopt;
  return mismatch;
}

std::vector<Metric> SliceLayoutMetrics(const Allocation& producer, const void* operand) {
  int64_t slice_offset = static_cast<const char*>(operand) - static_cast<const char*>(producer.base());
  return {
      {"buffer_offset_bytes", double(producer.offset_in_allocation()), "bytes"},
      {"slice_offset_bytes", double(slice_offset), "bytes"},
      {"buffer_alignment_bytes", double(AddressAlignment(producer.data())), "bytes"},
      {"slice_alignment_bytes", double(AddressAlignment(operand)), "bytes"},
  };
}

namespace {

// Allocates the producer's and the collective's buffers; every rank learns whether any rank
// failed. Returns the failure ("" when all ranks succeeded).
std::string AllocateHostBuffers(PointContext& ctx, const SlicedCollectiveParams& params,
                                RegisteredBuffer& producer, RegisteredBuffer& output) {
  ctx.SetStep("allocate");
  auto producer_alloc = AllocateHost(params.allocator, params.producer_bytes());
  auto output_alloc =
      AllocateHost(params.allocator, params.output_count(ctx.nranks()) * int64_t(sizeof(float)));
  std::string failure;
  if (!producer_alloc.ok()) failure = std::string(producer_alloc.status().message());
  if (!output_alloc.ok()) failure = std::string(output_alloc.status().message());
  if (CountFailedRanks(!failure.empty(), ctx.comm()) > 0) {
    return failure.empty() ? "allocation failed on another rank" : failure;
  }
  producer.allocation = *std::move(producer_alloc);
  output.allocation = *std::move(output_alloc);
  return "";
}

// Registers both buffers as the registration axis says; every rank learns whether any rank
// failed. Returns the failure ("" when all ranks succeeded).
std::string RegisterHostBuffers(PointContext& ctx, const SlicedCollectiveParams& params,
                                RegisteredBuffer& producer, RegisteredBuffer& output) {
  ctx.SetStep("register");
  MPI_Comm comm = ctx.comm();
  auto producer_reg = RegisterHost(params.registration, *producer.allocation, comm);
  auto output_reg = RegisterHost(params.registration, *output.allocation, comm);
  std::string failure;
  if (!producer_reg.ok()) failure = std::string(producer_reg.status().message());
  if (!output_reg.ok()) failure = std::string(output_reg.status().message());
  if (producer_reg.ok()) producer.registration = *std::move(producer_reg);
  if (output_reg.ok()) output.registration = *std::move(output_reg);
  if (CountFailedRanks(!failure.empty(), comm) > 0) {
    if (failure.empty()) {
      // Our windows exist but a peer's do not: freeing a window is collective, so drop ours.
      (void)producer.ReleaseWithoutDeregistering();
      (void)output.ReleaseWithoutDeregistering();
      failure = "registration failed on another rank";
    }
    return failure;
  }
  return "";
}

// The warm-ups and the timed iterations of the collective, one wall-clock sample each.
// Returns the first failure ("" when all ran).
std::string TimeHostCollective(PointContext& ctx, const SlicedCollectiveParams& params,
                               const float* operand, float* result, MPI_Win output_window,
                               std::vector<double>& samples) {
  ctx.SetStep("collective", EnumToName(params.collective).data(),
              params.count() * int64_t(sizeof(float)));
  const int total = ctx.warmup() + std::max(ctx.iterations(), 1);
  for (int i = 0; i < total; ++i) {
    auto start = std::chrono::steady_clock::now();
    std::string failure = HostCollective(params, operand, result, output_window, ctx.rank(),
                                         ctx.nranks(), ctx.comm());
    auto stop = std::chrono::steady_clock::now();
    if (!failure.empty()) return failure;
    if (i >= ctx.warmup()) {
      samples.push_back(std::chrono::duration<double, std::micro>(stop - start).count());
    }
  }
  return "";
}

}  // namespace

RankOutcome RunSlicedCollectiveHost(PointContext& ctx, const SlicedCollectiveParams& params) {
  RankOutcome out;
  out.rank = ctx.rank();
  const int rank = ctx.rank(), nranks = ctx.nranks();
  MPI_Comm comm = ctx.comm();
  const uint64_t seed = SlicedCollectiveSeed(ctx.point(), ctx.trial());

  RegisteredBuffer producer, output;
  std::string failure = AllocateHostBuffers(ctx, params, producer, output);
  if (!failure.empty()) return ErrorKeepingMetrics(std::move(out), failure, "allocate");
  failure = RegisterHostBuffers(ctx, params, producer, output);
  if (!failure.empty()) return ErrorKeepingMetrics(std::move(out), failure, "register");
  MPI_Win output_window = output.registration->mpi_window();
  if (output_window != MPI_WIN_NULL) MPI_Win_set_errhandler(output_window, MPI_ERRORS_RETURN);

  ctx.SetStep("produce");
  auto* produced = static_cast<float*>(producer.allocation->data());
  ProduceOnHost(params, rank, seed, produced);
  // A dynamic slice's first row lives in memory the producer writes; the collective reads it
  // back at run time, as a kernel reads an offset from a device buffer.
  volatile int64_t begin_cell = SliceBeginRow(params, rank);
  int64_t begin_row = begin_cell;
  if (params.fault == SlicedFault::kWrongSlice && params.fault_rank == rank) {
    begin_row += begin_row + params.slice_rows() < params.rows ? 1 : -1;
  }
  failure = SliceBoundsError(params, rank, nranks);
  if (CountFailedRanks(!failure.empty(), comm) > 0) {
    if (failure.empty()) {
      RankOutcome skip = RankOutcome::Skip("another rank's slice is out of bounds");
      skip.step = "slice";
      return skip;
    }
    return ErrorKeepingMetrics(std::move(out), failure, "slice");
  }
  const float* operand = produced + begin_row * params.cols;
  auto* result = static_cast<float*>(output.allocation->data());
  std::memset(result, kPoisonByte, size_t(output.allocation->bytes()));

  std::vector<double> samples;
  failure = TimeHostCollective(ctx, params, operand, result, output_window, samples);
  if (!failure.empty()) return ErrorKeepingMetrics(std::move(out), failure, "collective");

  ctx.SetStep("verify");
  if (params.fault == SlicedFault::kCorruptElement && params.fault_rank == rank) {
    reinterpret_cast<uint32_t*>(result)[params.output_count(nranks) / 2] ^= 0x00400000u;
  }
  std::vector<float> expected = ExpectedSlicedOutput(params, rank, nranks, seed);
  std::optional<Mismatch> mismatch = CompareSlicedOutput(expected, result);

  int64_t algorithm_bytes = params.output_count(nranks) * int64_t(sizeof(float));
  out.metrics = TimingMetrics(SummarizeTimings(samples), double(algorithm_bytes));
  out.metrics.push_back({"checked_elements", double(expected.size()), "count"});
  for (Metric& m : SliceLayoutMetrics(*producer.allocation, operand)) out.metrics.push_back(m);

  ctx.SetStep("release");
  absl::Status released = producer.Release();
  released.Update(output.Release());
  if (mismatch) {
    RankOutcome fail = RankOutcome::Fail(absl::StrCat("wrong data: ", mismatch->wrong_elements,
                                                      " of ", mismatch->checked_elements,
                                                      " elements"));
    fail.metrics = std::move(out.metrics);
    fail.mismatch = *mismatch;
    return fail;
  }
  if (!released.ok()) return ErrorKeepingMetrics(std::move(out), released, "release");
  out.outcome = Outcome::kPass;
  return out;
}

namespace {

KindInfo DescribeSlicedCollective() {
  KindInfo info;
  info.name = "sliced_collective";
  info.description =
      "A collective whose operand is a static or dynamic row slice of a producer's output "
      "(GEMM on cuda), over an allocator x registration x collective matrix; every rank "
      "verifies element by element.";
  info.params =
      ParamsBuilder()
          .Int("rows", 19, "producer output rows").Range(1, 1 << 20)
          .Int("cols", 256, "producer output columns (f32)").Range(1, 1 << 20)
          .Int("inner", 256, "GEMM inner dimension").Range(1, double(kMaxProducerInner))
          .Int("begin", 0, "first row of the slice").Min(0)
          .Int("end", 15, "one past the slice's last row").Min(1)
          .Enum("slice", SliceMode::kStatic,
                "static: offset fixed; dynamic: first row read from memory at run time")
          .Int("dynamic_stride", 0,
               "dynamic slices: rank r's first row is begin + r * dynamic_stride")
          .Min(0)
          .Enum("allocator", AllocatorKind::kArena,
                "where the producer's output and the collective's output live")
          .Bytes("alignment", 256, "arena: pieces start at multiples of this").Min(1)
          .Bytes("offset", 0,
                 "bytes before the producer's buffer in its allocation (arena: rounded up to "
                 "alignment)")
          .Min(0)
          .Enum("registration", RegistrationKind::kNone,
                "how the producer and output buffers are registered")
          .Enum("collective", SlicedCollectiveOp::kRingShift, "the collective on the slice")
          .Enum("fault", SlicedFault::kNone, "a deliberate fault, to test the harness")
          .Int("fault_rank", 0, "the rank that misbehaves").Min(0)
          .Build();
  info.backends = HostAndCudaBackends();
  info.ranks = RankRequirement{1, INT_MAX};
  info.make = [] { return std::unique_ptr<Scenario>(new SlicedCollectiveScenario()); };
  return info;
}

}  // namespace

GH_REGISTER_SCENARIO(sliced_collective, DescribeSlicedCollective);

}  // namespace gh
