// The FAILED lines a bisect or minimize ends with: per probe, its failing trials grouped by
// point, outcome and signature with their count; a set-up failure first; passes and skips never.
#include "harness/bisect/bisect_summary.h"

#include "gtest/gtest.h"

namespace gh {
namespace {

TrialResult Trial(Outcome outcome, const std::string& signature, const std::string& point = "ring/bytes=4K/np=2") {
  TrialResult t;
  t.outcome = outcome;
  t.signature = signature;
  t.point = point;
  return t;
}

TEST(ProbeFailureLines, OneLinePerProbePointAndFailureMostImportantFirst) {
  ProbeRecord good{.version = 0, .label = "v1"};
  good.trials = {Trial(Outcome::kPass, ""), Trial(Outcome::kSkip, "no GPU")};
  ProbeRecord bad{.version = 2, .label = "v3"};
  bad.trials = {Trial(Outcome::kFail, "wrong data [ranks 1]"), Trial(Outcome::kFail, "wrong data [ranks 1]"),
                Trial(Outcome::kCrash, "crash: SIGSEGV on rank 1")};
  ProbeRecord unset{.version = 1, .label = "v2"};
  TrialResult setup;
  setup.setup_failed = true;
  setup.detail = "pip install exited 1";
  unset.trials = {setup, setup};
  absl::StatusOr<Hunt> hunt = Hunt::Create(Outcome::kFail, "wrong data", false);
  ASSERT_TRUE(hunt.ok());
  EXPECT_EQ(RenderFailureLines(ProbeFailureLines({good, bad, unset}, "nccl", &*hunt), ConsoleStyle{}),
            "FAILED nccl=v2 :: (set-up) — set-up failed: pip install exited 1\n"
            "FAILED nccl=v3 :: ring/bytes=4K/np=2 — crash: SIGSEGV on rank 1 (1/3 trials)\n"
            "FAILED nccl=v3 :: ring/bytes=4K/np=2 — fail: wrong data [ranks 1] (2/3 trials; the hunted failure)\n");
  // minimize: configurations, no axis.
  EXPECT_EQ(RenderFailureLines(ProbeFailureLines({bad}, "", nullptr), ConsoleStyle{}),
            "FAILED v3 :: ring/bytes=4K/np=2 — crash: SIGSEGV on rank 1 (1/3 trials)\n"
            "FAILED v3 :: ring/bytes=4K/np=2 — fail: wrong data [ranks 1] (2/3 trials)\n");
}

}  // namespace
}  // namespace gh
