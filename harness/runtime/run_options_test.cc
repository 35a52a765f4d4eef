#include "harness/runtime/run_options.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gh {
namespace {

using ::testing::ElementsAre;

TEST(ParseRunOptions, FilesAndEveryFlagInBothSpellings) {
  absl::StatusOr<RunOptions> options = ParseRunOptions(
      {"a.yaml", "--out", "res", "b.yaml", "--backend=cuda", "--share-gpu", "--filter", "x/*",
       "--runs", "cells/c/job.cont1.runs"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_THAT(options->scenario_files, ElementsAre("a.yaml", "b.yaml"));
  EXPECT_EQ(options->out_dir, "res");
  EXPECT_EQ(options->backend, BackendChoice::kCuda);
  EXPECT_TRUE(options->share_gpu);
  EXPECT_EQ(options->filter, "x/*");
  EXPECT_EQ(options->runs_file, "cells/c/job.cont1.runs");
  options = ParseRunOptions({"a.yaml", "--out=r2", "--backend", "host"});
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->out_dir, "r2");
  EXPECT_EQ(options->backend, BackendChoice::kHost);
  EXPECT_FALSE(options->share_gpu);
}

TEST(ParseRunOptions, DefaultsToAuto) {
  absl::StatusOr<RunOptions> options = ParseRunOptions({"a.yaml", "--out", "d"});
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->backend, BackendChoice::kAuto);
  EXPECT_EQ(options->filter, "");
  EXPECT_EQ(options->runs_file, "");
}

TEST(ParseRunOptions, HelpWinsOverMissingArguments) {
  absl::StatusOr<RunOptions> options = ParseRunOptions({"--help"});
  ASSERT_TRUE(options.ok());
  EXPECT_TRUE(options->help);
}

TEST(ParseRunOptions, BadInputNamesTheFlag) {
  auto message = [](const std::vector<std::string>& args) {
    absl::StatusOr<RunOptions> options = ParseRunOptions(args);
    EXPECT_FALSE(options.ok());
    EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(options.status().message());
  };
  EXPECT_EQ(message({"a.yaml"}), "--out DIR is required (see gpuharness run --help)");
  EXPECT_EQ(message({"--out", "d"}), "no scenario file given (see gpuharness run --help)");
  EXPECT_EQ(message({"a.yaml", "--out"}), "--out needs a value");
  EXPECT_EQ(message({"a.yaml", "--out="}), "--out needs a directory");
  EXPECT_EQ(message({"a.yaml", "--out", "d", "--backend", "tpu"}),
            "--backend: expected auto, host or cuda, got 'tpu'");
  EXPECT_EQ(message({"a.yaml", "--out", "d", "--shared-gpu"}),
            "unknown flag '--shared-gpu' (see gpuharness run --help)");
  EXPECT_EQ(message({"a.yaml", "--out", "d", "--share-gpu=yes"}), "--share-gpu takes no value");
  EXPECT_EQ(message({"a.yaml", "--out", "d", "--runs="}), "--runs needs a file");
  EXPECT_EQ(message({"a.yaml", "--out", "d", "--runs"}), "--runs needs a value");
}

}  // namespace
}  // namespace gh
