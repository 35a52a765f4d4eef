// Which ranks share a host: the local rank is this rank's position among the ranks whose host
// names hash alike (as nccl-tests does), and the local size is how many there are.
#ifndef GPUHARNESS_RUNTIME_LOCAL_RANK_H_
#define GPUHARNESS_RUNTIME_LOCAL_RANK_H_

#include <cstdint>
#include <string_view>
#include <vector>

namespace gh {

struct LocalRankInfo {
  int local_rank = 0;
  int local_size = 1;
  std::vector<int> ranks_on_host;  // world ranks with this rank's host hash, ascending
};

// FNV-1a of the host name: stable across processes and builds (std::hash is not).
uint64_t HostNameHash(std::string_view host);

// `host_hashes` holds every rank's HostNameHash, indexed by world rank.
LocalRankInfo ComputeLocalRank(const std::vector<uint64_t>& host_hashes, int rank);

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_LOCAL_RANK_H_
