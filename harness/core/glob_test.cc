#include "harness/core/glob.h"

#include "gtest/gtest.h"

namespace gh {
namespace {

TEST(GlobMatchesTest, StarAndQuestionMark) {
  EXPECT_TRUE(GlobMatches("NVIDIA H200*", "NVIDIA H200"));
  EXPECT_TRUE(GlobMatches("*H200*", "NVIDIA H200 NVL"));
  EXPECT_TRUE(GlobMatches("H?00", "H100"));
  EXPECT_FALSE(GlobMatches("NVIDIA H200*", "NVIDIA H100 80GB HBM3"));
  EXPECT_FALSE(GlobMatches("H200", "H200 NVL"));
}

}  // namespace
}  // namespace gh
