#include "harness/core/stable_hash.h"

#include "gtest/gtest.h"

namespace gh {
namespace {

TEST(StableHash, IsFnv1a64AndTheSameOnEveryBuild) {
  EXPECT_EQ(StableHash(""), "cbf29ce484222325");  // the offset basis
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(StableHash("a"), "af63dc4c8601ec8c");
  EXPECT_NE(Fnv1a64("a", 1469598103934665603ull), Fnv1a64("a"));  // a caller's own basis
}

}  // namespace
}  // namespace gh
