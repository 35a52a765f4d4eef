// The nightly's comparison is the reports' (core/comparison.h) with the version axis left out,
// and "new" comes from the history's flips.
#include "harness/history/night_regressions.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/history/history_queries.h"
#include "harness/history/testdata/history_fixture.h"

namespace gh {
namespace {

using ::testing::HasSubstr;
using testing::HistoryTest;
using testing::kP2p;
using testing::kPut;
using testing::NightRecord;

TEST_F(HistoryTest, NightRegressionsAreTheReportsRuleAcrossVersions) {
  HistoryDb db = OpenDb();
  // The baseline's put point passed one trial and skipped another: all its judged trials
  // passed, so failing now is a regression (the comparison's rule; skips are no failures).
  Record put_skip = NightRecord(kPut, "n03", 1, Outcome::kSkip);
  put_skip.matched = true;
  const std::string base = WriteRecords("n1", {NightRecord(kP2p, "n03", 0, Outcome::kPass),
                                               NightRecord(kPut, "n03", 0, Outcome::kPass), put_skip}, {"n03"});
  Ingest(db, base, "night1");
  const std::string night2 = WriteSweep("n2", "n08", {{kP2p, {Outcome::kFail, Outcome::kPass}}, {kPut, {Outcome::kPass}}});
  Ingest(db, night2, "night2");
  const std::string night3 = WriteSweep("n3", "n08", {{kP2p, {Outcome::kFail}}, {kPut, {Outcome::kCrash, Outcome::kInfra}}});
  Ingest(db, night3, "night3");
  auto histories = LoadHistories(db);
  ASSERT_TRUE(histories.ok());

  absl::StatusOr<NightRegressions> second = FindNightRegressions(night2, base, *histories, "night2");
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->matrix, "nightly");
  EXPECT_EQ(second->version_axes, std::vector<std::string>{"nightly"});
  ASSERT_EQ(second->regressions.size(), 1u);
  const NightRegression& r = second->regressions[0];
  EXPECT_EQ(r.point, kP2p);
  EXPECT_EQ(r.cell_arg, "transport=p2p");
  EXPECT_EQ(r.now, "fail");
  EXPECT_EQ(r.failed_trials, 1);
  EXPECT_EQ(r.trials, 2);
  EXPECT_EQ(r.signature, "wrong data on ranks 1");
  EXPECT_EQ(r.version, "n08");
  EXPECT_EQ(r.baseline_version, "n03");
  EXPECT_TRUE(r.is_new);

  absl::StatusOr<NightRegressions> third = FindNightRegressions(night3, base, *histories, "night3");
  ASSERT_TRUE(third.ok()) << third.status();
  ASSERT_EQ(third->regressions.size(), 2u);
  EXPECT_EQ(third->regressions[0].point, kP2p);
  EXPECT_FALSE(third->regressions[0].is_new);  // failing since night2: bisected then
  EXPECT_EQ(third->regressions[1].point, kPut);
  EXPECT_EQ(third->regressions[1].now, "crash");  // infra is no verdict
  EXPECT_EQ(third->regressions[1].failed_trials, 1);
  EXPECT_TRUE(third->regressions[1].is_new);

  // What it writes reads back the same.
  absl::StatusOr<NightRegressions> again = NightRegressions::FromJson(third->ToJson(), "regressions.json");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->ToJson(), third->ToJson());
  nlohmann::json broken = third->ToJson();
  broken["regressions"][1]["new"] = "yes";
  EXPECT_THAT(NightRegressions::FromJson(broken, "r.json").status().message(),
              HasSubstr("r.json: regressions[1].new: expected"));
}

}  // namespace
}  // namespace gh
