#include "harness/runtime/rank_outcome_codec.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <cmath>
#include <limits>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "harness/core/testdata/error_cases.h"
#include "harness/core/testdata/full_record.h"

namespace gh {
namespace {

using ::testing::HasSubstr;

RankOutcome FailingRank() {
  RankOutcome rank = testing::WrongDataRank(
      3, "node-\"7\"", 2, Mismatch{1, 1024, 512, "1.5 (0x3fc00000)", "1.50000012 (0x3fc00001)"});
  rank.signature = "1 of 1024 elements wrong, first at 512";
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

TEST(RankOutcomeCodec, StringsComeBackByteForByte) {
  RankOutcome rank;
  rank.signature = std::string("bad \xff byte\0 and a NUL", 24);
  rank.output_tail = "line 1\nline 2\n";
  rank.metrics = {{"nan", std::numeric_limits<double>::quiet_NaN(), ""},
                  {"tiny", 5e-324, "us"}};
  absl::StatusOr<RankOutcome> decoded = DecodeRankOutcome(EncodeRankOutcome(rank));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->signature, rank.signature);
  EXPECT_EQ(decoded->output_tail, "line 1\nline 2\n");
  ASSERT_EQ(decoded->metrics.size(), 2u);
  EXPECT_TRUE(std::isnan(decoded->metrics[0].value));
  EXPECT_EQ(decoded->metrics[1].value, 5e-324);
}

TEST(RankOutcomeCodec, EveryOutcomeRoundTrips) {
  for (Outcome o : {Outcome::kPass, Outcome::kSkip, Outcome::kFail, Outcome::kError,
                    Outcome::kTimeout, Outcome::kCrash}) {
    RankOutcome rank;
    rank.rank = 1023;
    rank.outcome = o;
    absl::StatusOr<RankOutcome> decoded = DecodeRankOutcome(EncodeRankOutcome(rank));
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_EQ(decoded->outcome, o);
    EXPECT_EQ(decoded->rank, 1023);
  }
}

TEST(RankOutcomeCodec, StackAndNoteRoundTripAndATruncatedStackIsAnError) {
  RankOutcome rank = FailingRank();
  rank.stack = {"PMPI_Barrier [libmpi.so.40]", "gh::RingShift::RunSteps() [gpuharness]"};
  rank.stack_note = "main thread, 2 frames";
  const std::string bytes = EncodeRankOutcome(rank);
  absl::StatusOr<RankOutcome> decoded = DecodeRankOutcome(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->stack, rank.stack);
  EXPECT_EQ(decoded->stack_note, "main thread, 2 frames");
  // A note alone (no frames could be had) travels too.
  RankOutcome noted;
  noted.stack_note = "no stack: the rank sent no report";
  decoded = DecodeRankOutcome(EncodeRankOutcome(noted));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_TRUE(decoded->stack.empty());
  EXPECT_EQ(decoded->stack_note, "no stack: the rank sent no report");
  absl::StatusOr<RankOutcome> cut = DecodeRankOutcome(bytes.substr(0, bytes.size() - 3));
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.status().message(),
            "rank outcome: stack note: length 21 runs past the end (18 bytes left)");
}

TEST(RankOutcomeCodec, GarbageIsAnErrorNamingWhatAndWhere) {
  auto message = [](std::string_view bytes) {
    return testing::InvalidArgumentMessage(DecodeRankOutcome(bytes));
  };
  EXPECT_EQ(message("{\"rank\": 0}"), "rank outcome: not an encoded outcome (11 bytes)");
  EXPECT_EQ(message(""), "rank outcome: not an encoded outcome (0 bytes)");
  const std::string good = EncodeRankOutcome(FailingRank());
  std::string newer = good;
  newer[4] = 2;
  EXPECT_EQ(message(newer), "rank outcome: encoding version 2, this gpuharness reads 1");
  // Cut inside the rank number: 5 header bytes, then 8 for the rank.
  EXPECT_EQ(message(good.substr(0, 9)), "rank outcome: truncated at byte 5 reading rank");
  EXPECT_EQ(message(good.substr(0, good.size() - 1)),
            "rank outcome: metric unit: length 4 runs past the end (3 bytes left)");
  EXPECT_EQ(message(good + "x"),
            absl::StrCat("rank outcome: trailing bytes after byte ", good.size()));
  std::string bad_code = good;
  bad_code[5 + 16] = 9;  // the outcome byte follows rank and device
  EXPECT_EQ(message(bad_code), "rank outcome: unknown outcome code 9");
}

TEST(RankOutcomeCodec, GatheredBytesThatDoNotDecodeAreThatRanksErrorInCollectResults) {
  const RankOutcome broken = DecodeGatheredOutcome(5, "{\"rank\": 0}");
  EXPECT_EQ(broken.rank, 5);
  EXPECT_EQ(broken.outcome, Outcome::kError);
  EXPECT_EQ(broken.signature, "rank outcome: not an encoded outcome (11 bytes)");
  EXPECT_EQ(broken.step, "collect results");
  EXPECT_FALSE(broken.mismatch.has_value());

  const RankOutcome decoded = DecodeGatheredOutcome(5, EncodeRankOutcome(FailingRank()));
  EXPECT_EQ(decoded.rank, 3);  // a decoded outcome keeps the rank it carries
  EXPECT_EQ(decoded.outcome, Outcome::kFail);
  EXPECT_EQ(decoded.step, "verify");
}

TEST(RankOutcomeCodecSamplesTest, MetricSamplesSurviveTheGatherWithAStack) {
  RankOutcome outcome;
  outcome.rank = 1;
  outcome.metrics = {{"time_median_us", 2, "us", {3, 1, 2}}, {"iterations", 3, "count", {}}};
  outcome.stack = {"frame"};
  absl::StatusOr<RankOutcome> back = DecodeRankOutcome(EncodeRankOutcome(outcome));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->metrics[0].samples, (std::vector<double>{3, 1, 2}));
  EXPECT_TRUE(back->metrics[1].samples.empty());
  EXPECT_EQ(back->stack, std::vector<std::string>{"frame"});
  outcome.stack.clear();
  back = DecodeRankOutcome(EncodeRankOutcome(outcome));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->metrics[0].samples, (std::vector<double>{3, 1, 2}));
}

}  // namespace
}  // namespace gh
