#include "harness/core/point_filter.h"

#include "gtest/gtest.h"

namespace gh {
namespace {

constexpr char kSmall[] = "ring_shift/bytes=4K/dtype=f32/np=2";
constexpr char kLarge[] = "ring_shift/bytes=1G/dtype=f32/np=4";
constexpr char kOther[] = "sliced_collective/op=all_gather/np=2";

TEST(PointFilterTest, AnEmptyFilterOrOneGlobMatchesAsBefore) {
  EXPECT_TRUE(PointNameMatches("", kOther));
  EXPECT_TRUE(PointNameMatches("ring_shift/*", kSmall));
  EXPECT_FALSE(PointNameMatches("ring_shift/*", kOther));
  EXPECT_TRUE(PointNameMatches("*/np=?", kOther));
  EXPECT_FALSE(PointNameMatches("ring_shift", kSmall));  // a glob matches the whole name
}

TEST(PointFilterTest, AndOrNotCombineGlobs) {
  EXPECT_TRUE(PointNameMatches("*np=2 or *np=4", kLarge));
  EXPECT_FALSE(PointNameMatches("*np=8 or *np=16", kLarge));
  EXPECT_TRUE(PointNameMatches("ring_shift/* and not *bytes=1G*", kSmall));
  EXPECT_FALSE(PointNameMatches("ring_shift/* and not *bytes=1G*", kLarge));
  EXPECT_FALSE(PointNameMatches("ring_shift/* and not *bytes=1G*", kOther));
  EXPECT_TRUE(PointNameMatches("not not ring_shift/*", kSmall));
}

TEST(PointFilterTest, NotBindsTightestThenAndThenOr) {
  // a or b and c  ==  a or (b and c)
  EXPECT_TRUE(PointNameMatches("sliced* or ring* and *np=4", kOther));
  EXPECT_FALSE(PointNameMatches("sliced* or ring* and *np=4", kSmall));
  EXPECT_TRUE(PointNameMatches("sliced* or ring* and *np=4", kLarge));
  // Parentheses change it: (a or b) and c.
  EXPECT_FALSE(PointNameMatches("(sliced* or ring*) and *np=4", kOther));
  EXPECT_TRUE(PointNameMatches("(sliced* or ring*)and(*np=4)", kLarge));  // parentheses need no spaces
  // not a and b  ==  (not a) and b
  EXPECT_TRUE(PointNameMatches("not ring* and *np=2", kOther));
  EXPECT_FALSE(PointNameMatches("not (ring* and *np=2) and *np=2", kSmall));
}

TEST(PointFilterTest, MalformedFiltersAreRefusedWithTheirColumn) {
  EXPECT_TRUE(CheckPointFilter("").ok());
  EXPECT_TRUE(CheckPointFilter("a* and (b or not c)").ok());
  EXPECT_EQ(CheckPointFilter("ring* and").message(), "expected a glob, 'not' or '(' at the end");
  EXPECT_EQ(CheckPointFilter("ring* *np=2").message(),
            "expected 'or', 'and' or the end at column 7, found '*np=2'");
  EXPECT_EQ(CheckPointFilter("(ring* or sliced*").message(), "the '(' at column 1 is never closed");
  EXPECT_EQ(CheckPointFilter("ring*)").message(), "expected 'or', 'and' or the end at column 6, found ')'");
  EXPECT_EQ(CheckPointFilter("or x").message(), "expected a glob, 'not' or '(' at column 1, found 'or'");
  EXPECT_TRUE(absl::IsInvalidArgument(CheckPointFilter("not")));
  // What is refused matches nothing (never everything).
  EXPECT_FALSE(PointNameMatches("ring* and", kSmall));
}

}  // namespace
}  // namespace gh
