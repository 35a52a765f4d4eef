// Which GPU a rank drives on the cuda backend: its local rank, or, when the ranks of a host
// outnumber its GPUs, a refusal unless the user asked to share (--share-gpu).
#ifndef GPUHARNESS_RUNTIME_GPU_BINDING_H_
#define GPUHARNESS_RUNTIME_GPU_BINDING_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace gh {

struct GpuBinding {
  int device = -1;
  bool shared = false;  // another rank of this job drives the same GPU
};

// `ranks_on_host` lists the world ranks on `host` (for the message). InvalidArgument when the
// host has more ranks than GPUs and sharing was not allowed, or when it has no GPU at all.
absl::StatusOr<GpuBinding> BindGpu(const std::string& host, const std::vector<int>& ranks_on_host,
                                   int local_rank, int gpus_on_host, bool share_gpu);

// NCCL refuses two ranks of one communicator on one GPU ("Duplicate GPU detected"); distinct
// host ids make it treat them as separate nodes that talk over sockets. Must run before the
// communicator is created. Sets NCCL_HOSTID="<host>-gh<rank>" and, where unset,
// NCCL_SOCKET_IFNAME=lo and NCCL_IB_DISABLE=1.
void ConfigureNcclForSharedGpu(const std::string& host, int rank);

// "0-3" / "0,2,5" style list of ranks for messages.
std::string FormatRankList(const std::vector<int>& ranks);

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_GPU_BINDING_H_
