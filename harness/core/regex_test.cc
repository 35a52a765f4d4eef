#include "harness/core/regex.h"

#include <string>

#include "gtest/gtest.h"

namespace gh {
namespace {

TEST(Regex, SearchFindsAMatchAnywhere) {
  absl::StatusOr<Regex> re = Regex::Compile("FAILED_PRECONDITION: .*async_computation");
  ASSERT_TRUE(re.ok()) << re.status();
  EXPECT_TRUE(re->Search("E0101 FAILED_PRECONDITION: bad async_computation here"));
  EXPECT_FALSE(re->Search("FAILED_PRECONDITION: something else"));
}

TEST(Regex, GroupsOfTheFirstMatch) {
  absl::StatusOr<Regex> re = Regex::Compile(R"(rank (\d+) exited on signal (\d+))");
  ASSERT_TRUE(re.ok());
  std::optional<std::vector<std::string>> groups =
      re->SearchGroups("x rank 2 exited on signal 9; rank 3 exited on signal 6");
  ASSERT_TRUE(groups.has_value());
  EXPECT_EQ(*groups, (std::vector<std::string>{"rank 2 exited on signal 9", "2", "9"}));
  EXPECT_FALSE(re->SearchGroups("nothing").has_value());
}

TEST(Regex, BadPatternsAreInvalidArgumentWithRe2sReason) {
  absl::StatusOr<Regex> re = Regex::Compile("(abc");
  ASSERT_FALSE(re.ok());
  EXPECT_EQ(re.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(re.status().message().find("missing )"), std::string::npos) << re.status();
  EXPECT_FALSE(Regex::Compile(R"((a)\1)").ok());  // back-references: not in RE2
}

// std::regex recursed once per character here and overflowed the stack at ~100 KB.
TEST(Regex, OneMiBLineAndTenMiBTextMatchAndDoNotMatchInLinearTime) {
  const std::string line = "FAILED_PRECONDITION: " + std::string(1 << 20, 'x') + " async_computation";
  absl::StatusOr<Regex> re = Regex::Compile("FAILED_PRECONDITION: .*async_computation");
  ASSERT_TRUE(re.ok());
  EXPECT_TRUE(re->Search(line));
  std::string big;
  for (int i = 0; i < 10; ++i) big += std::string(1 << 20, 'y') + "\n";
  EXPECT_FALSE(re->Search(big));
  EXPECT_TRUE(re->Search(big + line));
}

}  // namespace
}  // namespace gh
