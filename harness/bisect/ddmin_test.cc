#include "harness/bisect/ddmin.h"

#include <algorithm>
#include <set>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gh {
namespace {

using ::testing::ElementsAre;

// Fails when every change in `culprits` is applied.
DdTest FailsWithAll(std::vector<int> culprits, int* calls) {
  return [culprits, calls](const std::vector<int>& changes) -> absl::StatusOr<DdOutcome> {
    ++*calls;
    for (int c : culprits) {
      if (!std::binary_search(changes.begin(), changes.end(), c)) return DdOutcome::kPass;
    }
    return DdOutcome::kFail;
  };
}

TEST(DdminTest, FindsTheSingleCulprit) {
  int calls = 0;
  absl::StatusOr<DdminResult> result = Ddmin(8, FailsWithAll({5}, &calls));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->minimal, ElementsAre(5));
  EXPECT_EQ(result->tests_run, calls);
  EXPECT_LE(calls, 8);  // log2(8) halvings, each testing at most two halves
}

TEST(DdminTest, FindsAPairThatOnlyFailsTogether) {
  int calls = 0;
  absl::StatusOr<DdminResult> result = Ddmin(8, FailsWithAll({1, 6}, &calls));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->minimal, ElementsAre(1, 6));
}

TEST(DdminTest, OneChangeIsItsOwnMinimum) {
  int calls = 0;
  absl::StatusOr<DdminResult> result = Ddmin(1, FailsWithAll({0}, &calls));
  ASSERT_TRUE(result.ok());
  EXPECT_THAT(result->minimal, ElementsAre(0));
  EXPECT_EQ(calls, 1);
}

TEST(DdminTest, UnresolvedSubsetsAreNotTakenAsFailures) {
  // Changes 2 and 3 conflict (unresolved when only one of them is applied); 4 is the culprit.
  DdTest test = [](const std::vector<int>& c) -> absl::StatusOr<DdOutcome> {
    bool has2 = std::binary_search(c.begin(), c.end(), 2);
    bool has3 = std::binary_search(c.begin(), c.end(), 3);
    if (has2 != has3) return DdOutcome::kUnresolved;
    return std::binary_search(c.begin(), c.end(), 4) ? DdOutcome::kFail : DdOutcome::kPass;
  };
  absl::StatusOr<DdminResult> result = Ddmin(6, test);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(result->minimal, ElementsAre(4));
}

TEST(DdminTest, ResultIsOneMinimalForRandomCulpritSets) {
  for (int n = 1; n <= 12; ++n) {
    for (int mask = 1; mask < (1 << std::min(n, 6)); mask += 3) {
      std::vector<int> culprits;
      for (int i = 0; i < std::min(n, 6); ++i) {
        if (mask >> i & 1) culprits.push_back(i);
      }
      if (culprits.empty()) continue;
      int calls = 0;
      absl::StatusOr<DdminResult> result = Ddmin(n, FailsWithAll(culprits, &calls));
      ASSERT_TRUE(result.ok()) << result.status();
      EXPECT_EQ(result->minimal, culprits) << "n=" << n << " mask=" << mask;
    }
  }
}

TEST(DdminTest, AllChangesPassingIsAPreconditionFailure) {
  int calls = 0;
  absl::StatusOr<DdminResult> result = Ddmin(4, FailsWithAll({7}, &calls));
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(result.status()));
  EXPECT_EQ(result.status().message(),
            "ddmin: applying all 4 changes does not fail (passes); the failure is not in these changes");
  EXPECT_FALSE(Ddmin(0, FailsWithAll({}, &calls)).ok());
}

TEST(DdminTest, TestErrorsAbortTheSearch) {
  DdTest test = [](const std::vector<int>& c) -> absl::StatusOr<DdOutcome> {
    if (c.size() == 2) return absl::UnavailableError("launcher died");
    return c.size() == 4 ? DdOutcome::kFail : DdOutcome::kPass;
  };
  absl::StatusOr<DdminResult> result = Ddmin(4, test);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), "launcher died");
}

}  // namespace
}  // namespace gh
