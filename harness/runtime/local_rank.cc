#include "harness/runtime/local_rank.h"

#include "harness/core/stable_hash.h"

namespace gh {

uint64_t HostNameHash(std::string_view host) { return Fnv1a64(absl::string_view(host.data(), host.size())); }

LocalRankInfo ComputeLocalRank(const std::vector<uint64_t>& host_hashes, int rank) {
  LocalRankInfo info;
  info.local_size = 0;
  const uint64_t mine = host_hashes[rank];
  for (int r = 0; r < static_cast<int>(host_hashes.size()); ++r) {
    if (host_hashes[r] != mine) continue;
    if (r < rank) ++info.local_rank;
    ++info.local_size;
    info.ranks_on_host.push_back(r);
  }
  return info;
}

}  // namespace gh
