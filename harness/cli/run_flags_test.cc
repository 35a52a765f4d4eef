#include "harness/cli/run_flags.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/testdata/temp_dir.h"

namespace gh {
namespace {

using ::testing::ElementsAre;

TEST(RunFlagsTest, FilesAndEveryFlagInBothSpellings) {
  RunFlags flags;
  ASSERT_TRUE(flags
                  .Parse({"a.yaml", "--out", "res", "b.yaml", "--backend=cuda", "--share-gpu", "--filter", "x/*",
                          "--runs", "cells/c/job.cont1.runs"})
                  .ok());
  const RunOptions& options = flags.options();
  EXPECT_THAT(options.scenario_files, ElementsAre("a.yaml", "b.yaml"));
  EXPECT_EQ(options.out_dir, "res");
  EXPECT_EQ(options.backend, BackendChoice::kCuda);
  EXPECT_TRUE(options.share_gpu);
  EXPECT_EQ(options.filter, "x/*");
  EXPECT_EQ(options.runs_file, "cells/c/job.cont1.runs");
  RunFlags joined;
  ASSERT_TRUE(joined.Parse({"a.yaml", "--out=r2", "--backend", "host", "--filter=y", "--runs=f"}).ok());
  EXPECT_EQ(joined.options().out_dir, "r2");
  EXPECT_EQ(joined.options().backend, BackendChoice::kHost);
  EXPECT_EQ(joined.options().filter, "y");
  EXPECT_EQ(joined.options().runs_file, "f");
  EXPECT_FALSE(joined.options().share_gpu);
}

TEST(RunFlagsTest, Defaults) {
  RunFlags flags;
  ASSERT_TRUE(flags.Parse({"a.yaml", "--out", "d"}).ok());
  EXPECT_EQ(flags.options().backend, BackendChoice::kAuto);
  EXPECT_EQ(flags.options().filter, "");
  EXPECT_EQ(flags.options().runs_file, "");
}

TEST(RunFlagsTest, HelpWinsOverMissingArguments) {
  RunFlags flags;
  absl::StatusOr<CommandLine::Result> result = flags.Parse({"--help"});
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(*result, CommandLine::Result::kHelp);
}

TEST(RunFlagsTest, BadInputNamesTheFlag) {
  auto message = [](const std::vector<std::string>& args) {
    RunFlags flags;
    absl::StatusOr<CommandLine::Result> result = flags.Parse(args);
    EXPECT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(result.status().message());
  };
  EXPECT_EQ(message({"a.yaml"}), "--out DIR is required");
  EXPECT_EQ(message({"--out", "d"}), "missing SCENARIO.yaml");
  EXPECT_EQ(message({"a.yaml", "--out"}), "--out needs a directory");
  EXPECT_EQ(message({"a.yaml", "--out="}), "--out needs a directory");
  EXPECT_EQ(message({"a.yaml", "--out", "d", "--backend", "tpu"}), "--backend: expected auto, host or cuda, got 'tpu'");
  EXPECT_EQ(message({"a.yaml", "--out", "d", "--shared-gpu"}), "unknown flag --shared-gpu; did you mean --share-gpu?");
  EXPECT_EQ(message({"a.yaml", "--out", "d", "--share-gpu=yes"}), "--share-gpu takes no value");
  EXPECT_EQ(message({"a.yaml", "--out", "d", "--runs="}), "--runs needs a file");
  EXPECT_EQ(message({"a.yaml", "--out", "d", "--runs"}), "--runs needs a file");
}

// A scenario that is no file here is a shipped one (<data>/scenarios/NAME.yaml); a file wins.
TEST(RunFlagsTest, AShippedScenarioGoesByName) {
  gh::testing::ScopedTempDir dir;
  const std::string data = dir.path() + "/share/gpuharness";
  std::filesystem::create_directories(data + "/scenarios");
  std::ofstream(data + "/scenarios/ring_shift_bandwidth.yaml") << "name: x\n";
  setenv("GH_DATA_DIR", data.c_str(), 1);
  RunFlags flags;
  ASSERT_TRUE(flags.Parse({"ring_shift_bandwidth", "no_such_scenario.yaml", "--out", "r"}).ok());
  unsetenv("GH_DATA_DIR");
  EXPECT_THAT(flags.options().scenario_files,
              ElementsAre(data + "/scenarios/ring_shift_bandwidth.yaml", "no_such_scenario.yaml"));
}

}  // namespace
}  // namespace gh
