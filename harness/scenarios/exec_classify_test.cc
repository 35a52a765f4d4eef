#include "harness/scenarios/exec_classify.h"

#include <csignal>

#include "gtest/gtest.h"

namespace gh {
namespace {

ExecRules Rules() {
  ExecRules rules;
  rules.pass = {"^process 1: ok$"};
  rules.signatures = {{"precondition", "FAILED_PRECONDITION: .*async_computation", Outcome::kError},
                      {"wrong data", "^wrong", Outcome::kFail}};
  rules.skips = {{"^skip: (.*)$", ""}, {"no GPU", "needs a GPU"}};
  rules.tail_lines = 2;
  return rules;
}

ExecEnd Exited(int status) {
  ExecEnd end;
  end.exit_status = status;
  return end;
}

TEST(ExecClassify, PassNeedsEveryRequiredLineAndTheExpectedExitStatus) {
  RankOutcome r = ClassifyExecEnd(Exited(0), "a\nprocess 1: ok\n", Rules());
  EXPECT_EQ(r.outcome, Outcome::kPass);
  EXPECT_EQ(r.signature, "");
  EXPECT_EQ(r.output_tail, "");
  r = ClassifyExecEnd(Exited(0), "a\nprocess 0: ok\nb\nc\n", Rules());
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_EQ(r.signature, "missing output: no line matches '^process 1: ok$'");
  EXPECT_EQ(r.output_tail, "b\nc\n");
  r = ClassifyExecEnd(Exited(4), "process 1: ok\n", Rules());
  EXPECT_EQ(r.outcome, Outcome::kError);
  EXPECT_EQ(r.signature, "exit status 4");
  EXPECT_EQ(r.output_tail, "process 1: ok\n");
}

TEST(ExecClassify, SkipBeforeSignatureBeforeSignalBeforeExitStatus) {
  ExecEnd segv;
  segv.signaled = true;
  segv.signal_number = SIGSEGV;
  RankOutcome r = ClassifyExecEnd(segv, "skip: need at least 2 devices, have 1\nFAILED_PRECONDITION: async_computation\n", Rules());
  EXPECT_EQ(r.outcome, Outcome::kSkip);
  EXPECT_EQ(r.signature, "need at least 2 devices, have 1");
  r = ClassifyExecEnd(Exited(1), "there is no GPU here\n", Rules());
  EXPECT_EQ(r.outcome, Outcome::kSkip);
  EXPECT_EQ(r.signature, "needs a GPU");
  r = ClassifyExecEnd(Exited(1), "x\nE: FAILED_PRECONDITION: in async_computation\n", Rules());
  EXPECT_EQ(r.outcome, Outcome::kError);
  EXPECT_EQ(r.signature, "precondition");
  r = ClassifyExecEnd(segv, "E: FAILED_PRECONDITION: in async_computation\n", Rules());
  EXPECT_EQ(r.outcome, Outcome::kCrash);
  EXPECT_EQ(r.signature, "precondition");
  r = ClassifyExecEnd(Exited(0), "wrong data at 3\nprocess 1: ok\n", Rules());
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_EQ(r.signature, "wrong data");
  r = ClassifyExecEnd(segv, "process 1: ok\n", Rules());
  EXPECT_EQ(r.outcome, Outcome::kCrash);
  EXPECT_EQ(r.signature, "killed by SIGSEGV");
  ExecEnd late;
  late.timed_out = true;
  late.elapsed = absl::Seconds(2);
  r = ClassifyExecEnd(late, "skip: too late to matter\n", Rules());
  EXPECT_EQ(r.outcome, Outcome::kTimeout);
  EXPECT_EQ(r.signature, "timeout in exec: the command ran past 2s; its process group was killed");
}

TEST(ExecClassify, TailIsTheLastLinesWithNonTextShownAsQuestionMarks) {
  EXPECT_EQ(OutputTail("1\n2\n3\n", 2), "2\n3\n");
  EXPECT_EQ(OutputTail("1\r\n2", 5), "1\n2\n");
  EXPECT_EQ(OutputTail(std::string("a\x01\xff\tb\n", 6), 1), "a??\tb\n");
  EXPECT_EQ(OutputTail("1\n2\n", 0), "");
  EXPECT_EQ(ExecSignalName(SIGABRT), "SIGABRT");
  EXPECT_EQ(ExecSignalName(42), "signal 42");
}

}  // namespace
}  // namespace gh
