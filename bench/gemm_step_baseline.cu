// The harness's GEMM step (GemmEngine: cuBLASLt, the heuristic's best algorithm, as
// windowed_einsum runs it) against cuBLAS alone (cublasGemmEx, CUBLAS_GEMM_DEFAULT) on the same
// shapes, in one process and one run (docs/scenarios/windowed_einsum.md). Per shape and dtype:
// warm-ups, then timed iterations each bracketed by CUDA events on one non-blocking stream;
// prints the median time and TFLOP/s of both and their ratio. The issue asks for >= 85%.
//
// Usage: gemm_step_baseline [--shapes 512x8192x512,...] [--dtype bf16|f32|both] [--warmup N]
//                           [--iters N]   (a shape is ROWSxKxCOLS: D[rows x cols] = A @ B)
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_check.h"
#include "flag_value.h"
#include "harness/scenarios/einsum_gemm_cuda.h"

namespace {

#define CHECK_CUDA(expr) BENCH_CHECK(expr, cudaSuccess, cudaGetErrorName)
#define CHECK_CUBLAS(expr) BENCH_CHECK(expr, CUBLAS_STATUS_SUCCESS, cublasGetStatusName)

struct Shape {
  long long rows, k, cols;
};

// Values in [-1, 1) with 8 significant bits, like the scenario's data.
__global__ void Fill(void* p, bool bf16, long long n, unsigned seed) {
  for (long long i = blockIdx.x * 256LL + threadIdx.x; i < n; i += 256LL * gridDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    float v = static_cast<float>(static_cast<int>(h % 255) - 127) / 128.f;
    if (bf16) {
      unsigned u;
      memcpy(&u, &v, 4);
      static_cast<unsigned short*>(p)[i] = static_cast<unsigned short>(u >> 16);  // exact
    } else {
      static_cast<float*>(p)[i] = v;
    }
  }
}

template <typename F>
double MedianUs(cudaStream_t s, int warmup, int iters, F enqueue) {
  for (int i = 0; i < warmup; ++i) enqueue();
  std::vector<cudaEvent_t> ev(2 * iters);
  for (auto& e : ev) CHECK_CUDA(cudaEventCreate(&e));
  for (int i = 0; i < iters; ++i) {
    CHECK_CUDA(cudaEventRecord(ev[2 * i], s));
    enqueue();
    CHECK_CUDA(cudaEventRecord(ev[2 * i + 1], s));
  }
  CHECK_CUDA(cudaStreamSynchronize(s));
  std::vector<double> us;
  for (int i = 0; i < iters; ++i) {
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
    us.push_back(ms * 1e3);
  }
  for (auto e : ev) cudaEventDestroy(e);
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

std::vector<Shape> DefaultShapes() {
  // The windowed_einsum sweep's GEMMs at one rank: rows = m_shard, cols = n_shard, k = 8192.
  std::vector<Shape> shapes;
  for (long long m : {512, 1024, 2048, 4096, 8192}) {
    for (long long n : {512, 1024, 2048, 4096, 8192}) shapes.push_back({m, 8192, n});
  }
  return shapes;
}

bool ParseShapes(const std::string& text, std::vector<Shape>* out) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    Shape s{};
    if (std::sscanf(text.substr(start, end - start).c_str(), "%lldx%lldx%lld", &s.rows, &s.k,
                    &s.cols) != 3 || s.rows <= 0 || s.k <= 0 || s.cols <= 0) {
      return false;
    }
    out->push_back(s);
    start = end + 1;
  }
  return !out->empty();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Shape> shapes;
  std::string dtypes = "bf16";
  int warmup = 5, iters = 20;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&] { return FlagValue("gemm_step_baseline", argc, argv, &i); };
    if (a == "--shapes") {
      if (!ParseShapes(value(), &shapes)) {
        std::fprintf(stderr, "gemm_step_baseline: --shapes wants ROWSxKxCOLS[,...]\n");
        return 2;
      }
    } else if (a == "--dtype") {
      dtypes = value();
      if (dtypes != "bf16" && dtypes != "f32" && dtypes != "both") {
        std::fprintf(stderr, "gemm_step_baseline: --dtype is bf16, f32 or both\n");
        return 2;
      }
    } else if (a == "--warmup") {
      warmup = std::atoi(value().c_str());
    } else if (a == "--iters") {
      iters = std::atoi(value().c_str());
    } else {
      std::fprintf(stderr, "gemm_step_baseline: unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  if (shapes.empty()) shapes = DefaultShapes();
  if (iters < 1 || warmup < 0) {
    std::fprintf(stderr, "gemm_step_baseline: --iters >= 1 and --warmup >= 0\n");
    return 2;
  }

  CHECK_CUDA(cudaSetDevice(0));
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cublasHandle_t blas;
  CHECK_CUBLAS(cublasCreate(&blas));
  CHECK_CUBLAS(cublasSetStream(blas, stream));
  // cuBLAS alone gets the same workspace size as the harness's engine.
  void* blas_ws = nullptr;
  CHECK_CUDA(cudaMalloc(&blas_ws, size_t{64} << 20));
  CHECK_CUBLAS(cublasSetWorkspace(blas, blas_ws, size_t{64} << 20));
  auto engine = gh::GemmEngine::ForDevice(0);
  if (!engine.ok()) {
    std::fprintf(stderr, "GemmEngine: %s\n", std::string(engine.status().message()).c_str());
    return 3;
  }

  std::printf("# %s, %d warm-ups, median of %d\n", prop.name, warmup, iters);
  std::printf("| dtype | rows x k x cols | cuBLAS alone us | cuBLAS TFLOP/s | harness GEMM step us | harness TFLOP/s | harness / cuBLAS | harness algorithm |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  double worst = 1e9;
  for (const std::string dt : {std::string("bf16"), std::string("f32")}) {
    if (dtypes != "both" && dtypes != dt) continue;
    const bool bf16 = dt == "bf16";
    const size_t es = bf16 ? 2 : 4;
    const cudaDataType_t ct = bf16 ? CUDA_R_16BF : CUDA_R_32F;
    for (const Shape& s : shapes) {
      void *a, *b, *d;
      CHECK_CUDA(cudaMalloc(&a, s.rows * s.k * es));
      CHECK_CUDA(cudaMalloc(&b, s.k * s.cols * es));
      CHECK_CUDA(cudaMalloc(&d, s.rows * s.cols * es));
      Fill<<<1024, 256, 0, stream>>>(a, bf16, s.rows * s.k, 1u);
      Fill<<<1024, 256, 0, stream>>>(b, bf16, s.k * s.cols, 2u);
      CHECK_CUDA(cudaGetLastError());
      const gh::GemmType gt = bf16 ? gh::GemmType::kBF16 : gh::GemmType::kF32;
      auto plan = (*engine)->Plan({s.rows, s.k, s.cols, gt, gt, false, 256});
      if (!plan.ok()) {
        std::fprintf(stderr, "plan: %s\n", std::string(plan.status().message()).c_str());
        return 3;
      }
      const float alpha = 1.f, beta = 0.f;
      // Row-major D = A @ B is column-major D^T = B^T A^T, as the engine does it.
      double blas_us = MedianUs(stream, warmup, iters, [&] {
        CHECK_CUBLAS(cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, s.cols, s.rows, s.k, &alpha, b,
                                  ct, s.cols, a, ct, s.k, &beta, d, ct, s.cols,
                                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      });
      double harness_us = MedianUs(stream, warmup, iters, [&] {
        absl::Status st = (*engine)->Run(**plan, a, b, nullptr, d, stream);
        if (!st.ok()) {
          std::fprintf(stderr, "run: %s\n", std::string(st.message()).c_str());
          std::exit(3);
        }
      });
      const double flops = 2.0 * s.rows * s.k * s.cols;
      const double ratio = blas_us / harness_us;
      worst = std::min(worst, ratio);
      std::printf("| %s | %lldx%lldx%lld | %.1f | %.1f | %.1f | %.1f | %.1f%% | %s |\n",
                  dt.c_str(), s.rows, s.k, s.cols, blas_us, flops / blas_us / 1e6, harness_us,
                  flops / harness_us / 1e6, 100 * ratio,
                  gh::GemmEngine::Describe(**plan).c_str());
      CHECK_CUDA(cudaFree(a));
      CHECK_CUDA(cudaFree(b));
      CHECK_CUDA(cudaFree(d));
    }
  }
  std::printf("# worst harness / cuBLAS: %.1f%% (target >= 85%%)\n", 100 * worst);
  return worst >= 0.85 ? 0 : 1;
}
