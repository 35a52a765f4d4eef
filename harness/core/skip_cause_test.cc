// A harness build / runtime mismatch skip is "not applicable here": it meets any expectation,
// and only that skip does (the same versions, another skip, or another outcome are judged as
// before).
#include "harness/core/skip_cause.h"

#include "gtest/gtest.h"
#include "harness/core/expectation.h"

namespace gh {
namespace {

const std::string kMismatch = HarnessBuildMismatchSkip("NCCL", "2.28.9", "2.29.2", "Cannot create device communicator");

TEST(SkipCause, TheMismatchHasOneSpelling) {
  EXPECT_EQ(kMismatch, "built against NCCL 2.28.9, runtime 2.29.2: Cannot create device communicator");
  EXPECT_EQ(HarnessBuildMismatchSkip("NCCL", "2.28.9", "2.30.7", ""), "built against NCCL 2.28.9, runtime 2.30.7");
}

TEST(SkipCause, OnlyASkipWithDifferentVersionsIsNotApplicable) {
  EXPECT_TRUE(IsNotApplicableSkip(Outcome::kSkip, kMismatch));
  EXPECT_TRUE(IsNotApplicableSkip(Outcome::kSkip, "built against NCCL 2.28.9, runtime 2.30.7"));
  EXPECT_TRUE(IsNotApplicableSkip(Outcome::kSkip, "built against NCCL 2.28.9, runtime 2.30.7 [ranks 0,1]"));
  EXPECT_FALSE(IsNotApplicableSkip(Outcome::kSkip, "built against NCCL 2.29.2, runtime 2.29.2: x")) << "no mismatch";
  EXPECT_FALSE(IsNotApplicableSkip(Outcome::kFail, kMismatch)) << "a failure is judged as a failure";
  EXPECT_FALSE(IsNotApplicableSkip(Outcome::kError, kMismatch));
  EXPECT_FALSE(IsNotApplicableSkip(Outcome::kSkip, "no GPU"));
  EXPECT_FALSE(IsNotApplicableSkip(Outcome::kSkip, "skip: built against NCCL 2.28.9, runtime 2.29.2"))
      << "the spelling starts the signature";
}

TEST(SkipCause, ANotApplicableSkipMeetsEveryExpectation) {
  for (Outcome expected : {Outcome::kPass, Outcome::kSkip, Outcome::kFail, Outcome::kError, Outcome::kTimeout,
                           Outcome::kCrash}) {
    Expectation e;
    e.outcome = expected;
    EXPECT_TRUE(MeetsExpectation(e, Outcome::kSkip, kMismatch)) << OutcomeName(expected);
    e.signature_regex = "something else entirely";
    EXPECT_TRUE(MeetsExpectation(e, Outcome::kSkip, kMismatch)) << OutcomeName(expected) << " with a regex";
  }
  Expectation pass;
  EXPECT_FALSE(MeetsExpectation(pass, Outcome::kSkip, "no GPU")) << "an ordinary skip still does not meet pass";
  EXPECT_FALSE(MeetsExpectation(pass, Outcome::kSkip, "built against NCCL 2.29.2, runtime 2.29.2: x"));
}

}  // namespace
}  // namespace gh
