// windowed_einsum on the cuda backend: NCCL for the all-gather (monolithic) or the ring steps
// (windowed variants), cuBLASLt for every GEMM, CUDA events for timing. The ring follows
// window_schedule.h; the multistream variant runs communication on a second, higher-priority
// stream joined to the compute stream by events, double-buffered like TransformerEngine's
// split_overlap_ag.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/core/status_macros.h"
#include "harness/core/timing_stats.h"
#include "harness/runtime/cuda_errors_cuda.h"
#include "harness/runtime/cuda_resources.h"
#include "harness/runtime/mpi_errors.h"
#include "harness/runtime/point_context.h"
#include "harness/scenarios/cuda_point_status_cuda.h"
#include "harness/scenarios/device_buffer_cuda.h"
#include "harness/scenarios/einsum_gemm_cuda.h"
#include "harness/scenarios/window_schedule.h"
#include "harness/scenarios/windowed_einsum.h"

namespace gh {
namespace {

// Device data: integers in [-127, 127] times 2^-7, exact in bf16 and f32, mean zero.
constexpr int kCudaRange = 127;
constexpr float kCudaScale = 1.0f / 128;
// Rows (and columns) of the monolithic output checked against the double-precision reference.
constexpr int kReferenceRows = 16;
constexpr int kReferenceRowsChained = 4;
constexpr int kReferenceCols = 512;

constexpr int kThreads = 256;
int Blocks(int64_t n) { return static_cast<int>(std::min<int64_t>((n + kThreads - 1) / kThreads, 4096)); }

__global__ void GenerateKernel(void* out, bool bf16, EinsumTensor tensor, int owner, int64_t count,
                               uint64_t seed) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < count;
       i += int64_t{gridDim.x} * blockDim.x) {
    float v = static_cast<float>(EinsumInt(tensor, owner, static_cast<uint64_t>(i), seed,
                                           kCudaRange)) * kCudaScale;
    if (bf16) {
      static_cast<uint16_t*>(out)[i] = FloatToBf16Bits(v);
    } else {
      static_cast<float*>(out)[i] = v;
    }
  }
}

// out = a + b (out may alias a): the reduce-scatter's running sum.
__global__ void AddKernel(const float* a, const float* b, float* out, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x) {
    out[i] = a[i] + b[i];
  }
}

__device__ inline float ElementValue(const float* p, int64_t i) { return p[i]; }
__device__ inline float ElementValue(const uint16_t* p, int64_t i) { return Bf16BitsToFloat(p[i]); }
__device__ inline uint32_t ElementBits(const float* p, int64_t i) { return __float_as_uint(p[i]); }
__device__ inline uint32_t ElementBits(const uint16_t* p, int64_t i) { return p[i]; }

struct CompareCounters {
  unsigned long long bit_mismatches;
  unsigned long long violations;
  unsigned long long first_violation;  // ULLONG_MAX when none
  double sum_squares;
};

template <typename T>
__global__ void SumSquaresKernel(const T* want, int64_t n, CompareCounters* c) {
  double local = 0;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x) {
    double v = ElementValue(want, i);
    local += v * v;
  }
  atomicAdd(&c->sum_squares, local);
}

// Element by element: bitwise differences, and differences beyond tol * (|want| + rms).
template <typename T>
__global__ void CompareKernel(const T* got, const T* want, int64_t n, double tol, double rms,
                              CompareCounters* c) {
  unsigned long long bits = 0, bad = 0, first = ULLONG_MAX;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x) {
    if (ElementBits(got, i) == ElementBits(want, i)) continue;
    ++bits;
    double g = ElementValue(got, i), w = ElementValue(want, i);
    if (!(fabs(g - w) <= tol * (fabs(w) + rms))) {  // NaN counts as a violation
      ++bad;
      if (static_cast<unsigned long long>(i) < first) first = static_cast<unsigned long long>(i);
    }
  }
  if (bits != 0) atomicAdd(&c->bit_mismatches, bits);
  if (bad != 0) {
    atomicAdd(&c->violations, bad);
    atomicMin(&c->first_violation, first);
  }
}

// The communication stream and the events that join it to the compute stream: once per device
// and process, like the GEMM engine (never destroyed; see GemmEngine::ForDevice).
struct StreamSet {
  cudaStream_t comm = nullptr;
  cudaEvent_t fork = nullptr, join = nullptr;
  cudaEvent_t gemm_done[2] = {}, comm_done[2] = {}, rs_comm_done[2] = {};
};

absl::StatusOr<StreamSet*> StreamsForDevice(int device) {
  static std::map<int, StreamSet*>* sets = new std::map<int, StreamSet*>();
  auto it = sets->find(device);
  if (it != sets->end()) return it->second;
  auto* s = new StreamSet();
  int least = 0, greatest = 0;
  GH_CUDA_RETURN_IF_ERROR(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  // Higher priority for communication, so that its kernels get SMs while a GEMM is running.
  GH_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithPriority(&s->comm, cudaStreamNonBlocking, greatest));
  for (cudaEvent_t* e : {&s->fork, &s->join, &s->gemm_done[0], &s->gemm_done[1], &s->comm_done[0],
                         &s->comm_done[1], &s->rs_comm_done[0], &s->rs_comm_done[1]}) {
    GH_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
  }
  (*sets)[device] = s;
  return s;
}

// What one enqueue includes: everything, the GEMMs alone, or the communication alone.
enum class Part { kAll, kGemmOnly, kCommOnly };

class CudaEinsum {
 public:
  CudaEinsum(const WindowedEinsumParams& p, int rank, int tp, uint64_t seed, ncclComm_t nccl,
             cudaStream_t stream, StreamSet* streams, GemmEngine* engine)
      : p_(p), rank_(rank), tp_(tp), seed_(seed), nccl_(nccl), main_(stream), streams_(streams),
        engine_(engine), m_(p.m_shard), n_(p.n_shard), k_(p.k),
        esize_(p.dtype == EinsumDtype::kF32 ? 4 : 2),
        nccl_type_(p.dtype == EinsumDtype::kF32 ? ncclFloat32 : ncclBfloat16) {}

  absl::Status Prepare() {
    const size_t shard = static_cast<size_t>(m_ * k_) * esize_;
    GH_RETURN_IF_ERROR(x_.Allocate(shard));
    GH_RETURN_IF_ERROR(x_full_.Allocate(shard * tp_));
    GH_RETURN_IF_ERROR(window_[0].Allocate(shard));
    GH_RETURN_IF_ERROR(window_[1].Allocate(shard));
    GH_RETURN_IF_ERROR(w1_.Allocate(static_cast<size_t>(k_ * n_) * esize_));
    const size_t h_bytes = static_cast<size_t>(tp_ * m_ * n_) * esize_;
    GH_RETURN_IF_ERROR(h_mono_.Allocate(h_bytes));
    GH_RETURN_IF_ERROR(h_var_.Allocate(h_bytes));
    GemmType t = p_.dtype == EinsumDtype::kF32 ? GemmType::kF32 : GemmType::kBF16;
    // Blocks of h start at multiples of m * n elements; x, w and the windows are whole buffers.
    const int align = CommonAlignment({m_ * n_ * esize_});
    auto block = engine_->Plan({m_, k_, n_, t, t, false, align});
    auto full = engine_->Plan({tp_ * m_, k_, n_, t, t, false, align});
    if (!block.ok()) return block.status();
    if (!full.ok()) return full.status();
    block_plan_ = *block;
    full_plan_ = *full;
    if (p_.layers == 2) {
      const size_t y_bytes = static_cast<size_t>(m_ * k_) * sizeof(float);
      GH_RETURN_IF_ERROR(w2_.Allocate(static_cast<size_t>(n_ * k_) * esize_));
      GH_RETURN_IF_ERROR(partial_full_.Allocate(y_bytes * tp_));
      GH_RETURN_IF_ERROR(y_mono_.Allocate(y_bytes));
      GH_RETURN_IF_ERROR(y_var_.Allocate(y_bytes));
      for (int i = 0; i < 2; ++i) {
        GH_RETURN_IF_ERROR(partial_[i].Allocate(y_bytes));
        GH_RETURN_IF_ERROR(received_[i].Allocate(y_bytes));
      }
      auto block2 = engine_->Plan({m_, n_, k_, t, GemmType::kF32, false, align});
      auto full2 = engine_->Plan({tp_ * m_, n_, k_, t, GemmType::kF32, false, align});
      if (!block2.ok()) return block2.status();
      if (!full2.ok()) return full2.status();
      block2_plan_ = *block2;
      full2_plan_ = *full2;
    }
    const bool bf16 = p_.dtype == EinsumDtype::kBF16;
    GenerateKernel<<<Blocks(m_ * k_), kThreads, 0, main_>>>(x_.get(), bf16, EinsumTensor::kX,
                                                            rank_, m_ * k_, seed_);
    GenerateKernel<<<Blocks(k_ * n_), kThreads, 0, main_>>>(w1_.get(), bf16, EinsumTensor::kW1,
                                                            rank_, k_ * n_, seed_);
    if (p_.layers == 2) {
      GenerateKernel<<<Blocks(n_ * k_), kThreads, 0, main_>>>(w2_.get(), bf16, EinsumTensor::kW2,
                                                              rank_, n_ * k_, seed_);
    }
    GH_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    return absl::OkStatus();
  }

  // Whether the block GEMM and the whole-matrix GEMM run the same algorithm: then each output
  // block is the same computation in every variant, and equality must be bitwise.
  bool SameComputation() const {
    return p_.layers == 1 && GemmEngine::SameAlgorithm(*block_plan_, *full_plan_);
  }

  absl::Status PoisonOutputs() {
    for (DeviceBuffer* b : {&x_full_, &window_[0], &window_[1], &h_mono_, &h_var_, &partial_full_,
                            &y_mono_, &y_var_, &partial_[0], &partial_[1], &received_[0],
                            &received_[1]}) {
      if (b->get() != nullptr) {
        GH_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(b->get(), kPoisonByte, b->bytes(), main_));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Enqueue(EinsumVariant variant, Part part, bool stale_window) {
    if (variant == EinsumVariant::kMonolithic) return EnqueueMonolithic(part);
    return EnqueueWindowed(variant == EinsumVariant::kWindowedMultistream, part, stale_window);
  }

  // The verified output of a variant: layer 1 [M x n] in the dtype, or y [m x k] in f32.
  const void* Output(EinsumVariant variant) const {
    bool mono = variant == EinsumVariant::kMonolithic;
    if (p_.layers == 2) return mono ? y_mono_.get() : y_var_.get();
    return mono ? h_mono_.get() : h_var_.get();
  }
  int64_t OutputElements() const { return p_.layers == 2 ? m_ * k_ : tp_ * m_ * n_; }
  bool OutputIsBf16() const { return p_.layers == 1 && p_.dtype == EinsumDtype::kBF16; }

  // Adds one to an element of the variant's output, as a fault would.
  absl::Status CorruptOneElement(EinsumVariant variant) {
    char* out = static_cast<char*>(const_cast<void*>(Output(variant)));
    const int64_t index = OutputElements() / 2;
    if (OutputIsBf16()) {
      uint16_t bits = 0;
      GH_CUDA_RETURN_IF_ERROR(cudaMemcpy(&bits, out + index * 2, 2, cudaMemcpyDeviceToHost));
      bits = FloatToBf16Bits(Bf16BitsToFloat(bits) + 1.f);
      GH_CUDA_RETURN_IF_ERROR(cudaMemcpy(out + index * 2, &bits, 2, cudaMemcpyHostToDevice));
    } else {
      float v = 0;
      GH_CUDA_RETURN_IF_ERROR(cudaMemcpy(&v, out + index * 4, 4, cudaMemcpyDeviceToHost));
      v += 1.f;
      GH_CUDA_RETURN_IF_ERROR(cudaMemcpy(out + index * 4, &v, 4, cudaMemcpyHostToDevice));
    }
    return absl::OkStatus();
  }

 private:

  absl::Status Gemm(const GemmPlan* plan, const void* a, const void* b, void* d, cudaStream_t s) {
    return engine_->Run(*plan, a, b, nullptr, d, s);
  }

  absl::Status EnqueueMonolithic(Part part) {
    const bool comm = part != Part::kGemmOnly, gemm = part != Part::kCommOnly;
    if (comm) {
      GH_NCCL_RETURN_IF_ERROR(nccl_, ncclAllGather(x_.get(), x_full_.get(),
                                                   static_cast<size_t>(m_ * k_), nccl_type_,
                                                   nccl_, main_));
    }
    if (gemm) GH_RETURN_IF_ERROR(Gemm(full_plan_, x_full_.get(), w1_.get(), h_mono_.get(), main_));
    if (p_.layers == 1) return absl::OkStatus();
    if (gemm) {
      GH_RETURN_IF_ERROR(Gemm(full2_plan_, h_mono_.get(), w2_.get(), partial_full_.get(), main_));
    }
    if (comm) {
      GH_NCCL_RETURN_IF_ERROR(nccl_, ncclReduceScatter(partial_full_.get(), y_mono_.get(),
                                                       static_cast<size_t>(m_ * k_), ncclFloat32,
                                                       ncclSum, nccl_, main_));
    }
    return absl::OkStatus();
  }

  // One ring step's exchange: send `send` to the next rank, receive into `recv` from the last.
  absl::Status Exchange(const void* send, void* recv, size_t count, ncclDataType_t type,
                        int to, int from, cudaStream_t s) {
    GH_NCCL_RETURN_IF_ERROR(nccl_, ncclGroupStart());
    ncclResult_t a = ncclSend(send, count, type, to, nccl_, s);
    ncclResult_t b = ncclRecv(recv, count, type, from, nccl_, s);
    ncclResult_t c = ncclGroupEnd();
    GH_NCCL_RETURN_IF_ERROR(nccl_, a);
    GH_NCCL_RETURN_IF_ERROR(nccl_, b);
    GH_NCCL_RETURN_IF_ERROR(nccl_, c);
    return absl::OkStatus();
  }

  // The windowed all-gather + GEMM (and, chained, the windowed GEMM + reduce-scatter). With
  // `multistream` the exchanges run on the communication stream; otherwise everything runs on
  // the compute stream in the same order, and the event waits below are no-ops.
  absl::Status EnqueueWindowed(bool multistream, Part part, bool stale_window) {
    const bool comm = part != Part::kGemmOnly, gemm = part != Part::kCommOnly;
    cudaStream_t cs = multistream ? streams_->comm : main_;
    StreamSet& ev = *streams_;
    GH_CUDA_RETURN_IF_ERROR(cudaEventRecord(ev.fork, main_));
    GH_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(cs, ev.fork, 0));

    const size_t shard_count = static_cast<size_t>(m_ * k_);
    const char* current = x_.bytes_ptr();
    for (const AllGatherStep& step : AllGatherSchedule(rank_, tp_)) {
      const int s = step.step;
      char* next = window_[(s + 1) % 2].bytes_ptr();
      if (step.communicates && comm) {
        // `next` was the shard computed at step s-1: its GEMM must be done before overwriting.
        if (s > 0 && gemm) GH_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(cs, ev.gemm_done[(s - 1) % 2], 0));
        GH_RETURN_IF_ERROR(Exchange(current, next, shard_count, nccl_type_, step.send_to,
                                     step.recv_from, cs));
        GH_CUDA_RETURN_IF_ERROR(cudaEventRecord(ev.comm_done[s % 2], cs));
      }
      if (gemm) {
        // The shard in hand arrived at step s-1.
        if (s > 0 && comm) GH_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(main_, ev.comm_done[(s - 1) % 2], 0));
        char* out = h_var_.bytes_ptr() + static_cast<size_t>(step.held_shard * m_ * n_) * esize_;
        GH_RETURN_IF_ERROR(Gemm(block_plan_, current, w1_.get(), out, main_));
        GH_CUDA_RETURN_IF_ERROR(cudaEventRecord(ev.gemm_done[s % 2], main_));
      }
      // The fault: window 1 is computed on the shard already used, not on the one received.
      if (!(stale_window && s == 0)) current = next;
    }

    if (p_.layers == 2) {
      const size_t y_count = static_cast<size_t>(m_ * k_);
      for (const ReduceScatterStep& step : ReduceScatterSchedule(rank_, tp_)) {
        const int s = step.step;
        float* target = tp_ == 1 ? y_var_.f32() : partial_[s % 2].f32();
        if (gemm) {
          // partial_[s % 2] was sent at step s-2.
          if (s >= 2 && comm) GH_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(main_, ev.rs_comm_done[s % 2], 0));
          const char* h_block = h_var_.bytes_ptr() + static_cast<size_t>(step.block * m_ * n_) * esize_;
          GH_RETURN_IF_ERROR(Gemm(block2_plan_, h_block, w2_.get(), target, main_));
          GH_CUDA_RETURN_IF_ERROR(cudaEventRecord(ev.gemm_done[s % 2], main_));
        }
        if (tp_ == 1 || !comm) continue;
        if (gemm) GH_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(cs, ev.gemm_done[s % 2], 0));
        if (step.adds_received) {
          float* sum = step.communicates ? target : y_var_.f32();
          AddKernel<<<Blocks(static_cast<int64_t>(y_count)), kThreads, 0, cs>>>(
              target, received_[(s - 1) % 2].f32(), sum, static_cast<int64_t>(y_count));
          GH_CUDA_RETURN_IF_ERROR(cudaGetLastError());
        }
        if (step.communicates) {
          GH_RETURN_IF_ERROR(Exchange(target, received_[s % 2].get(), y_count, ncclFloat32,
                                       step.send_to, step.recv_from, cs));
          GH_CUDA_RETURN_IF_ERROR(cudaEventRecord(ev.rs_comm_done[s % 2], cs));
        }
      }
    }
    GH_CUDA_RETURN_IF_ERROR(cudaEventRecord(ev.join, cs));
    GH_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(main_, ev.join, 0));
    return absl::OkStatus();
  }

  const WindowedEinsumParams p_;
  const int rank_, tp_;
  const uint64_t seed_;
  ncclComm_t nccl_;
  cudaStream_t main_;
  StreamSet* streams_;
  GemmEngine* engine_;
  const int64_t m_, n_, k_;
  const int esize_;
  const ncclDataType_t nccl_type_;
  DeviceBuffer x_, x_full_, window_[2], w1_, h_mono_, h_var_;
  DeviceBuffer w2_, partial_full_, y_mono_, y_var_, partial_[2], received_[2];
  const GemmPlan *block_plan_ = nullptr, *full_plan_ = nullptr;
  const GemmPlan *block2_plan_ = nullptr, *full2_plan_ = nullptr;
};

// Times `enqueue` with CUDA events on the compute stream: `warmup` untimed runs, then
// `iterations` timed ones, one event pair each.
absl::StatusOr<TimingStats> TimeOnDevice(CudaResources& cuda, int warmup, int iterations,
                                         const std::function<absl::Status()>& enqueue) {
  cudaStream_t s = cuda.stream();
  for (int i = 0; i < warmup; ++i) {
    if (absl::Status st = enqueue(); !st.ok()) return st;
  }
  std::vector<cudaEvent_t> events(2 * static_cast<size_t>(iterations));
  for (cudaEvent_t& e : events) GH_CUDA_RETURN_IF_ERROR(cudaEventCreate(&e));
  auto destroy = [&] {
    for (cudaEvent_t e : events) cudaEventDestroy(e);
  };
  for (int i = 0; i < iterations; ++i) {
    cudaEventRecord(events[2 * i], s);
    if (absl::Status st = enqueue(); !st.ok()) {
      destroy();
      return st;
    }
    cudaEventRecord(events[2 * i + 1], s);
  }
  if (absl::Status st = cuda.Synchronize(); !st.ok()) {
    destroy();
    return st;
  }
  std::vector<double> samples;
  for (int i = 0; i < iterations; ++i) {
    float ms = 0;
    cudaEventElapsedTime(&ms, events[2 * i], events[2 * i + 1]);
    samples.push_back(ms * 1e3);
  }
  destroy();
  return SummarizeTimings(samples);
}

// Whether any two ranks of the job drive the same GPU (host and PCI bus id gathered over MPI):
// then NCCL talks over sockets and no timing is an overlap result.
absl::StatusOr<bool> GpuShared(int device, MPI_Comm comm) {
  struct Identity {
    char host[64];
    char bus[32];
  } me{}, *all = nullptr;
  gethostname(me.host, sizeof(me.host) - 1);
  GH_CUDA_RETURN_IF_ERROR(cudaDeviceGetPCIBusId(me.bus, sizeof(me.bus) - 1, device));
  int n = 0;
  MPI_Comm_size(comm, &n);
  std::vector<Identity> ids(static_cast<size_t>(n));
  all = ids.data();
  int rc = MPI_Allgather(&me, sizeof(me), MPI_BYTE, all, sizeof(me), MPI_BYTE, comm);
  if (rc != MPI_SUCCESS) return absl::InternalError(MpiErrorSignature(rc));
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      if (std::strcmp(ids[i].host, ids[j].host) == 0 && std::strcmp(ids[i].bus, ids[j].bus) == 0) {
        return true;
      }
    }
  }
  return false;
}

std::string FormatValue(double v) { return absl::StrFormat("%.9g", v); }

// Host value of a generated element, for the reference.
inline double HostValue(EinsumTensor t, int owner, uint64_t index, uint64_t seed) {
  return EinsumInt(t, owner, index, seed, kCudaRange) * static_cast<double>(kCudaScale);
}
// A value rounded as the device stores it in the dtype.
inline double RoundToDtype(double v, EinsumDtype dtype) {
  float f = static_cast<float>(v);
  return dtype == EinsumDtype::kBF16 ? Bf16BitsToFloat(FloatToBf16Bits(f)) : f;
}

struct ReferenceCheck {
  int64_t checked = 0;
  std::optional<Mismatch> mismatch;
  double max_rel_error = 0;  // |got - ref| / (|ref| + abs_sum * 2^-10), for the record
};

std::vector<int64_t> Spread(int64_t count, int64_t total) {
  std::vector<int64_t> picks;
  count = std::min(count, total);
  for (int64_t i = 0; i < count; ++i) {
    picks.push_back(count == 1 ? 0 : (i * (total - 1)) / (count - 1));
  }
  return picks;
}

// Judges sampled elements against the reference within the dtype's bound, keeping the first
// wrong one.
class ReferenceJudge {
 public:
  explicit ReferenceJudge(EinsumDtype dtype) : bounds_(BoundsFor(dtype)) {}

  void operator()(int64_t index, double got, double ref, double abs_sum) {
    ++check_.checked;
    double err = std::fabs(got - ref);
    check_.max_rel_error =
        std::max(check_.max_rel_error, err / (std::fabs(ref) + abs_sum / 1024 + 1e-30));
    if (err <= bounds_.ref_rel * std::fabs(ref) + bounds_.ref_abs_sum * abs_sum) return;
    if (mm_.wrong_elements++ == 0) {
      mm_.first_index = index;
      mm_.expected = FormatValue(ref);
      mm_.actual = FormatValue(got);
    }
  }

  ReferenceCheck Finish() {
    mm_.checked_elements = check_.checked;
    if (mm_.wrong_elements > 0) check_.mismatch = mm_;
    return check_;
  }

 private:
  EinsumBounds bounds_;
  ReferenceCheck check_;
  Mismatch mm_;
};

// One layer: y = x @ w1 over the all-gathered rows, sampled rows and columns of the whole output.
absl::Status CheckOneLayer(const WindowedEinsumParams& p, int rank, int tp, uint64_t seed,
                           const void* output, ReferenceJudge& judge) {
  const int64_t m = p.m_shard, n = p.n_shard, k = p.k, M = m * tp;
  const std::vector<int64_t> rows = Spread(kReferenceRows, M), cols = Spread(kReferenceCols, n);
  // w1's sampled columns, generated once.
  std::vector<double> w1(static_cast<size_t>(k) * cols.size());
  for (int64_t kk = 0; kk < k; ++kk) {
    for (size_t c = 0; c < cols.size(); ++c) {
      w1[kk * cols.size() + c] = HostValue(EinsumTensor::kW1, rank, kk * n + cols[c], seed);
    }
  }
  const int esize = p.dtype == EinsumDtype::kF32 ? 4 : 2;
  std::vector<char> row_bytes(static_cast<size_t>(n) * esize);
  std::vector<double> x(static_cast<size_t>(k));
  for (int64_t row : rows) {
    GH_CUDA_RETURN_IF_ERROR(cudaMemcpy(row_bytes.data(),
                                       static_cast<const char*>(output) + row * n * esize,
                                       row_bytes.size(), cudaMemcpyDeviceToHost));
    const int owner = static_cast<int>(row / m);
    for (int64_t kk = 0; kk < k; ++kk) {
      x[kk] = HostValue(EinsumTensor::kX, owner, (row % m) * k + kk, seed);
    }
    for (size_t c = 0; c < cols.size(); ++c) {
      double ref = 0, abs_sum = 0;
      for (int64_t kk = 0; kk < k; ++kk) {
        double prod = x[kk] * w1[kk * cols.size() + c];
        ref += prod;
        abs_sum += std::fabs(prod);
      }
      double got;
      if (esize == 4) {
        float f;
        std::memcpy(&f, row_bytes.data() + cols[c] * 4, 4);
        got = f;
      } else {
        uint16_t b;
        std::memcpy(&b, row_bytes.data() + cols[c] * 2, 2);
        got = Bf16BitsToFloat(b);
      }
      judge(row * n + cols[c], got, ref, abs_sum);
    }
  }
  return absl::OkStatus();
}

// The chained layers' reference and its magnitude at sampled rows and columns, row-major.
struct ChainedReference {
  std::vector<double> ref, abs_sum;
};

// y[row] = sum over ranks j of round(x[row] @ w1_j) @ w2_j, for `rows` of this rank's block.
ChainedReference ChainedLayersReference(const WindowedEinsumParams& p, int rank, int tp,
                                        uint64_t seed, const std::vector<int64_t>& rows,
                                        const std::vector<int64_t>& cols) {
  const int64_t n = p.n_shard, k = p.k;
  std::vector<std::vector<double>> x(rows.size(), std::vector<double>(static_cast<size_t>(k)));
  for (size_t r = 0; r < rows.size(); ++r) {
    for (int64_t kk = 0; kk < k; ++kk) {
      x[r][kk] = HostValue(EinsumTensor::kX, rank, rows[r] * k + kk, seed);
    }
  }
  ChainedReference out{std::vector<double>(rows.size() * cols.size(), 0),
                       std::vector<double>(rows.size() * cols.size(), 0)};
  std::vector<double> w1(static_cast<size_t>(k * n)), h(static_cast<size_t>(n));
  for (int j = 0; j < tp; ++j) {
    for (int64_t i = 0; i < k * n; ++i) w1[i] = HostValue(EinsumTensor::kW1, j, i, seed);
    for (size_t r = 0; r < rows.size(); ++r) {
      std::fill(h.begin(), h.end(), 0.0);
      for (int64_t kk = 0; kk < k; ++kk) {
        const double xv = x[r][kk];
        const double* wrow = &w1[kk * n];
        for (int64_t c = 0; c < n; ++c) h[c] += xv * wrow[c];
      }
      for (int64_t c = 0; c < n; ++c) h[c] = RoundToDtype(h[c], p.dtype);
      for (size_t c = 0; c < cols.size(); ++c) {
        double sum = 0, abs = 0;
        for (int64_t nn = 0; nn < n; ++nn) {
          double prod = h[nn] * HostValue(EinsumTensor::kW2, j, nn * k + cols[c], seed);
          sum += prod;
          abs += std::fabs(prod);
        }
        out.ref[r * cols.size() + c] += sum;
        out.abs_sum[r * cols.size() + c] += abs;
      }
    }
  }
  return out;
}

absl::Status CheckChainedLayers(const WindowedEinsumParams& p, int rank, int tp, uint64_t seed,
                                const void* output, ReferenceJudge& judge) {
  const int64_t k = p.k;
  const std::vector<int64_t> rows = Spread(kReferenceRowsChained, p.m_shard),
                             cols = Spread(kReferenceCols, k);
  const ChainedReference reference = ChainedLayersReference(p, rank, tp, seed, rows, cols);
  std::vector<float> row(static_cast<size_t>(k));
  for (size_t r = 0; r < rows.size(); ++r) {
    GH_CUDA_RETURN_IF_ERROR(cudaMemcpy(row.data(), static_cast<const float*>(output) + rows[r] * k,
                                       row.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t c = 0; c < cols.size(); ++c) {
      judge(rows[r] * k + cols[c], row[cols[c]], reference.ref[r * cols.size() + c],
            reference.abs_sum[r * cols.size() + c]);
    }
  }
  return absl::OkStatus();
}

// The monolithic output against a double-precision reference on sampled rows and columns.
absl::StatusOr<ReferenceCheck> CheckAgainstReference(const WindowedEinsumParams& p, int rank,
                                                     int tp, uint64_t seed, const void* output) {
  ReferenceJudge judge(p.dtype);
  GH_RETURN_IF_ERROR(p.layers == 1 ? CheckOneLayer(p, rank, tp, seed, output, judge)
                                   : CheckChainedLayers(p, rank, tp, seed, output, judge));
  return judge.Finish();
}

struct PairCheck {
  int64_t bit_mismatches = 0;
  std::optional<Mismatch> mismatch;
};

// The variant's output against the monolithic one, on the device: bitwise when `bitwise`,
// else within the dtype's bound.
absl::StatusOr<PairCheck> CheckAgainstMonolithic(const WindowedEinsumParams& p, CudaEinsum& e,
                                                 EinsumVariant variant, bool bitwise,
                                                 cudaStream_t s) {
  const int64_t n = e.OutputElements();
  CompareCounters init{0, 0, ULLONG_MAX, 0.0}, got{};
  CompareCounters* dev = nullptr;
  GH_CUDA_RETURN_IF_ERROR(cudaMalloc(&dev, sizeof(CompareCounters)));
  auto cleanup = [&] { cudaFree(dev); };
  cudaMemcpyAsync(dev, &init, sizeof(init), cudaMemcpyHostToDevice, s);
  const double tol = bitwise ? 0.0 : BoundsFor(p.dtype).pair_rel;
  const void* want = e.Output(EinsumVariant::kMonolithic);
  const void* have = e.Output(variant);
  if (e.OutputIsBf16()) {
    auto* w = static_cast<const uint16_t*>(want);
    SumSquaresKernel<<<Blocks(n), kThreads, 0, s>>>(w, n, dev);
  } else {
    SumSquaresKernel<<<Blocks(n), kThreads, 0, s>>>(static_cast<const float*>(want), n, dev);
  }
  cudaError_t err = cudaMemcpyAsync(&got, dev, sizeof(got), cudaMemcpyDeviceToHost, s);
  if (err == cudaSuccess) err = cudaStreamSynchronize(s);
  if (err != cudaSuccess) {
    cleanup();
    return CudaStatus(err, "SumSquaresKernel", GH_CUDA_WHERE);
  }
  const double rms = std::sqrt(got.sum_squares / std::max<int64_t>(n, 1));
  if (e.OutputIsBf16()) {
    CompareKernel<<<Blocks(n), kThreads, 0, s>>>(static_cast<const uint16_t*>(have),
                                                  static_cast<const uint16_t*>(want), n, tol, rms, dev);
  } else {
    CompareKernel<<<Blocks(n), kThreads, 0, s>>>(static_cast<const float*>(have),
                                                  static_cast<const float*>(want), n, tol, rms, dev);
  }
  err = cudaMemcpyAsync(&got, dev, sizeof(got), cudaMemcpyDeviceToHost, s);
  if (err == cudaSuccess) err = cudaStreamSynchronize(s);
  cleanup();
  if (err != cudaSuccess) return CudaStatus(err, "CompareKernel", GH_CUDA_WHERE);
  PairCheck check;
  check.bit_mismatches = static_cast<int64_t>(got.bit_mismatches);
  if (got.violations > 0) {
    Mismatch mm;
    mm.wrong_elements = static_cast<int64_t>(got.violations);
    mm.checked_elements = n;
    mm.first_index = static_cast<int64_t>(got.first_violation);
    const int esize = e.OutputIsBf16() ? 2 : 4;
    auto read = [&](const void* base) -> double {
      char bytes[4] = {};
      cudaMemcpy(bytes, static_cast<const char*>(base) + mm.first_index * esize, esize,
                 cudaMemcpyDeviceToHost);
      if (esize == 4) {
        float f;
        std::memcpy(&f, bytes, 4);
        return f;
      }
      uint16_t b;
      std::memcpy(&b, bytes, 2);
      return Bf16BitsToFloat(b);
    };
    mm.expected = FormatValue(read(want));
    mm.actual = FormatValue(read(have));
    check.mismatch = mm;
  }
  return check;
}

// The verified runs: monolithic, then the variant, each into poisoned outputs; then a faulty
// rank's injected fault.
absl::Status RunVerifiedOutputs(PointContext& ctx, const WindowedEinsumParams& p, CudaEinsum& einsum) {
  CudaResources* cuda = ctx.cuda();
  const bool faulty_rank = ctx.rank() == p.fault_rank;
  // The operations' size: the x shard each rank contributes to the all-gather.
  const int64_t shard_bytes = p.m_shard * p.k * (p.dtype == EinsumDtype::kF32 ? 4 : 2);
  ctx.SetStep("monolithic", EnumToName(EinsumVariant::kMonolithic).data(), shard_bytes);
  GH_RETURN_IF_ERROR(einsum.PoisonOutputs());
  GH_RETURN_IF_ERROR(einsum.Enqueue(EinsumVariant::kMonolithic, Part::kAll, false));
  GH_RETURN_IF_ERROR(cuda->Synchronize());
  if (p.variant != EinsumVariant::kMonolithic) {
    ctx.SetStep("variant", EnumToName(p.variant).data(), shard_bytes);
    GH_RETURN_IF_ERROR(einsum.Enqueue(p.variant, Part::kAll,
                                      faulty_rank && p.fault == EinsumFault::kStaleWindow));
    GH_RETURN_IF_ERROR(cuda->Synchronize());
  }
  if (faulty_rank && p.fault == EinsumFault::kCorruptOutput) {
    GH_RETURN_IF_ERROR(einsum.CorruptOneElement(p.variant));
  }
  return absl::OkStatus();
}

// What the verification counted, for the record whatever its verdict.
struct EinsumVerifyCounts {
  int64_t bit_mismatches = 0;
  int64_t reference_checked = 0;
  double reference_max_rel_error = 0;
};

// The variant against monolithic, then monolithic against the reference; the first difference
// makes `out` a failure.
absl::Status VerifyOutputs(PointContext& ctx, const WindowedEinsumParams& p, CudaEinsum& einsum,
                           uint64_t seed, bool bitwise, RankOutcome& out,
                           EinsumVerifyCounts& counts) {
  if (p.variant != EinsumVariant::kMonolithic) {
    absl::StatusOr<PairCheck> pair =
        CheckAgainstMonolithic(p, einsum, p.variant, bitwise, ctx.cuda()->stream());
    if (!pair.ok()) return pair.status();
    counts.bit_mismatches = pair->bit_mismatches;
    if (pair->mismatch) {
      out.outcome = Outcome::kFail;
      out.signature = std::string(EinsumVariantName(p.variant)) +
                      (bitwise ? " output differs from monolithic (bitwise)"
                               : " output differs from monolithic beyond the bound");
      out.mismatch = pair->mismatch;
      return absl::OkStatus();
    }
  }
  absl::StatusOr<ReferenceCheck> ref = CheckAgainstReference(
      p, ctx.rank(), ctx.nranks(), seed, einsum.Output(EinsumVariant::kMonolithic));
  if (!ref.ok()) return ref.status();
  counts.reference_checked = ref->checked;
  counts.reference_max_rel_error = ref->max_rel_error;
  if (ref->mismatch) {
    out.outcome = Outcome::kFail;
    out.signature = "monolithic output differs from the reference beyond the bound";
    out.mismatch = ref->mismatch;
  }
  return absl::OkStatus();
}

// Timing: the variant, monolithic, and the variant's GEMMs alone and communication alone, as
// metrics (overlap results only where each rank has its own GPU: shared GPUs talk over sockets).
absl::StatusOr<std::vector<Metric>> TimingMetricsOf(PointContext& ctx, const WindowedEinsumParams& p,
                                                    CudaEinsum& einsum, bool shared) {
  ctx.SetStep("timing");
  const int tp = ctx.nranks();
  auto time = [&](EinsumVariant v, Part part) {
    return TimeOnDevice(*ctx.cuda(), ctx.warmup(), ctx.iterations(),
                        [&] { return einsum.Enqueue(v, part, false); });
  };
  absl::StatusOr<TimingStats> t_var = time(p.variant, Part::kAll);
  if (!t_var.ok()) return t_var.status();
  absl::StatusOr<TimingStats> t_mono = p.variant == EinsumVariant::kMonolithic
                                           ? t_var
                                           : time(EinsumVariant::kMonolithic, Part::kAll);
  if (!t_mono.ok()) return t_mono.status();
  absl::StatusOr<TimingStats> t_gemm = time(p.variant, Part::kGemmOnly);
  if (!t_gemm.ok()) return t_gemm.status();
  absl::StatusOr<TimingStats> t_comm = time(p.variant, Part::kCommOnly);
  if (!t_comm.ok()) return t_comm.status();

  const double flops = p.Flops(tp);
  auto tflops = [&](double us) { return us > 0 ? flops / (us * 1e6) : 0.0; };
  std::vector<Metric> metrics = TimingMetrics(*t_var, 0);
  metrics.push_back({"tflops", tflops(t_var->median_us), "TFLOP/s"});
  metrics.push_back({"monolithic_time_median_us", t_mono->median_us, "us"});
  metrics.push_back({"monolithic_tflops", tflops(t_mono->median_us), "TFLOP/s"});
  metrics.push_back({"gemm_only_time_median_us", t_gemm->median_us, "us"});
  metrics.push_back({"gemm_step_tflops", tflops(t_gemm->median_us), "TFLOP/s"});
  metrics.push_back({"comm_only_time_median_us", t_comm->median_us, "us"});
  if (!shared) {
    const double exposed = std::max(0.0, t_var->median_us - t_gemm->median_us);
    metrics.push_back({"exposed_comm_us", exposed, "us"});
    if (p.variant != EinsumVariant::kMonolithic && t_comm->median_us > 0 && tp > 1) {
      double hidden = std::clamp((t_comm->median_us - exposed) / t_comm->median_us, 0.0, 1.0);
      metrics.push_back({"overlap_efficiency", hidden, "fraction"});
    }
    if (t_var->median_us > 0) {
      metrics.push_back({"speedup_vs_monolithic", t_mono->median_us / t_var->median_us, "x"});
    }
  }
  return metrics;
}

}  // namespace

RankOutcome RunWindowedEinsumCuda(PointContext& ctx, const WindowedEinsumParams& p) {
  RankOutcome out;
  out.rank = ctx.rank();
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) == 0) out.host = host;
  auto error = [&](const absl::Status& status) { return ErrorKeepingMetrics(std::move(out), status); };
  CudaResources* cuda = ctx.cuda();
  if (cuda == nullptr) return error(absl::InternalError("cuda backend without CUDA resources"));
  out.device = cuda->device();
  const int tp = ctx.nranks();
  const int rank = ctx.rank();
  const uint64_t seed = (static_cast<uint64_t>(ctx.point().index) << 16) +
                        static_cast<uint64_t>(ctx.trial()) + 1;

  ctx.SetStep("setup");
  // Collective first, before anything that could end this rank's point early.
  absl::StatusOr<bool> shared = GpuShared(cuda->device(), ctx.comm());
  if (!shared.ok()) return error(shared.status());
  if (cudaError_t e = cudaSetDevice(cuda->device()); e != cudaSuccess) {
    return error(CudaStatus(e, "cudaSetDevice", GH_CUDA_WHERE));
  }
  ncclComm_t nccl = cuda->nccl();
  if (nccl == nullptr) return error(absl::InternalError("NCCL communicator was aborted"));
  absl::StatusOr<GemmEngine*> engine = GemmEngine::ForDevice(cuda->device());
  if (!engine.ok()) return error(engine.status());
  absl::StatusOr<StreamSet*> streams = StreamsForDevice(cuda->device());
  if (!streams.ok()) return error(streams.status());

  CudaEinsum einsum(p, rank, tp, seed, nccl, cuda->stream(), *streams, *engine);
  if (absl::Status s = einsum.Prepare(); !s.ok()) return error(s);
  if (absl::Status s = RunVerifiedOutputs(ctx, p, einsum); !s.ok()) return error(s);

  ctx.SetStep("verify");
  const bool bitwise = einsum.SameComputation();
  EinsumVerifyCounts counts;
  out.outcome = Outcome::kPass;
  if (absl::Status s = VerifyOutputs(ctx, p, einsum, seed, bitwise, out, counts); !s.ok()) {
    out = error(s);
  }
  out.metrics.push_back({"gpu_shared", *shared ? 1.0 : 0.0, "flag"});
  out.metrics.push_back({"bitwise_required", bitwise ? 1.0 : 0.0, "flag"});
  out.metrics.push_back({"bit_mismatches_vs_monolithic", static_cast<double>(counts.bit_mismatches), "count"});
  out.metrics.push_back({"checked_elements", static_cast<double>(einsum.OutputElements()), "count"});
  out.metrics.push_back({"reference_checked_elements", static_cast<double>(counts.reference_checked), "count"});
  out.metrics.push_back({"reference_max_rel_error", counts.reference_max_rel_error, "ratio"});
  // Every rank learns whether any rank failed, so that all skip the timing collectives together
  // instead of the good ones waiting in NCCL for the bad ones.
  absl::StatusOr<bool> any_bad = ctx.AnyRankFailed(out.outcome != Outcome::kPass);
  if (!any_bad.ok()) return error(any_bad.status());
  if (*any_bad) return out;

  absl::StatusOr<std::vector<Metric>> timing = TimingMetricsOf(ctx, p, einsum, *shared);
  if (!timing.ok()) return error(timing.status());
  for (const Metric& m : *timing) out.metrics.push_back(m);
  return out;
}

}  // namespace gh
