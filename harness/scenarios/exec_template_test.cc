#include "harness/scenarios/exec_template.h"

#include "gtest/gtest.h"

namespace gh {
namespace {

TEST(ExecTemplate, ReplacesPlaceholdersAndKeepsQuantifiersAndEscapedBraces) {
  const std::map<std::string, std::string> values = {{"rank", "3"}, {"coordinator", "h:9"}};
  absl::StatusOr<std::string> text =
      ExpandExecTemplate("^process {rank}: ok \\d{2} {2,3} {{rank}} at {coordinator}$", values);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "^process 3: ok \\d{2} {2,3} {rank} at h:9$");
}

TEST(ExecTemplate, UnknownPlaceholderIsNamed) {
  absl::StatusOr<std::string> text = ExpandExecTemplate("x {rnak} y", {{"rank", "0"}});
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().message(), "unknown placeholder {rnak}");
  EXPECT_EQ(CheckExecTemplate("{out}/{flags}", {"out"}).message(), "unknown placeholder {flags}");
  EXPECT_TRUE(CheckExecTemplate("{out} {Rank} {} {1}", ExecFixedPlaceholders()).ok());
}

}  // namespace
}  // namespace gh
