#include "harness/report/sweep_info.h"

#include "gtest/gtest.h"

namespace gh {
namespace {

TEST(SweepInfoTest, RoundTrip) {
  SweepInfo info;
  info.matrix_name = "nccl_flags";
  info.matrix_file = "matrices/nccl_flags.yaml";
  info.axes = {{"proto", false, {"simple", "ll"}}, {"nccl", true, {"2.28.3", "2.28.9"}}};
  info.cells = {{"proto=ll,nccl=2.28.9", {{"proto", "ll"}, {"nccl", "2.28.9"}}, "setup_failed", "pip failed", 1.5}};
  absl::StatusOr<SweepInfo> back = SweepInfo::FromJson(info.ToJson());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->matrix_name, "nccl_flags");
  EXPECT_EQ(back->matrix_file, "matrices/nccl_flags.yaml");
  ASSERT_EQ(back->axes.size(), 2u);
  EXPECT_EQ(back->axes[1].name, "nccl");
  EXPECT_TRUE(back->axes[1].is_version);
  EXPECT_FALSE(back->axes[0].is_version);
  EXPECT_EQ(back->axes[0].labels, (std::vector<std::string>{"simple", "ll"}));
  ASSERT_EQ(back->cells.size(), 1u);
  EXPECT_EQ(back->cells[0].id, "proto=ll,nccl=2.28.9");
  EXPECT_EQ(back->cells[0].axes, (std::map<std::string, std::string>{{"proto", "ll"}, {"nccl", "2.28.9"}}));
  EXPECT_EQ(back->cells[0].status, "setup_failed");
  EXPECT_EQ(back->cells[0].detail, "pip failed");
  EXPECT_DOUBLE_EQ(back->cells[0].wall_s, 1.5);
  EXPECT_EQ(back->ToJson(), info.ToJson());
}

TEST(SweepInfoTest, ErrorsNameTheKey) {
  auto error = [](const char* text) {
    return std::string(SweepInfo::FromJson(nlohmann::json::parse(text)).status().message());
  };
  EXPECT_EQ(error("[]"), "(top level): expected an object");
  EXPECT_EQ(error(R"({"matrix_name": 3})"), "matrix_name: expected a string");
  EXPECT_EQ(error(R"({"axes": {}})"), "axes: expected a list");
  EXPECT_EQ(error(R"({"axes": [{"labels": []}]})"), "axes[0].name: missing");
  EXPECT_EQ(error(R"({"axes": [{"name": "a", "labels": ["x", 2]}]})"), "axes[0].labels[1]: expected a string");
  EXPECT_EQ(error(R"({"axes": [{"name": "a", "is_version": "yes"}]})"), "axes[0].is_version: expected true or false");
  EXPECT_EQ(error(R"({"cells": [{"id": "a"}, {"axes": {}}]})"), "cells[1].id: missing");
  EXPECT_EQ(error(R"({"cells": [{"id": "a", "axes": {"proto": 1}}]})"), "cells[0].axes.proto: expected a string");
  EXPECT_EQ(error(R"({"cells": [{"id": "a", "wall_s": "x"}]})"), "cells[0].wall_s: expected a number");
}

TEST(SweepInfoTest, MissingOptionalFieldsAreDefaults) {
  absl::StatusOr<SweepInfo> info = SweepInfo::FromJson(nlohmann::json::parse(R"({"cells": [{"id": "c"}]})"));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->matrix_name, "");
  ASSERT_EQ(info->cells.size(), 1u);
  EXPECT_TRUE(info->cells[0].axes.empty());
  EXPECT_EQ(info->cells[0].status, "");
}

TEST(SweepInfoTest, SchemaVersionIsWrittenAndChecked) {
  EXPECT_EQ(SweepInfo{}.ToJson().at("schema_version"), kSweepInfoSchemaVersion);
  EXPECT_TRUE(SweepInfo::FromJson(nlohmann::json::parse(R"({"schema_version": 1})")).ok());
  absl::StatusOr<SweepInfo> newer = SweepInfo::FromJson(nlohmann::json::parse(R"({"schema_version": 2})"));
  EXPECT_EQ(newer.status().message(), "schema_version: 2 is newer than this gpuharness reads (1)");
  absl::StatusOr<SweepInfo> bad = SweepInfo::FromJson(nlohmann::json::parse(R"({"schema_version": "1"})"));
  EXPECT_EQ(bad.status().message(), "schema_version: expected a positive integer");
}

}  // namespace
}  // namespace gh
