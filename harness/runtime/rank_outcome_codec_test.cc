#include "harness/runtime/rank_outcome_codec.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gh {
namespace {

using ::testing::HasSubstr;

RankOutcome FailingRank() {
  RankOutcome rank;
  rank.rank = 3;
  rank.host = "node-\"7\"";
  rank.device = 2;
  rank.outcome = Outcome::kFail;
  rank.signature = "1 of 1024 elements wrong, first at 512";
  rank.step = "verify";
  rank.mismatch = Mismatch{1, 1024, 512, "1.5 (0x3fc00000)", "1.50000012 (0x3fc00001)"};
  rank.metrics = {{"time_median_us", 12.25, "us"}, {"bandwidth_GBps", 0.5, "GB/s"}};
  return rank;
}

TEST(RankOutcomeCodec, RoundTripsEveryField) {
  const RankOutcome original = FailingRank();
  absl::StatusOr<RankOutcome> decoded = DecodeRankOutcome(EncodeRankOutcome(original));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->rank, 3);
  EXPECT_EQ(decoded->host, "node-\"7\"");
  EXPECT_EQ(decoded->device, 2);
  EXPECT_EQ(decoded->outcome, Outcome::kFail);
  EXPECT_EQ(decoded->signature, original.signature);
  EXPECT_EQ(decoded->step, "verify");
  ASSERT_TRUE(decoded->mismatch.has_value());
  EXPECT_EQ(decoded->mismatch->wrong_elements, 1);
  EXPECT_EQ(decoded->mismatch->checked_elements, 1024);
  EXPECT_EQ(decoded->mismatch->first_index, 512);
  EXPECT_EQ(decoded->mismatch->expected, "1.5 (0x3fc00000)");
  EXPECT_EQ(decoded->mismatch->actual, "1.50000012 (0x3fc00001)");
  ASSERT_EQ(decoded->metrics.size(), 2u);
  EXPECT_EQ(decoded->metrics[0].name, "time_median_us");
  EXPECT_EQ(decoded->metrics[0].value, 12.25);
  EXPECT_EQ(decoded->metrics[0].unit, "us");
  EXPECT_EQ(decoded->metrics[1].unit, "GB/s");
}

TEST(RankOutcomeCodec, PassWithoutMismatchStaysWithout) {
  RankOutcome pass;
  pass.rank = 0;
  absl::StatusOr<RankOutcome> decoded = DecodeRankOutcome(EncodeRankOutcome(pass));
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->outcome, Outcome::kPass);
  EXPECT_FALSE(decoded->mismatch.has_value());
  EXPECT_TRUE(decoded->metrics.empty());
}

TEST(RankOutcomeCodec, InvalidUtf8InASignatureIsReplacedNotFatal) {
  RankOutcome rank;
  rank.signature = std::string("bad \xff byte");
  absl::StatusOr<RankOutcome> decoded = DecodeRankOutcome(EncodeRankOutcome(rank));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_THAT(decoded->signature, HasSubstr("bad "));
}

TEST(RankOutcomeCodec, GarbageIsAnErrorNotAnException) {
  absl::StatusOr<RankOutcome> decoded = DecodeRankOutcome("{\"rank\": ");
  ASSERT_FALSE(decoded.ok());
  EXPECT_THAT(decoded.status().message(), HasSubstr("rank outcome: not JSON"));
  decoded = DecodeRankOutcome("{\"rank\": \"zero\"}");
  ASSERT_FALSE(decoded.ok());
  EXPECT_THAT(decoded.status().message(), HasSubstr("rank outcome: "));
  decoded = DecodeRankOutcome(
      R"({"rank":0,"host":"h","device":-1,"outcome":"sideways","signature":"","step":"","metrics":[]})");
  ASSERT_FALSE(decoded.ok());
}

}  // namespace
}  // namespace gh
