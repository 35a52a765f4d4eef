// windowed_einsum: registration, parameters, and the host backend: the same decomposition as the
// cuda backend over MPI with a plain CPU GEMM, on small integer-valued data so that every
// product and sum is exact and the windowed, monolithic and reference results agree bitwise.
#include "harness/scenarios/windowed_einsum.h"

#include <mpi.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/core/registry.h"
#include "harness/core/timing_stats.h"
#include "harness/runtime/mpi_errors.h"
#include "harness/runtime/point_context.h"
#include "harness/scenarios/kind_backends.h"
#include "harness/scenarios/rank_steps.h"
#include "harness/scenarios/window_schedule.h"

namespace gh {

std::string_view EinsumVariantName(EinsumVariant variant) { return EnumToName(variant); }

std::string_view EinsumDtypeName(EinsumDtype dtype) { return EnumToName(dtype); }

namespace {

// Host data are integers in [-2, 2]: with them every layer-1 sum is an integer far below 2^24
// and the check below keeps the chained layer's sums there too.
constexpr int kHostRange = 2;
// Largest |value| whose integers f32 holds exactly.
constexpr double kExactLimit = 16777216.0;  // 2^24
// The host backend is a correctness reference for small sizes, not a benchmark.
constexpr double kHostMaxFlopsPerRank = 4e9;

WindowedEinsumParams ParamsFromPoint(const Point& point) {
  WindowedEinsumParams p;
  p.variant = point.GetEnum<EinsumVariant>("variant");
  p.m_shard = point.GetInt("m_shard");
  p.n_shard = point.GetInt("n_shard");
  p.k = point.GetInt("k");
  p.dtype = point.GetEnum<EinsumDtype>("dtype");
  p.layers = static_cast<int>(point.GetInt("layers"));
  p.fault = point.GetEnum<EinsumFault>("fault");
  p.fault_rank = static_cast<int>(point.GetInt("fault_rank"));
  return p;
}

// A bf16 element on the host: its bits; arithmetic goes through float.
struct Bf16 {
  uint16_t bits;
};
inline float ToFloat(float v) { return v; }
inline float ToFloat(Bf16 v) { return Bf16BitsToFloat(v.bits); }
template <typename T> T FromFloat(float f);
template <> inline float FromFloat<float>(float f) { return f; }
template <> inline Bf16 FromFloat<Bf16>(float f) { return Bf16{FloatToBf16Bits(f)}; }

template <typename T>
std::vector<T> Generate(EinsumTensor tensor, int owner, int64_t count, uint64_t seed) {
  std::vector<T> v(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    v[i] = FromFloat<T>(static_cast<float>(
        EinsumInt(tensor, owner, static_cast<uint64_t>(i), seed, kHostRange)));
  }
  return v;
}

// c[rows x n] = a[rows x k] @ b[k x n] (+ add[rows x n] when given), row-major, accumulated in
// float in ascending k, stored as C.
template <typename A, typename C>
void CpuGemm(const A* a, const A* b, C* c, int64_t rows, int64_t k, int64_t n,
             const float* add = nullptr) {
  std::vector<float> acc(static_cast<size_t>(n));
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < n; ++j) acc[j] = 0.f;
    for (int64_t kk = 0; kk < k; ++kk) {
      float av = ToFloat(a[i * k + kk]);
      if (av == 0.f) continue;
      const A* brow = b + kk * n;
      for (int64_t j = 0; j < n; ++j) acc[j] += av * ToFloat(brow[j]);
    }
    for (int64_t j = 0; j < n; ++j) {
      float v = add != nullptr ? acc[j] + add[i * n + j] : acc[j];
      c[i * n + j] = FromFloat<C>(v);
    }
  }
}

template <typename T>
void Poison(std::vector<T>& v) {
  std::memset(v.data(), kPoisonByte, v.size() * sizeof(T));
}

#define GH_MPI_RETURN_IF_ERROR(expr)                                                   \
  do {                                                                                 \
    int gh_mpi_rc_ = (expr);                                                           \
    if (gh_mpi_rc_ != MPI_SUCCESS) return absl::InternalError(MpiErrorSignature(gh_mpi_rc_)); \
  } while (0)

// One rank's buffers and the three ways of computing the product, on the host.
template <typename T>
class HostEinsum {
 public:
  HostEinsum(const WindowedEinsumParams& p, int rank, int tp, MPI_Comm comm, uint64_t seed)
      : p_(p), rank_(rank), tp_(tp), comm_(comm), seed_(seed), m_(p.m_shard), n_(p.n_shard),
        k_(p.k) {
    x_ = Generate<T>(EinsumTensor::kX, rank, m_ * k_, seed);
    w1_ = Generate<T>(EinsumTensor::kW1, rank, k_ * n_, seed);
    if (p.layers == 2) w2_ = Generate<T>(EinsumTensor::kW2, rank, n_ * k_, seed);
    x_full_.resize(static_cast<size_t>(tp * m_ * k_));
    for (auto& w : window_) w.resize(static_cast<size_t>(m_ * k_));
    h_.resize(static_cast<size_t>(tp * m_ * n_));
    if (p.layers == 2) {
      partial_full_.resize(static_cast<size_t>(tp * m_ * k_));
      for (auto& b : acc_send_) b.resize(static_cast<size_t>(m_ * k_));
      for (auto& b : acc_recv_) b.resize(static_cast<size_t>(m_ * k_));
      y_.resize(static_cast<size_t>(m_ * k_));
    }
  }

  // The verified output: layer 1's [M x n] (as float), or the chained layer's [m x k].
  std::vector<float> Output() const {
    if (p_.layers == 2) return y_;
    std::vector<float> out(h_.size());
    for (size_t i = 0; i < h_.size(); ++i) out[i] = ToFloat(h_[i]);
    return out;
  }

  void PoisonOutputs() {
    Poison(h_);
    for (auto& w : window_) Poison(w);
    if (p_.layers == 2) {
      Poison(y_);
      Poison(partial_full_);
      for (auto& b : acc_send_) Poison(b);
      for (auto& b : acc_recv_) Poison(b);
    }
  }

  absl::Status Run(EinsumVariant variant, bool stale_window) {
    switch (variant) {
      case EinsumVariant::kMonolithic: return RunMonolithic();
      case EinsumVariant::kWindowed: return RunWindowed(/*overlap=*/false, stale_window);
      case EinsumVariant::kWindowedMultistream: return RunWindowed(/*overlap=*/true, stale_window);
    }
    return absl::InternalError("unknown variant");
  }

  // Changes one element of the output, as a fault would.
  void CorruptOneElement() {
    if (p_.layers == 2) {
      y_[y_.size() / 2] += 1.f;
    } else {
      h_[h_.size() / 2] = FromFloat<T>(ToFloat(h_[h_.size() / 2]) + 1.f);
    }
  }

  // The exact result, recomputed from regenerated inputs of every rank without communication.
  std::vector<float> Reference() const {
    if (p_.layers == 1) {
      std::vector<T> x_full;
      for (int r = 0; r < tp_; ++r) {
        std::vector<T> shard = Generate<T>(EinsumTensor::kX, r, m_ * k_, seed_);
        x_full.insert(x_full.end(), shard.begin(), shard.end());
      }
      std::vector<T> h(static_cast<size_t>(tp_ * m_ * n_));
      CpuGemm(x_full.data(), w1_.data(), h.data(), tp_ * m_, k_, n_);
      std::vector<float> out(h.size());
      for (size_t i = 0; i < h.size(); ++i) out[i] = ToFloat(h[i]);
      return out;
    }
    // y[rows of my block] = sum over ranks j of round(x_block @ w1_j) @ w2_j.
    std::vector<float> y(static_cast<size_t>(m_ * k_), 0.f), part(y.size());
    std::vector<T> h(static_cast<size_t>(m_ * n_));
    for (int j = 0; j < tp_; ++j) {
      std::vector<T> w1 = Generate<T>(EinsumTensor::kW1, j, k_ * n_, seed_);
      std::vector<T> w2 = Generate<T>(EinsumTensor::kW2, j, n_ * k_, seed_);
      CpuGemm(x_.data(), w1.data(), h.data(), m_, k_, n_);
      CpuGemm(h.data(), w2.data(), part.data(), m_, n_, k_);
      for (size_t i = 0; i < y.size(); ++i) y[i] += part[i];
    }
    return y;
  }

 private:
  int64_t Bytes(int64_t elements) const { return elements * static_cast<int64_t>(sizeof(T)); }

  absl::Status RunMonolithic() {
    GH_MPI_RETURN_IF_ERROR(MPI_Allgather(x_.data(), static_cast<int>(Bytes(m_ * k_)), MPI_BYTE,
                                         x_full_.data(), static_cast<int>(Bytes(m_ * k_)),
                                         MPI_BYTE, comm_));
    CpuGemm(x_full_.data(), w1_.data(), h_.data(), tp_ * m_, k_, n_);
    if (p_.layers == 1) return absl::OkStatus();
    CpuGemm(h_.data(), w2_.data(), partial_full_.data(), tp_ * m_, n_, k_);
    GH_MPI_RETURN_IF_ERROR(MPI_Reduce_scatter_block(partial_full_.data(), y_.data(),
                                                    static_cast<int>(m_ * k_), MPI_FLOAT,
                                                    MPI_SUM, comm_));
    return absl::OkStatus();
  }

  // The ring all-gather of the window schedule, double-buffered: the shard in hand is computed
  // while the next one arrives. `overlap` posts the exchange before the GEMM and waits after it
  // (the host analogue of the communication stream); otherwise exchange and GEMM alternate.
  absl::Status RunWindowed(bool overlap, bool stale_window) {
    const int64_t shard_bytes = Bytes(m_ * k_);
    const T* current = x_.data();
    for (const AllGatherStep& step : AllGatherSchedule(rank_, tp_)) {
      T* next = window_[(step.step + 1) % 2].data();
      std::array<MPI_Request, 2> requests = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
      if (step.communicates) {
        if (overlap) {
          GH_MPI_RETURN_IF_ERROR(MPI_Irecv(next, static_cast<int>(shard_bytes), MPI_BYTE,
                                           step.recv_from, kTagGather, comm_, &requests[0]));
          GH_MPI_RETURN_IF_ERROR(MPI_Isend(current, static_cast<int>(shard_bytes), MPI_BYTE,
                                           step.send_to, kTagGather, comm_, &requests[1]));
        } else {
          GH_MPI_RETURN_IF_ERROR(MPI_Sendrecv(current, static_cast<int>(shard_bytes), MPI_BYTE,
                                              step.send_to, kTagGather, next,
                                              static_cast<int>(shard_bytes), MPI_BYTE,
                                              step.recv_from, kTagGather, comm_,
                                              MPI_STATUS_IGNORE));
        }
      }
      CpuGemm(current, w1_.data(), h_.data() + step.held_shard * m_ * n_, m_, k_, n_);
      if (overlap && step.communicates) {
        GH_MPI_RETURN_IF_ERROR(MPI_Waitall(2, requests.data(), MPI_STATUSES_IGNORE));
      }
      // The fault: window 1 is computed on the shard already used, not on the one received.
      if (!(stale_window && step.step == 0)) current = next;
    }
    if (p_.layers == 1) return absl::OkStatus();
    return RunRingReduceScatter(overlap);
  }

  // The chained layer: partial products of the hidden layer's row blocks with w2, summed around
  // the ring so that each rank ends with its own block of y. With `overlap`, step s's exchange
  // is in flight while step s+1's GEMM runs; the sum is added once it has arrived.
  absl::Status RunRingReduceScatter(bool overlap) {
    const int count = static_cast<int>(m_ * k_);
    std::array<MPI_Request, 2> pending = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    const std::vector<ReduceScatterStep> steps = ReduceScatterSchedule(rank_, tp_);
    for (const ReduceScatterStep& step : steps) {
      float* sum = step.communicates ? acc_send_[step.step % 2].data() : y_.data();
      CpuGemm(h_.data() + step.block * m_ * n_, w2_.data(), sum, m_, n_, k_);
      if (step.adds_received) {
        const float* received = acc_recv_[(step.step - 1) % 2].data();
        if (overlap) GH_MPI_RETURN_IF_ERROR(MPI_Waitall(2, pending.data(), MPI_STATUSES_IGNORE));
        for (int i = 0; i < count; ++i) sum[i] += received[i];
      }
      if (!step.communicates) continue;
      float* incoming = acc_recv_[step.step % 2].data();
      if (overlap) {
        GH_MPI_RETURN_IF_ERROR(MPI_Irecv(incoming, count, MPI_FLOAT, step.recv_from, kTagReduce,
                                         comm_, &pending[0]));
        GH_MPI_RETURN_IF_ERROR(MPI_Isend(sum, count, MPI_FLOAT, step.send_to, kTagReduce, comm_,
                                         &pending[1]));
      } else {
        GH_MPI_RETURN_IF_ERROR(MPI_Sendrecv(sum, count, MPI_FLOAT, step.send_to, kTagReduce,
                                            incoming, count, MPI_FLOAT, step.recv_from,
                                            kTagReduce, comm_, MPI_STATUS_IGNORE));
      }
    }
    return absl::OkStatus();
  }

  static constexpr int kTagGather = 601;
  static constexpr int kTagReduce = 602;

  const WindowedEinsumParams p_;
  const int rank_, tp_;
  MPI_Comm comm_;
  const uint64_t seed_;
  const int64_t m_, n_, k_;
  std::vector<T> x_, w1_, w2_, x_full_, h_;
  std::array<std::vector<T>, 2> window_;
  std::vector<float> partial_full_, y_;
  std::array<std::vector<float>, 2> acc_send_, acc_recv_;
};

std::string FormatValue(float v) { return absl::StrFormat("%.9g", v); }

// Bitwise comparison, element by element.
std::optional<Mismatch> CompareBitwise(const std::vector<float>& expected,
                                       const std::vector<float>& actual) {
  Mismatch m;
  m.checked_elements = static_cast<int64_t>(expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    if (std::memcmp(&expected[i], &actual[i], sizeof(float)) == 0) continue;
    if (m.wrong_elements++ == 0) {
      m.first_index = static_cast<int64_t>(i);
      m.expected = FormatValue(expected[i]);
      m.actual = FormatValue(actual[i]);
    }
  }
  if (m.wrong_elements == 0) return std::nullopt;
  return m;
}

// Why a point cannot run on the host backend, or empty.
std::string HostSkipReason(const WindowedEinsumParams& p, int tp) {
  if (p.Flops(tp) > kHostMaxFlopsPerRank) {
    return absl::StrFormat("host backend runs small sizes only: %.3g flop per rank > %.3g",
                           p.Flops(tp), kHostMaxFlopsPerRank);
  }
  // Largest |h| is range^2 * k (bf16 may round it up by at most a factor 1 + 2^-8); the chained
  // layer adds n_shard * tp products of at most that times range.
  double h_max = kHostRange * kHostRange * static_cast<double>(p.k) * (1.0 + 1.0 / 256);
  double largest = p.layers == 2 ? h_max * kHostRange * static_cast<double>(p.n_shard) * tp
                                 : h_max;
  if (largest >= kExactLimit) {
    return absl::StrFormat(
        "host backend needs exact integer sums: largest |value| %.0f >= 2^24", largest);
  }
  int64_t shard_bytes = std::max(p.m_shard * p.k, p.n_shard * p.k) * 4;
  if (shard_bytes > INT32_MAX) return "host backend: a shard exceeds 2 GiB";
  return "";
}

template <typename T>
RankOutcome RunHostTyped(PointContext& ctx, const WindowedEinsumParams& p, RankOutcome out) {
  const int tp = ctx.nranks();
  const uint64_t seed = (static_cast<uint64_t>(ctx.point().index) << 16) +
                        static_cast<uint64_t>(ctx.trial()) + 1;
  ctx.SetStep("generate");
  HostEinsum<T> einsum(p, ctx.rank(), tp, ctx.comm(), seed);
  const bool faulty_rank = ctx.rank() == p.fault_rank;

  // Keeps what `out` measured so far, as the error record shows it.
  auto error = [&](const absl::Status& status) { return ErrorKeepingMetrics(std::move(out), status); };

  // The monolithic result, always: it is what the windowed variants are compared against.
  // The operations' size: the x shard each rank contributes to the all-gather.
  const int64_t shard_bytes = p.m_shard * p.k * int64_t(sizeof(T));
  ctx.SetStep("monolithic", EnumToName(EinsumVariant::kMonolithic).data(), shard_bytes);
  einsum.PoisonOutputs();
  if (absl::Status s = einsum.Run(EinsumVariant::kMonolithic, false); !s.ok()) return error(s);
  std::vector<float> monolithic = einsum.Output();

  std::vector<float> variant = monolithic;
  if (p.variant != EinsumVariant::kMonolithic) {
    ctx.SetStep("variant", EnumToName(p.variant).data(), shard_bytes);
    einsum.PoisonOutputs();
    bool stale = faulty_rank && p.fault == EinsumFault::kStaleWindow;
    if (absl::Status s = einsum.Run(p.variant, stale); !s.ok()) return error(s);
    if (faulty_rank && p.fault == EinsumFault::kCorruptOutput) einsum.CorruptOneElement();
    variant = einsum.Output();
  } else if (faulty_rank && p.fault == EinsumFault::kCorruptOutput) {
    einsum.CorruptOneElement();
    variant = einsum.Output();
  }

  ctx.SetStep("verify");
  std::vector<float> reference = einsum.Reference();
  out.outcome = Outcome::kPass;
  if (std::optional<Mismatch> bad = CompareBitwise(reference, variant)) {
    out.outcome = Outcome::kFail;
    out.signature = std::string(EinsumVariantName(p.variant)) + " output differs from the reference";
    out.mismatch = *bad;
  } else if (std::optional<Mismatch> bad = CompareBitwise(reference, monolithic)) {
    out.outcome = Outcome::kFail;
    out.signature = "monolithic output differs from the reference";
    out.mismatch = *bad;
  }
  out.metrics.push_back({"checked_elements", static_cast<double>(variant.size()), "count"});
  // Every rank learns whether any failed, so that all of them skip the timing collectives
  // together instead of the good ones waiting for the bad ones.
  absl::StatusOr<bool> any_failed = ctx.AnyRankFailed(out.outcome != Outcome::kPass);
  if (!any_failed.ok()) return error(any_failed.status());
  if (*any_failed) return out;

  // Timing: steady clock around whole runs after warm-up (host numbers say nothing about GPU
  // overlap; they keep the host path honest and comparable between variants).
  ctx.SetStep("timing");
  auto time_runs = [&](EinsumVariant v, std::vector<double>& samples) -> absl::Status {
    for (int i = 0; i < ctx.warmup() + ctx.iterations(); ++i) {
      auto start = std::chrono::steady_clock::now();
      if (absl::Status s = einsum.Run(v, false); !s.ok()) return s;
      auto stop = std::chrono::steady_clock::now();
      if (i >= ctx.warmup()) {
        samples.push_back(std::chrono::duration<double, std::micro>(stop - start).count());
      }
    }
    return absl::OkStatus();
  };
  std::vector<double> variant_us, monolithic_us;
  if (absl::Status s = time_runs(p.variant, variant_us); !s.ok()) return error(s);
  TimingStats stats = SummarizeTimings(variant_us);
  for (const Metric& m : TimingMetrics(stats, 0)) out.metrics.push_back(m);
  if (stats.median_us > 0) {
    out.metrics.push_back({"gflops", p.Flops(tp) / (stats.median_us * 1e3), "GFLOP/s"});
  }
  if (p.variant != EinsumVariant::kMonolithic) {
    if (absl::Status s = time_runs(EinsumVariant::kMonolithic, monolithic_us); !s.ok()) {
      return error(s);
    }
    TimingStats mono = SummarizeTimings(monolithic_us);
    out.metrics.push_back({"monolithic_time_median_us", mono.median_us, "us"});
    if (stats.median_us > 0) {
      out.metrics.push_back({"speedup_vs_monolithic", mono.median_us / stats.median_us, "x"});
    }
  }
  return out;
}

// Reasons a point cannot run on any backend (the same on every rank, so no rank waits for
// another that skipped).
std::string CommonSkipReason(const WindowedEinsumParams& p, int tp) {
  if (p.fault != EinsumFault::kNone && p.fault_rank >= tp) {
    return absl::StrCat("fault_rank ", p.fault_rank, " is not a rank of ", tp);
  }
  if (p.fault == EinsumFault::kStaleWindow && tp < 2) {
    return "fault stale_window needs at least 2 ranks";
  }
  return "";
}

class WindowedEinsum : public Scenario {
 public:
  RankOutcome Run(PointContext& ctx) override {
    RankOutcome out;
    out.rank = ctx.rank();
    char host[256] = {};
    if (gethostname(host, sizeof(host) - 1) == 0) out.host = host;
    WindowedEinsumParams p = ParamsFromPoint(ctx.point());
    if (std::string why = CommonSkipReason(p, ctx.nranks()); !why.empty()) {
      return RankOutcome::Skip(std::move(why));
    }
    if (ctx.backend() == Backend::kCuda) {
#if defined(GH_HAVE_CUDA)
      return RunWindowedEinsumCuda(ctx, p);
#else
      return RankOutcome::Skip("cuda backend not built");
#endif
    }
    if (std::string why = HostSkipReason(p, ctx.nranks()); !why.empty()) {
      return RankOutcome::Skip(std::move(why));
    }
    if (p.dtype == EinsumDtype::kF32) return RunHostTyped<float>(ctx, p, out);
    return RunHostTyped<Bf16>(ctx, p, out);
  }
};

KindInfo DescribeWindowedEinsum() {
  KindInfo info;
  info.name = "windowed_einsum";
  info.description =
      "out = all_gather(x) @ w (x sharded by rows, w by columns over tp = nranks): monolithic "
      "(all-gather, one GEMM), windowed (ring steps on one stream), windowed_multistream "
      "(compute and communication streams, double-buffered); layers=2 chains (x @ w1) @ w2 "
      "with a ring reduce-scatter. Checks every element against the monolithic result and a "
      "reference; times each variant against monolithic";
  info.params =
      ParamsBuilder()
          .Enum("variant", EinsumVariant::kWindowedMultistream,
                "how the all-gather and the GEMM are combined")
          .Int("m_shard", 1024, "rows of x per rank (M = m_shard * tp)").Range(1, 65536)
          .Int("n_shard", 1024, "columns of w1 per rank (N = n_shard * tp)").Range(1, 65536)
          .Int("k", 1024, "inner dimension (and the width of y when layers=2)").Range(1, 65536)
          .Enum("dtype", EinsumDtype::kBF16, "element type of x, w and the output")
          .Int("layers", 1, "2 chains (x @ w1) @ w2, w2 sharded by rows, reduce-scattered")
          .Range(1, 2)
          .Enum("fault", EinsumFault::kNone,
                "deliberate fault on fault_rank, for testing the harness")
          .Int("fault_rank", 0, "the rank that injects `fault`").Range(0, 1023)
          .Build();
  info.backends = HostAndCudaBackends();
  info.ranks = RankRequirement{1, 1024};
  info.make = [] { return std::unique_ptr<Scenario>(new WindowedEinsum()); };
  return info;
}

}  // namespace

GH_REGISTER_SCENARIO(windowed_einsum, DescribeWindowedEinsum);

}  // namespace gh
