#include "harness/core/rank_log_path.h"

#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "harness/core/path_under.h"

namespace gh {
namespace {

const std::set<std::string> kExecParams = {"count", "flags", "size", "variant"};

TEST(RankLogPath, OneFolderPerNamePartAndAFilePerRankAndTrial) {
  EXPECT_EQ(RankLogPath("framework/variant=allgather/np=2", kExecParams, 1, 0),
            "logs/framework/variant=allgather/np=2/rank1.log");
  EXPECT_EQ(RankLogPath("framework/variant=allgather/np=2", kExecParams, 0, 2),
            "logs/framework/variant=allgather/np=2/rank0.trial2.log");
  EXPECT_EQ(RankLogPath("solo/np=1", kExecParams, 0, 0), "logs/solo/np=1/rank0.log");
}

TEST(RankLogPath, AValueWithSlashesStaysOneFolderInsideLogs) {
  const std::string name = "jax/flags=--xla_dump_to=/tmp/x/../../etc/variant=a/np=4";
  EXPECT_EQ(PointNameParts(name, kExecParams),
            (std::vector<std::string>{"jax", "flags=--xla_dump_to=/tmp/x/../../etc", "variant=a", "np=4"}));
  const std::string path = RankLogPath(name, kExecParams, 3, 0);
  EXPECT_EQ(path, "logs/jax/" + SafeDirName("flags=--xla_dump_to=/tmp/x/../../etc") + "/variant=a/np=4/rank3.log");
  // No folder of the path climbs: ".." survives only inside a longer, harmless name.
  for (absl::string_view part : absl::StrSplit(path, '/')) EXPECT_NE(part, "..") << path;
  // A piece that only looks like a parameter is part of the value before it.
  EXPECT_EQ(PointNameParts("s/flags=a/b=1/np=2", kExecParams),
            (std::vector<std::string>{"s", "flags=a/b=1", "np=2"}));
}

TEST(RankLogPath, LogDirIsTheRankLogsFolder) {
  EXPECT_EQ(PointLogDir("ring/bytes=4K/transport=mpi_p2p/np=2", {"bytes", "transport"}),
            "logs/ring/bytes=4K/transport=mpi_p2p/np=2");
}

}  // namespace
}  // namespace gh
