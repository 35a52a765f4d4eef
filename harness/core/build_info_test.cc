#include "harness/core/build_info.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gh {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

TEST(BuildInfoTest, VersionTextNamesEveryFactOnItsOwnLine) {
  const BuildInfo build{"0.1.0", "24999dbabc8a-dirty", "Release", "13.0.88", "2.28.9", "90,100",
                        "Open MPI 4.1.6 (MPI 3.1)", "GNU 12.2.0", "Linux aarch64"};
  EXPECT_EQ(BuildInfoText(build),
            "gpuharness 0.1.0\n"
            "commit:             24999dbabc8a-dirty\n"
            "build type:         Release\n"
            "cuda:               13.0.88\n"
            "nccl:               2.28.9\n"
            "cuda architectures: 90,100\n"
            "mpi:                Open MPI 4.1.6 (MPI 3.1)\n"
            "compiler:           GNU 12.2.0 (Linux aarch64)\n");
}

TEST(BuildInfoTest, ACpuOnlyBuildSaysSoInTextAndLeavesTheJsonFieldsEmpty) {
  const BuildInfo build{"0.1.0", "unknown", "RelWithDebInfo", "", "", "", "MPICH 4.0.2 (MPI 4.0)",
                        "GNU 12.2.0", "Linux x86_64"};
  const std::string text = BuildInfoText(build);
  EXPECT_THAT(text, HasSubstr("\ncuda:               none (CPU-only build)\n"));
  EXPECT_THAT(text, HasSubstr("\nnccl:               none\n"));
  EXPECT_THAT(text, HasSubstr("\ncuda architectures: none\n"));
  const nlohmann::json json = BuildInfoJson(build);
  EXPECT_EQ(json["cuda"], "");
  EXPECT_EQ(json["nccl"], "");
  EXPECT_EQ(json["mpi"], "MPICH 4.0.2 (MPI 4.0)");
  EXPECT_EQ(json.size(), 9u);
}

// The generated facts of this very build: what CMake found, never placeholders.
TEST(BuildInfoTest, ThisBuildCarriesWhatCMakeFound) {
  const BuildInfo& build = ThisBuild();
  EXPECT_EQ(build.version, GH_VERSION);
  EXPECT_THAT(build.commit, MatchesRegex("unknown|[0-9a-f]{12}(-dirty)?"));
  EXPECT_FALSE(build.build_type.empty());
  EXPECT_THAT(build.mpi, MatchesRegex("(Open MPI|MPICH|Intel MPI|MVAPICH) .* \\(MPI [0-9]\\.[0-9]\\)"));
  EXPECT_EQ(build.cuda.empty(), build.nccl.empty());
  EXPECT_EQ(build.cuda.empty(), build.cuda_architectures.empty());
  EXPECT_FALSE(build.compiler.empty());
}

TEST(BuildInfoTest, MpiFlavourIsTheLeadingName) {
  EXPECT_EQ(MpiFlavour("Open MPI 4.1.4 (MPI 3.1)"), "Open MPI");
  EXPECT_EQ(MpiFlavour("MPICH 4.0.2 (MPI 4.0)"), "MPICH");
  EXPECT_EQ(MpiFlavour("unknown"), "");
}

}  // namespace
}  // namespace gh
