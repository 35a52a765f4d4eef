// status, flips and flaky over the series: since which night, the last good night, rates with
// intervals, version matrices kept apart, expected failures told from unexpected ones.
#include "harness/history/history_findings.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/history/history_queries.h"
#include "harness/history/testdata/history_fixture.h"

namespace gh {
namespace {

using ::testing::ElementsAre;
using testing::HistoryTest;
using testing::kP2p;
using testing::kPut;
using testing::NightRecord;

TEST_F(HistoryTest, FlipsNameThePlantedPointAndNight) {
  HistoryDb db = OpenDb();
  ThreeNights(db);
  auto histories = LoadHistories(db);
  ASSERT_TRUE(histories.ok()) << histories.status();
  std::vector<Flip> flips = FindFlips(*histories);
  ASSERT_EQ(flips.size(), 1u);
  EXPECT_EQ(flips[0].key.point, kP2p);
  EXPECT_EQ(flips[0].key.matrix, "nightly");
  EXPECT_EQ(flips[0].key.cell, "transport=p2p");
  EXPECT_EQ(flips[0].key.version, "");  // one version a night: the series runs across versions
  EXPECT_EQ(flips[0].from, "pass");
  EXPECT_EQ(flips[0].to, "fail");
  EXPECT_EQ(flips[0].night, "night2");
  EXPECT_EQ(flips[0].version, "n08");
  EXPECT_EQ(flips[0].previous_night, "night1");
  EXPECT_EQ(flips[0].previous_version, "n03");
  EXPECT_EQ(flips[0].signature, "wrong data on ranks 1");
  EXPECT_EQ(FindFlips(*histories, "night2").size(), 1u);
  EXPECT_TRUE(FindFlips(*histories, "night3").empty());  // known by night 3: not new
  EXPECT_TRUE(FindFlaky(*histories).empty());             // one change is a flip, not flakiness
}

TEST_F(HistoryTest, StatusSaysSinceWhichNightAndTheLastGoodOne) {
  HistoryDb db = OpenDb();
  ThreeNights(db);
  auto histories = LoadHistories(db);
  ASSERT_TRUE(histories.ok());
  std::vector<Broken> broken = FindBroken(*histories);
  ASSERT_EQ(broken.size(), 1u);
  EXPECT_EQ(broken[0].key.point, kP2p);
  EXPECT_EQ(broken[0].now.night, "night3");
  EXPECT_EQ(broken[0].now.Described(), "fail");
  EXPECT_EQ(broken[0].now.signature, "wrong data on ranks 1");
  EXPECT_EQ(broken[0].since, "night2");
  EXPECT_EQ(broken[0].since_version, "n08");
  EXPECT_EQ(broken[0].last_good, "night1");
  EXPECT_EQ(broken[0].last_good_version, "n03");
  EXPECT_EQ(broken[0].nights, 2);
  EXPECT_FALSE(broken[0].infra_tonight);
}

TEST_F(HistoryTest, StatusPassesOverInfraNightsAndPointsNoLongerRun) {
  HistoryDb db = OpenDb();
  const auto pass = Outcome::kPass, fail = Outcome::kFail, infra = Outcome::kInfra;
  Ingest(db, WriteSweep("n1", "n01", {{kP2p, {fail}}, {kPut, {fail}}}), "night1");
  Ingest(db, WriteSweep("n2", "n02", {{kP2p, {infra}}, {kPut, {pass}}}), "night2");
  auto histories = LoadHistories(db);
  ASSERT_TRUE(histories.ok());
  std::vector<Broken> broken = FindBroken(*histories);
  ASSERT_EQ(broken.size(), 1u);
  EXPECT_EQ(broken[0].key.point, kP2p);  // infra tonight: still broken since night1
  EXPECT_EQ(broken[0].since, "night1");
  EXPECT_EQ(broken[0].last_good, "");
  EXPECT_TRUE(broken[0].infra_tonight);
  EXPECT_TRUE(FindFlips(*histories).size() == 1u && FindFlips(*histories)[0].key.point == kPut);  // infra: no flip
  Ingest(db, WriteSweep("n3", "n03", {{kPut, {pass}}}), "night3");  // p2p left the matrix
  EXPECT_TRUE(FindBroken(*LoadHistories(db)).empty());
}

TEST_F(HistoryTest, ExpectedCrashesAreNotBrokenAndReadAsExpected) {
  HistoryDb db = OpenDb();
  Record expected = NightRecord(kP2p, "n01", 0, Outcome::kCrash, Outcome::kCrash);
  Record unexpected = NightRecord(kPut, "n01", 0, Outcome::kCrash);
  Ingest(db, WriteRecords("n1", {expected, unexpected}, {"n01"}), "night1");
  Record stale = NightRecord(kP2p, "n02", 0, Outcome::kPass, Outcome::kCrash);
  Ingest(db, WriteRecords("n2", {stale, NightRecord(kPut, "n02", 0, Outcome::kCrash)}, {"n02"}), "night2");
  auto histories = LoadHistories(db);
  ASSERT_TRUE(histories.ok());
  ASSERT_EQ(histories->size(), 2u);
  EXPECT_EQ((*histories)[0].nights[0].Described(), "crash (expected)");
  EXPECT_EQ((*histories)[0].nights[1].Described(), "pass (expected crash)");
  EXPECT_EQ((*histories)[1].nights[0].Described(), "crash");
  std::vector<Broken> broken = FindBroken(*histories);
  ASSERT_EQ(broken.size(), 2u);
  EXPECT_EQ(broken[0].key.point, kP2p);  // since night2: the most recent first
  EXPECT_EQ(broken[0].last_good, "night1");
  EXPECT_EQ(broken[1].key.point, kPut);
  EXPECT_EQ(broken[1].since, "night1");
}

TEST_F(HistoryTest, FlakyGivesRatesWithIntervalsMostFailingFirst) {
  HistoryDb db = OpenDb();
  const auto pass = Outcome::kPass, fail = Outcome::kFail;
  Ingest(db, WriteSweep("n1", "n01", {{kP2p, {pass}}, {kPut, {pass, pass}}}), "night1");
  Ingest(db, WriteSweep("n2", "n02", {{kP2p, {fail}}, {kPut, {pass, fail}}}), "night2");
  Ingest(db, WriteSweep("n3", "n03", {{kP2p, {pass}}, {kPut, {fail, fail}}}), "night3");
  auto histories = LoadHistories(db);
  ASSERT_TRUE(histories.ok());
  std::vector<Flaky> flaky = FindFlaky(*histories);
  ASSERT_EQ(flaky.size(), 2u);
  EXPECT_EQ(flaky[0].key.point, kPut);  // 3 of 6 trials before 1 of 3
  EXPECT_EQ(flaky[0].changes, 1);
  EXPECT_EQ(flaky[0].mixed_nights, std::vector<std::string>{"night2"});
  EXPECT_EQ(flaky[0].trials.ToString(), "3 of 6 trials (50 %, 95 % interval 18.8-81.2 %)");
  EXPECT_EQ(flaky[0].failed_nights, 2);
  EXPECT_EQ(flaky[0].nights, 3);
  EXPECT_EQ(flaky[1].key.point, kP2p);
  EXPECT_EQ(flaky[1].changes, 2);
  EXPECT_EQ(flaky[1].strip, "pass fail pass");
  EXPECT_TRUE(flaky[1].mixed_nights.empty());
  EXPECT_EQ(flaky[1].trials.ToString(), "1 of 3 trials (33.3 %, 95 % interval 6.15-79.2 %)");
}

// A version matrix sweeps several versions in one night: each is a series, so one version
// failing and another passing is neither one point's disagreeing trials nor flakiness.
TEST_F(HistoryTest, VersionMatrixNightsKeepTheirVersionsApart) {
  HistoryDb db = OpenDb();
  for (const std::string night : {"night1", "night2"}) {
    Record old_version = NightRecord(kP2p, "2.27.7", 0, Outcome::kFail);
    Record new_version = NightRecord(kP2p, "2.28.9", 0, Outcome::kPass);
    Ingest(db, WriteRecords(night, {old_version, new_version}, {"2.27.7", "2.28.9"}), night);
  }
  auto histories = LoadHistories(db);
  ASSERT_TRUE(histories.ok());
  ASSERT_EQ(histories->size(), 2u);
  EXPECT_EQ((*histories)[0].key.ToString(), std::string("nightly [transport=p2p] :: ") + kP2p + " @ 2.27.7");
  EXPECT_EQ((*histories)[1].key.version, "2.28.9");
  for (const PointHistory& h : *histories) {
    ASSERT_EQ(h.nights.size(), 2u);
    EXPECT_EQ(h.nights[0].outcomes.size(), 1u);
  }
  EXPECT_TRUE(FindFlaky(*histories).empty());
  EXPECT_TRUE(FindFlips(*histories).empty());
  std::vector<Broken> broken = FindBroken(*histories);
  ASSERT_EQ(broken.size(), 1u);
  EXPECT_EQ(broken[0].key.version, "2.27.7");
  EXPECT_EQ(broken[0].since, "night1");
}

TEST_F(HistoryTest, PointsAreFoundByGlob) {
  HistoryDb db = OpenDb();
  ThreeNights(db);
  auto p2p = LoadHistories(db, {"ring_shift/*mpi_p2p*"});
  ASSERT_TRUE(p2p.ok());
  ASSERT_EQ(p2p->size(), 1u);
  EXPECT_EQ((*p2p)[0].key.point, kP2p);
  EXPECT_EQ(LoadHistories(db, {"*/np=2"})->size(), 2u);
  EXPECT_EQ(LoadHistories(db, {kPut})->size(), 1u);
  EXPECT_TRUE(LoadHistories(db, {"ring_shift/bytes=4K"})->empty());  // a name matches whole
}

}  // namespace
}  // namespace gh
