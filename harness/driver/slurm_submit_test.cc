#include "harness/driver/slurm_submit.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gh::driver {
namespace {

using ::testing::ElementsAre;

TEST(SlurmSubmitTest, TheBatchJobRunsTheSameSweepWithoutSlurm) {
  std::vector<std::string> args = {"sweep", "m.yaml", "--slurm", "-N 3 --exclusive", "--out", "o",
                                   "--slurm=-N 2", "-v"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  EXPECT_THAT(WithoutSlurmFlag(static_cast<int>(argv.size()), argv.data(), "/bin/gpuharness"),
              ElementsAre("/bin/gpuharness", "sweep", "m.yaml", "--out", "o", "-v"));
}

TEST(SlurmSubmitTest, SbatchWaitsAndWrapsTheQuotedSweep) {
  EXPECT_EQ(SbatchCommand("-N 3 --exclusive", {"/bin/gpuharness", "sweep", "a b.yaml", "--out", "/o"},
                          "/o/slurm-sweep.log"),
            "sbatch --wait --parsable --output=/o/slurm-sweep.log --job-name=gpuharness-sweep -N 3 --exclusive "
            "--wrap 'exec /bin/gpuharness sweep '\\''a b.yaml'\\'' --out /o'");
}

}  // namespace
}  // namespace gh::driver
