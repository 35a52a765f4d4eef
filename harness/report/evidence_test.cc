#include "harness/report/evidence.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gh {
namespace {

using ::testing::ElementsAre;

RankOutcome Rank(int rank, Outcome outcome, std::string signature, std::string step = "") {
  RankOutcome r;
  r.rank = rank;
  r.host = "node-a";
  r.outcome = outcome;
  r.signature = std::move(signature);
  r.step = std::move(step);
  return r;
}

PointTrials FailedPoint(std::vector<RankOutcome> ranks, int trial = 0, int trials = 1) {
  PointTrials point;
  point.key = {"", "framework/variant=allgather/np=3"};
  point.trials = trials;
  point.evidence.trial = trial;
  point.evidence.ranks = std::move(ranks);
  return point;
}

TEST(CollectEvidence, RanksThatEndedAlikeAreOneEntryAndThoseWithLinesComeFirst) {
  RankOutcome died = Rank(0, Outcome::kError, "job ended", "exec");
  RankOutcome raised1 = Rank(1, Outcome::kError, "RuntimeError: boom", "exec");
  raised1.output_tail = "Traceback (most recent call last):\n  File \"x.py\", line 3, in f\nRuntimeError: boom\n";
  RankOutcome raised2 = raised1;
  raised2.rank = 2;
  const PointEvidence evidence = CollectEvidence(FailedPoint({died, raised1, raised2}, 1, 3), nullptr);
  EXPECT_EQ(evidence.trial, "trial 2 of 3");
  ASSERT_EQ(evidence.ranks.size(), 2u);
  const RankEvidence& first = evidence.ranks[0];
  EXPECT_THAT(first.ranks, ElementsAre(1, 2));
  EXPECT_EQ(first.where, "ranks 1,2 on node-a");
  EXPECT_EQ(first.lines_kind, "output");
  EXPECT_THAT(first.lines, ElementsAre("Traceback (most recent call last):", "  File \"x.py\", line 3, in f",
                                       "RuntimeError: boom"));
  EXPECT_THAT(first.logs, ElementsAre("", ""));  // no RunLogs: no links
  EXPECT_EQ(first.Headline(), "ranks 1,2 on node-a: error in step 'exec': RuntimeError: boom");
  EXPECT_EQ(first.Headline(/*with_signature=*/false), "ranks 1,2 on node-a: error in step 'exec'");
  EXPECT_EQ(evidence.ranks[1].where, "rank 0 on node-a");
  EXPECT_TRUE(evidence.ranks[1].lines.empty());
}

TEST(CollectEvidence, WrongElementAndDeviceAreShown) {
  RankOutcome wrong = Rank(3, Outcome::kFail, "data mismatch", "verify");
  wrong.device = 2;
  wrong.mismatch = Mismatch{.wrong_elements = 1, .checked_elements = 1024, .first_index = 512, .expected = "3",
                            .actual = "0"};
  const PointEvidence evidence = CollectEvidence(FailedPoint({wrong}), nullptr);
  EXPECT_EQ(evidence.trial, "");
  ASSERT_EQ(evidence.ranks.size(), 1u);
  EXPECT_EQ(evidence.ranks[0].Headline(),
            "rank 3 on node-a, gpu 2: fail in step 'verify': data mismatch "
            "(1 of 1024 elements wrong; element 512: expected 3, got 0)");
}

TEST(CollectEvidence, NoFailedTrialNoEvidence) {
  EXPECT_TRUE(CollectEvidence(PointTrials{}, nullptr).empty());
}

TEST(EvidenceExcerpt, StartsAtTheTracebackAndKeepsFirstAndLastLines) {
  RankEvidence evidence;
  evidence.lines_kind = "output";
  evidence.lines = {"loading model", "Traceback (most recent call last):"};
  for (int i = 0; i < 20; ++i) evidence.lines.push_back("  frame " + std::to_string(i));
  evidence.lines.push_back("ValueError: bad shape");
  EXPECT_THAT(EvidenceExcerpt(evidence, 7),
              ElementsAre("Traceback (most recent call last):", "  frame 0", "... 16 more lines ...", "  frame 17",
                          "  frame 18", "  frame 19", "ValueError: bad shape"));
  // Short output is kept whole, from the traceback on.
  evidence.lines = {"context", "Traceback (most recent call last):", "ValueError: x"};
  EXPECT_THAT(EvidenceExcerpt(evidence, 7), ElementsAre("Traceback (most recent call last):", "ValueError: x"));
}

TEST(EvidenceExcerpt, AStackKeepsItsInnermostFrames) {
  RankEvidence evidence;
  evidence.lines_kind = "stack";
  evidence.lines = {"a", "b", "c", "d", "e"};
  EXPECT_THAT(EvidenceExcerpt(evidence, 3), ElementsAre("a", "b", "... 3 more lines ..."));
  EXPECT_EQ(OmittedLinesText(1), "... 1 more line ...");
}

TEST(PathFromReports, RelativeToWhereTheReportsAre) {
  const std::string log = "cells/a/job/logs/fw/np=2/rank0.log";
  EXPECT_EQ(PathFromReports("/r/night", "/r/night", log), log);
  EXPECT_EQ(PathFromReports("/r/night", "/r/night/", log), log);
  EXPECT_EQ(PathFromReports("/r/night", "/r/out/reports", log), "../../night/" + log);
  EXPECT_EQ(PathFromReports("/r/night", "/r/night", ""), "");
}

TEST(UrlPath, EscapesWhatAUrlPathCannotHold) {
  EXPECT_EQ(UrlPath("logs/fw/flags=--xla a#b?c%/np=2/rank0.log"), "logs/fw/flags=--xla%20a%23b%3Fc%25/np=2/rank0.log");
  EXPECT_EQ(UrlPath("cells/nccl=2.27.7/x"), "cells/nccl=2.27.7/x");
}

}  // namespace
}  // namespace gh
