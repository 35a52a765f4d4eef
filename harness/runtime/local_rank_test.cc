#include "harness/runtime/local_rank.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gh {
namespace {

using ::testing::ElementsAre;

TEST(HostNameHash, IsFnv1aAndTellsHostsApart) {
  EXPECT_EQ(HostNameHash(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(HostNameHash("a"), 0xaf63dc4c8601ec8cull);  // FNV-1a 64 of "a"
  EXPECT_NE(HostNameHash("node-1"), HostNameHash("node-2"));
  EXPECT_EQ(HostNameHash("node-1"), HostNameHash(std::string("node-1")));
}

TEST(ComputeLocalRank, CountsEarlierRanksOnTheSameHost) {
  const uint64_t a = HostNameHash("a"), b = HostNameHash("b");
  const std::vector<uint64_t> hosts = {a, b, a, a, b};
  LocalRankInfo r0 = ComputeLocalRank(hosts, 0);
  EXPECT_EQ(r0.local_rank, 0);
  EXPECT_EQ(r0.local_size, 3);
  EXPECT_THAT(r0.ranks_on_host, ElementsAre(0, 2, 3));
  LocalRankInfo r3 = ComputeLocalRank(hosts, 3);
  EXPECT_EQ(r3.local_rank, 2);
  EXPECT_EQ(r3.local_size, 3);
  LocalRankInfo r4 = ComputeLocalRank(hosts, 4);
  EXPECT_EQ(r4.local_rank, 1);
  EXPECT_EQ(r4.local_size, 2);
  EXPECT_THAT(r4.ranks_on_host, ElementsAre(1, 4));
}

TEST(ComputeLocalRank, SingleRank) {
  LocalRankInfo info = ComputeLocalRank({HostNameHash("x")}, 0);
  EXPECT_EQ(info.local_rank, 0);
  EXPECT_EQ(info.local_size, 1);
  EXPECT_THAT(info.ranks_on_host, ElementsAre(0));
}

}  // namespace
}  // namespace gh
