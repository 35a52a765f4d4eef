#include "harness/core/run_list.h"

#include <gtest/gtest.h>

namespace gh {
namespace {

TEST(RunListTest, FormatThenParseGivesTheSameRunsInOrder) {
  std::vector<RunKey> runs = {{"ring/bytes=4K/np=2", 0}, {"capture/ops=dus kernel/np=1", 7},
                              {"ring/bytes=1K/np=2", 0}};
  const std::string text = FormatRunList(runs);
  EXPECT_EQ(text, "ring/bytes=4K/np=2\t0\ncapture/ops=dus kernel/np=1\t7\nring/bytes=1K/np=2\t0\n");
  absl::StatusOr<std::vector<RunKey>> parsed = ParseRunList(text, "runs.txt");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(*parsed, runs);
}

TEST(RunListTest, EmptyLinesAndCarriageReturnsAreIgnored) {
  std::vector<int> lines;
  absl::StatusOr<std::vector<RunKey>> parsed = ParseRunList("\na/np=1\t2\r\n\n", "r", &lines);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(lines, std::vector<int>{2});
  ASSERT_EQ(parsed->size(), 1u);
  EXPECT_EQ((*parsed)[0].point, "a/np=1");
  EXPECT_EQ((*parsed)[0].trial, 2);
}

TEST(RunListTest, ErrorsNameTheFileAndLine) {
  EXPECT_EQ(ParseRunList("a\t0\nb 1\n", "cells/x/job.runs").status().message(),
            "cells/x/job.runs:2: expected '<point name><TAB><trial>', got 'b 1'");
  EXPECT_EQ(ParseRunList("\t0\n", "r").status().message(),
            "r:1: expected '<point name><TAB><trial>', got '\t0'");
  EXPECT_EQ(ParseRunList("a\t0\na\tx\n", "r").status().message(),
            "r:2: trial must be a whole number >= 0, got 'x'");
  EXPECT_EQ(ParseRunList("a\t-1\n", "r").status().message(),
            "r:1: trial must be a whole number >= 0, got '-1'");
  EXPECT_EQ(ParseRunList("a\t1\nb\t0\na\t1\n", "r").status().message(),
            "r:3: run 'a' trial 1 is listed twice");
  EXPECT_EQ(ParseRunList("a\t1\n", "r").status().code(), absl::StatusCode::kOk);
  EXPECT_EQ(ParseRunList("a\t1\nb\t0\na\t1\n", "r").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace gh
