#include "harness/runtime/gpu_binding.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gh {

std::string FormatRankList(const std::vector<int>& ranks) {
  return absl::StrJoin(ranks, ",");
}

absl::StatusOr<GpuBinding> BindGpu(const std::string& host, const std::vector<int>& ranks_on_host,
                                   int local_rank, int gpus_on_host, bool share_gpu) {
  const int local_size = static_cast<int>(ranks_on_host.size());
  if (gpus_on_host <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("host ", host, " (ranks ", FormatRankList(ranks_on_host),
                     ") has no visible GPU: the cuda backend needs one"));
  }
  if (local_size <= gpus_on_host) return GpuBinding{local_rank, false};
  if (!share_gpu) {
    return absl::InvalidArgumentError(absl::StrCat(
        "host ", host, " has ", local_size, " ranks (", FormatRankList(ranks_on_host), ") but ",
        gpus_on_host, gpus_on_host == 1 ? " GPU" : " GPUs",
        ": each rank needs its own GPU; pass --share-gpu to let ranks share (NCCL then talks "
        "over sockets, slowly)"));
  }
  return GpuBinding{local_rank % gpus_on_host, true};
}

void ConfigureNcclForSharedGpu(const std::string& host, int rank) {
  const std::string host_id = absl::StrCat(host, "-gh", rank);
  setenv("NCCL_HOSTID", host_id.c_str(), /*overwrite=*/1);
  setenv("NCCL_SOCKET_IFNAME", "lo", /*overwrite=*/0);
  setenv("NCCL_IB_DISABLE", "1", /*overwrite=*/0);
}

}  // namespace gh
