#include "harness/runtime/timeout_outcome.h"

#include "gtest/gtest.h"

namespace gh {
namespace {

WatchdogReport Report(int rank, const char* step) {
  WatchdogReport report;
  report.rank = rank;
  report.step = step;
  return report;
}

TEST(TimeoutOutcome, GroupsRanksByStepScenarioStepsFirst) {
  const std::vector<WatchdogReport> reports = {
      Report(0, "collect results"), Report(1, "exchange"), Report(2, "exchange"),
      Report(3, kUnresponsiveStep), Report(4, "verify")};
  PointOutcome result = TimeoutOutcome(absl::Seconds(5), reports,
                                       {"h0", "h0", "h1", "h1", "h2"}, {0, 1, 0, 1, -1});
  EXPECT_EQ(result.outcome, Outcome::kTimeout);
  EXPECT_EQ(result.signature,
            "timeout after 5s in step 'exchange' [ranks 1,2]; step 'verify' [ranks 4]; step "
            "'collect results' [ranks 0]; unresponsive [ranks 3]");
  ASSERT_EQ(result.ranks.size(), 5u);
  EXPECT_EQ(result.ranks[1].step, "exchange");
  EXPECT_EQ(result.ranks[1].signature, "in step 'exchange'");
  EXPECT_EQ(result.ranks[1].host, "h0");
  EXPECT_EQ(result.ranks[1].device, 1);
  EXPECT_EQ(result.ranks[3].step, "unresponsive");
  EXPECT_EQ(result.ranks[3].signature, "unresponsive: no report within the grace period");
  for (const RankOutcome& rank : result.ranks) EXPECT_EQ(rank.outcome, Outcome::kTimeout);
}

TEST(TimeoutOutcome, OneRank) {
  PointOutcome result = TimeoutOutcome(absl::Milliseconds(1500), {Report(0, "exchange")}, {"h"}, {-1});
  EXPECT_EQ(result.signature, "timeout after 1.5s in step 'exchange' [ranks 0]");
}

}  // namespace
}  // namespace gh
