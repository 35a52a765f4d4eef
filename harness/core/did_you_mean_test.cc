#include "harness/core/did_you_mean.h"

#include "gtest/gtest.h"

namespace gh {
namespace {

TEST(DidYouMean, SwappedLettersFindTheKey) {
  EXPECT_EQ(ClosestChoice("valeus", {"name", "values", "range"}), "values");
  EXPECT_EQ(DidYouMeanSuffix("valeus", {"name", "values"}), "; did you mean values?");
}

TEST(DidYouMean, AFlagMissingALetter) {
  EXPECT_EQ(ClosestChoice("--ot", {"--out", "--baseline", "--dry-run"}), "--out");
}

TEST(DidYouMean, NothingCloseSuggestsNothing) {
  EXPECT_EQ(ClosestChoice("frobnicate", {"sweep", "run", "bisect"}), "");
  EXPECT_EQ(DidYouMeanSuffix("frobnicate", {"sweep", "run"}), "");
  EXPECT_EQ(ClosestChoice("x", {}), "");
}

TEST(DidYouMean, AnExactChoiceIsNotATypo) {
  EXPECT_EQ(ClosestChoice("run", {"run", "sweep"}), "");
}

TEST(DidYouMean, ShortWordsAllowOneEdit) {
  EXPECT_EQ(ClosestChoice("rn", {"run", "list"}), "run");
  EXPECT_EQ(ClosestChoice("ls", {"run", "list"}), "");  // two edits from "list"
}

}  // namespace
}  // namespace gh
