// The collective kind's device-API kernels (see collective_device_api_cuda.h).
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <nccl_device.h>

#include "absl/strings/str_cat.h"
#include "harness/runtime/cuda_errors_cuda.h"
#include "harness/scenarios/collective_device_api_cuda.h"
#include "harness/scenarios/nccl_dev_comm_cuda.h"

namespace gh {

struct CollectiveDevComm::Impl {
  ncclComm_t comm = nullptr;
  ncclDevComm dev{};
  int ctas = 0;
};

namespace {

constexpr int kThreads = 512;  // nccl-tests' device kernels' block size

template <typename T>
__device__ __forceinline__ T Add(T a, T b) { return a + b; }
template <>
__device__ __forceinline__ half Add(half a, half b) { return __hadd(a, b); }

// nccl-tests' allReduceLsaKernel: element i is one thread's, over the whole team.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    AllReduceLsaKernel(ncclWindow_t send, size_t send_offset, ncclWindow_t recv, size_t recv_offset,
                       size_t count, ncclDevComm dev) {
  ncclLsaBarrierSession<ncclCoopCta> barrier{ncclCoopCta(), dev, ncclTeamLsa(dev), dev.lsaBarrier, blockIdx.x};
  barrier.sync(ncclCoopCta(), cuda::memory_order_acquire);
  const int rank = dev.rank, n = dev.nRanks;
  const size_t first = threadIdx.x + size_t(blockDim.x) * (rank + size_t(blockIdx.x) * n);
  const size_t stride = size_t(blockDim.x) * gridDim.x * n;
  for (size_t i = first; i < count; i += stride) {
    T v = static_cast<T*>(ncclGetLsaPointer(send, send_offset, 0))[i];
    for (int peer = 1; peer < n; ++peer) v = Add(v, static_cast<T*>(ncclGetLsaPointer(send, send_offset, peer))[i]);
    for (int peer = 0; peer < n; ++peer) static_cast<T*>(ncclGetLsaPointer(recv, recv_offset, peer))[i] = v;
  }
  barrier.sync(ncclCoopCta(), cuda::memory_order_release);
}

// nccl-tests' NvlAlltoAllKernel: this rank's block for peer p lands in p's window at block rank.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    AlltoallLsaKernel(ncclWindow_t send, size_t send_offset, ncclWindow_t recv, size_t recv_offset,
                      size_t count, ncclDevComm dev) {
  ncclLsaBarrierSession<ncclCoopCta> barrier{ncclCoopCta(), dev, ncclTeamLsa(dev), dev.lsaBarrier, blockIdx.x};
  barrier.sync(ncclCoopCta(), cuda::memory_order_acquire);
  const int rank = dev.rank, n = dev.nRanks;
  const T* mine = static_cast<T*>(ncclGetLsaPointer(send, send_offset, rank));
  const size_t stride = size_t(blockDim.x) * gridDim.x;
  for (size_t i = threadIdx.x + size_t(blockDim.x) * blockIdx.x; i < count; i += stride) {
    for (int peer = 0; peer < n; ++peer) {
      static_cast<T*>(ncclGetLsaPointer(recv, recv_offset, peer))[rank * count + i] = mine[peer * count + i];
    }
  }
  barrier.sync(ncclCoopCta(), cuda::memory_order_release);
}

template <typename T>
cudaError_t Launch(CollectiveOp op, int ctas, ncclWindow_t send, size_t send_offset, ncclWindow_t recv,
                   size_t recv_offset, size_t count, const ncclDevComm& dev, cudaStream_t stream) {
  if (op == CollectiveOp::kAllReduce) {
    AllReduceLsaKernel<T><<<ctas, kThreads, 0, stream>>>(send, send_offset, recv, recv_offset, count, dev);
  } else {
    AlltoallLsaKernel<T><<<ctas, kThreads, 0, stream>>>(send, send_offset, recv, recv_offset, count, dev);
  }
  return cudaGetLastError();
}

}  // namespace

CollectiveDevComm::CollectiveDevComm(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

CollectiveDevComm::~CollectiveDevComm() {
  if (impl_ != nullptr) ncclDevCommDestroy(impl_->comm, &impl_->dev);
}

absl::StatusOr<std::unique_ptr<CollectiveDevComm>> CollectiveDevComm::Create(ncclComm_t comm, int ctas) {
  auto impl = std::make_unique<Impl>();
  impl->comm = comm;
  impl->ctas = ctas;
  const ncclResult_t created = CreateDevCommWithLsaBarriers(comm, ctas, &impl->dev);
  if (created != ncclSuccess) {
    return absl::FailedPreconditionError(
        absl::StrCat("ncclDevCommCreate refused: ", NcclErrorSignature(created, comm)));
  }
  if (impl->dev.lsaSize != impl->dev.nRanks) {
    const int lsa = impl->dev.lsaSize, n = impl->dev.nRanks;
    ncclDevCommDestroy(comm, &impl->dev);
    return absl::FailedPreconditionError(absl::StrCat(
        "implementation device_lsa needs every rank load/store-reachable: ", lsa, " of ", n,
        " ranks are (outside the LSA team)"));
  }
  return std::unique_ptr<CollectiveDevComm>(new CollectiveDevComm(std::move(impl)));
}

absl::Status CollectiveDevComm::Enqueue(CollectiveOp op, CollDtype dtype, ncclWindow_t send,
                                        size_t send_offset, ncclWindow_t recv, size_t recv_offset,
                                        size_t count, cudaStream_t stream) {
  const ncclDevComm& dev = impl_->dev;
  const int ctas = impl_->ctas;
  cudaError_t launched = cudaErrorInvalidValue;
  switch (dtype) {
    case CollDtype::kInt8: launched = Launch<int8_t>(op, ctas, send, send_offset, recv, recv_offset, count, dev, stream); break;
    case CollDtype::kUint8: launched = Launch<uint8_t>(op, ctas, send, send_offset, recv, recv_offset, count, dev, stream); break;
    case CollDtype::kInt32: launched = Launch<int32_t>(op, ctas, send, send_offset, recv, recv_offset, count, dev, stream); break;
    case CollDtype::kUint32: launched = Launch<uint32_t>(op, ctas, send, send_offset, recv, recv_offset, count, dev, stream); break;
    case CollDtype::kInt64: launched = Launch<int64_t>(op, ctas, send, send_offset, recv, recv_offset, count, dev, stream); break;
    case CollDtype::kUint64: launched = Launch<uint64_t>(op, ctas, send, send_offset, recv, recv_offset, count, dev, stream); break;
    case CollDtype::kHalf: launched = Launch<half>(op, ctas, send, send_offset, recv, recv_offset, count, dev, stream); break;
    case CollDtype::kFloat: launched = Launch<float>(op, ctas, send, send_offset, recv, recv_offset, count, dev, stream); break;
    case CollDtype::kDouble: launched = Launch<double>(op, ctas, send, send_offset, recv, recv_offset, count, dev, stream); break;
    default: break;
  }
  if (launched != cudaSuccess) return CudaStatus(launched, "device_lsa kernel launch", GH_CUDA_WHERE);
  return absl::OkStatus();
}

}  // namespace gh
