// The GEMM step of windowed_einsum: row-major D[rows x cols] = A[rows x k] @ B[k x cols]
// (+ C, same shape and type as D) through cuBLASLt, with f32 accumulation. One GemmEngine per
// device holds the cuBLASLt handle, its workspace and a plan (layouts and the heuristic's
// algorithm) per shape, so nothing is created inside timed loops. Used by the scenario and by
// bench/gemm_step_baseline.cu, which compares it with cuBLAS alone.
#ifndef GPUHARNESS_SCENARIOS_EINSUM_GEMM_CUDA_H_
#define GPUHARNESS_SCENARIOS_EINSUM_GEMM_CUDA_H_

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "absl/status/statusor.h"

namespace gh {

enum class GemmType { kF32, kBF16 };
int GemmTypeSize(GemmType type);
// The largest power of two up to 256 that divides every one of `offsets_bytes`.
int CommonAlignment(std::initializer_list<int64_t> offsets_bytes);

struct GemmShape {
  int64_t rows = 0, k = 0, cols = 0;
  GemmType in = GemmType::kBF16;   // A and B
  GemmType out = GemmType::kBF16;  // C and D
  bool accumulate = false;         // D = A @ B + C
  // Alignment (bytes, a power of two up to 256) every operand pointer is guaranteed to have:
  // blocks of a larger buffer start at offsets of rows * cols elements, which odd shapes leave
  // unaligned, and the heuristic must not pick a kernel that assumes more.
  int align_bytes = 256;
  auto Key() const { return std::tie(rows, k, cols, in, out, accumulate, align_bytes); }
  bool operator<(const GemmShape& o) const { return Key() < o.Key(); }
};

struct GemmPlan {
  GemmShape shape;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;  // cuBLASLt's operand order
  cublasLtMatmulAlgo_t algo{};
};

class GemmEngine {
 public:
  // The engine of `device` (the current device must be it), created on first use and kept for
  // the life of the process: handles are created once per job, never per point. Not
  // thread-safe (ranks are processes; each has one main thread that runs points).
  static absl::StatusOr<GemmEngine*> ForDevice(int device);

  // The plan for a shape, made on first use (the heuristic's best algorithm for the workspace).
  absl::StatusOr<const GemmPlan*> Plan(const GemmShape& shape);

  // Enqueues D = A @ B (+ C) on `stream`. Pointers are device memory, row-major, dense.
  absl::Status Run(const GemmPlan& plan, const void* a, const void* b, const void* c, void* d,
                   cudaStream_t stream);

  // Whether two plans run the same cuBLASLt algorithm (identical algorithm descriptors).
  static bool SameAlgorithm(const GemmPlan& x, const GemmPlan& y);
  // "id=.. tile=.. splitk=.. stages=.." of a plan, for logs and records.
  static std::string Describe(const GemmPlan& plan);

 private:
  GemmEngine() = default;
  cublasLtHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
  size_t workspace_bytes_ = 0;
  std::map<GemmShape, std::unique_ptr<GemmPlan>> plans_;
};

// "CUBLAS_STATUS_NOT_SUPPORTED: <call>"-style signature of a cuBLAS status.
std::string CublasSignature(cublasStatus_t status);

}  // namespace gh

#endif  // GPUHARNESS_SCENARIOS_EINSUM_GEMM_CUDA_H_
