#include "harness/bisect/rolling_search.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gh {
namespace {

using ::testing::ElementsAre;

TEST(SpeculativeNextTest, MiddleThenBothHalves) {
  BisectSearch search(12, 0, 11, 3);
  EXPECT_EQ(SpeculativeNext(search, {}), 5);      // 1..10: the middle
  EXPECT_EQ(SpeculativeNext(search, {5}), 8);     // while 5 runs: the larger half 6..10
  EXPECT_EQ(SpeculativeNext(search, {5, 8}), 2);  // and the other half 1..4
  search.Record(5, ProbeVerdict::kGood);
  EXPECT_EQ(SpeculativeNext(search, {8}), 6);     // 6..7 and 9..10 tie: the earlier
  search.Record(8, ProbeVerdict::kBad);
  EXPECT_EQ(SpeculativeNext(search, {}), 6);
  search.Record(6, ProbeVerdict::kSkip);
  EXPECT_EQ(SpeculativeNext(search, {}), 7);      // a skip's neighbour
  search.Record(7, ProbeVerdict::kSkip);
  EXPECT_EQ(SpeculativeNext(search, {}), -1);     // nothing left between 5 and 8
}

// Trials of version v take durations[v] time units; Wait returns the earliest to end.
class TimedVersions : public TrialRunner {
 public:
  TimedVersions(int first_bad, std::vector<double> durations) : first_bad_(first_bad), durations_(std::move(durations)) {}
  absl::StatusOr<std::vector<TrialResult>> RunTrials(const std::vector<Request>&) override {
    return absl::InternalError("rolling search must not run batches");
  }
  absl::Status Start(const Request& r) override {
    running_.push_back({now + durations_[r.version], r});
    max_in_flight = std::max(max_in_flight, static_cast<int>(running_.size()));
    started.push_back(absl::StrCat(r.version, "@", now));
    return absl::OkStatus();
  }
  absl::StatusOr<Finished> Wait() override {
    auto first = std::min_element(running_.begin(), running_.end(), [](auto& a, auto& b) { return a.first < b.first; });
    now = first->first;
    Request r = first->second;
    running_.erase(first);
    TrialResult result;
    if (r.version >= first_bad_) {
      result.outcome = Outcome::kFail;
      result.signature = "wrong data";
    }
    return Finished{r, result};
  }
  double now = 0;
  int max_in_flight = 0;
  std::vector<std::string> started;

 private:
  int first_bad_;
  std::vector<double> durations_;
  std::vector<std::pair<double, Request>> running_;
};

TEST(RunRollingTest, StartsTheNextProbeWhenASlotFreesWithoutWaitingForTheSlowest) {
  BisectConfig config;
  for (int i = 0; i < 12; ++i) config.versions.push_back(absl::StrCat("v", i));
  config.good = 0;
  config.bad = 11;
  config.jobs = 3;
  config.sprt.max_trials = 1;
  // Version 5 (the middle) is slow: 100 units; the rest take 1.
  std::vector<double> durations(12, 1);
  durations[5] = 100;
  TimedVersions versions(8, durations);
  absl::StatusOr<Hunt> hunt = Hunt::Create(Outcome::kFail, "wrong data", false);
  ASSERT_TRUE(hunt.ok());
  BisectResult result;
  ASSERT_TRUE(RunRolling(config, versions, *hunt, ProbeRule{config.sprt, false}, result, nullptr).ok());
  EXPECT_EQ(result.answer.first_bad, 8);
  EXPECT_EQ(result.answer.last_good, 7);
  EXPECT_EQ(versions.max_in_flight, 3);
  // 5, 8 and 2 start together; 8 (bad) and 2 (good) end at 1 and the next probe, 3, starts
  // at once, long before 5 ends at 100 (a round would have waited for it).
  ASSERT_GE(versions.started.size(), 4u);
  EXPECT_THAT(std::vector<std::string>(versions.started.begin(), versions.started.begin() + 4),
              ElementsAre("5@0", "8@0", "2@0", "3@1"));
  // The answer is known once 6..9 are probed; version 5 still runs and is the last to end.
  EXPECT_LE(versions.now, 100);
}

}  // namespace
}  // namespace gh
