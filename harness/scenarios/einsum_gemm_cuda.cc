#include "harness/scenarios/einsum_gemm_cuda.h"

#include <cublas_v2.h>

#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace gh {
namespace {

// Enough for the heuristic's split-K and stream-K choices on Hopper.
constexpr size_t kWorkspaceBytes = size_t{64} << 20;

cudaDataType_t CudaType(GemmType t) { return t == GemmType::kF32 ? CUDA_R_32F : CUDA_R_16BF; }

absl::Status CublasStatus(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(CublasSignature(status), " (", call, ")"));
}

#define GH_CUBLAS_RETURN_IF_ERROR(expr)                                          \
  do {                                                                           \
    cublasStatus_t gh_cublas_st_ = (expr);                                       \
    if (gh_cublas_st_ != CUBLAS_STATUS_SUCCESS) return CublasStatus(gh_cublas_st_, #expr); \
  } while (0)

}  // namespace

int GemmTypeSize(GemmType type) { return type == GemmType::kF32 ? 4 : 2; }

int CommonAlignment(std::initializer_list<int64_t> offsets_bytes) {
  int align = 256;
  for (int64_t offset : offsets_bytes) {
    while (align > 1 && offset % align != 0) align /= 2;
  }
  return align;
}

std::string CublasSignature(cublasStatus_t status) {
  return absl::StrCat(cublasGetStatusName(status), ": ", cublasGetStatusString(status));
}

absl::StatusOr<GemmEngine*> GemmEngine::ForDevice(int device) {
  // Deliberately never destroyed: tearing cuBLASLt down from a static destructor after the
  // CUDA runtime has shut down is undefined; the process exit reclaims everything.
  static std::map<int, GemmEngine*>* engines = new std::map<int, GemmEngine*>();
  auto it = engines->find(device);
  if (it != engines->end()) return it->second;
  auto engine = std::unique_ptr<GemmEngine>(new GemmEngine());
  GH_CUBLAS_RETURN_IF_ERROR(cublasLtCreate(&engine->handle_));
  cudaError_t err = cudaMalloc(&engine->workspace_, kWorkspaceBytes);
  if (err != cudaSuccess) {
    return absl::InternalError(
        absl::StrCat(cudaGetErrorName(err), ": ", cudaGetErrorString(err), " (GEMM workspace)"));
  }
  engine->workspace_bytes_ = kWorkspaceBytes;
  GemmEngine* raw = engine.release();
  (*engines)[device] = raw;
  return raw;
}

absl::StatusOr<const GemmPlan*> GemmEngine::Plan(const GemmShape& shape) {
  auto it = plans_.find(shape);
  if (it != plans_.end()) return it->second.get();
  auto plan = std::make_unique<GemmPlan>();
  plan->shape = shape;
  // Row-major D = A @ B is column-major D^T = B^T @ A^T: cuBLASLt's first operand is B
  // (cols x k, leading dimension cols), its second A (k x rows, leading dimension k).
  GH_CUBLAS_RETURN_IF_ERROR(cublasLtMatmulDescCreate(&plan->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  GH_CUBLAS_RETURN_IF_ERROR(
      cublasLtMatrixLayoutCreate(&plan->a, CudaType(shape.in), shape.cols, shape.k, shape.cols));
  GH_CUBLAS_RETURN_IF_ERROR(
      cublasLtMatrixLayoutCreate(&plan->b, CudaType(shape.in), shape.k, shape.rows, shape.k));
  GH_CUBLAS_RETURN_IF_ERROR(cublasLtMatrixLayoutCreate(&plan->c, CudaType(shape.out), shape.cols,
                                                       shape.rows, shape.cols));
  cublasLtMatmulPreference_t pref = nullptr;
  GH_CUBLAS_RETURN_IF_ERROR(cublasLtMatmulPreferenceCreate(&pref));
  GH_CUBLAS_RETURN_IF_ERROR(cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes_, sizeof(workspace_bytes_)));
  const uint32_t align = static_cast<uint32_t>(shape.align_bytes);
  for (cublasLtMatmulPreferenceAttributes_t which :
       {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES}) {
    GH_CUBLAS_RETURN_IF_ERROR(cublasLtMatmulPreferenceSetAttribute(pref, which, &align, sizeof(align)));
  }
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(handle_, plan->op, plan->a, plan->b,
                                                     plan->c, plan->c, pref, 1, &result, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  GH_CUBLAS_RETURN_IF_ERROR(st);
  if (found == 0) {
    return absl::InternalError(absl::StrCat("CUBLAS_STATUS_NOT_SUPPORTED: no cuBLASLt algorithm for ",
                                            shape.rows, "x", shape.k, "x", shape.cols));
  }
  plan->algo = result.algo;
  const GemmPlan* raw = plan.get();
  plans_[shape] = std::move(plan);
  return raw;
}

absl::Status GemmEngine::Run(const GemmPlan& plan, const void* a, const void* b, const void* c,
                             void* d, cudaStream_t stream) {
  const float alpha = 1.f;
  const float beta = plan.shape.accumulate ? 1.f : 0.f;
  const void* c_in = plan.shape.accumulate ? c : d;
  GH_CUBLAS_RETURN_IF_ERROR(cublasLtMatmul(handle_, plan.op, &alpha, b, plan.a, a, plan.b, &beta,
                                           c_in, plan.c, d, plan.c, &plan.algo, workspace_,
                                           workspace_bytes_, stream));
  return absl::OkStatus();
}

bool GemmEngine::SameAlgorithm(const GemmPlan& x, const GemmPlan& y) {
  return std::memcmp(&x.algo, &y.algo, sizeof(x.algo)) == 0;
}

std::string GemmEngine::Describe(const GemmPlan& plan) {
  // Every attribute read here is 32 bits wide; the call fails unless the size matches exactly.
  auto attr = [&](cublasLtMatmulAlgoConfigAttributes_t which) -> long long {
    uint32_t value = 0;
    size_t written = 0;
    if (cublasLtMatmulAlgoConfigGetAttribute(&plan.algo, which, &value, sizeof(value), &written) !=
        CUBLAS_STATUS_SUCCESS) {
      return -1;
    }
    return value;
  };
  return absl::StrCat("id=", attr(CUBLASLT_ALGO_CONFIG_ID), " tile=", attr(CUBLASLT_ALGO_CONFIG_TILE_ID),
                      " splitk=", attr(CUBLASLT_ALGO_CONFIG_SPLITK_NUM),
                      " stages=", attr(CUBLASLT_ALGO_CONFIG_STAGES_ID));
}

}  // namespace gh
