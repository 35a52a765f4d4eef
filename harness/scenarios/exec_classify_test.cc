#include "harness/scenarios/exec_classify.h"

#include <csignal>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gh {
namespace {

ExecRules Rules() {
  ExecRules rules;
  EXPECT_TRUE(rules.AddPass("exec.pass[0]", "^process 1: ok$").ok());
  EXPECT_TRUE(rules.AddSignature("exec.signatures[0].regex", "precondition",
                                 "FAILED_PRECONDITION: .*async_computation", Outcome::kError)
                  .ok());
  EXPECT_TRUE(rules.AddSignature("exec.signatures[1].regex", "wrong data", "^wrong", Outcome::kFail)
                  .ok());
  EXPECT_TRUE(rules.AddSkip("exec.skip[0]", "^skip: (.*)$", "").ok());
  EXPECT_TRUE(rules.AddSkip("exec.skip[1]", "no GPU", "needs a GPU").ok());
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
  EXPECT_EQ(r.step, "exec");
  EXPECT_TRUE(r.output_tail.empty());  // a skip carries no output tail
  ExecEnd late;
  late.timed_out = true;
  late.elapsed = absl::Seconds(2);
  struct Case {
    ExecEnd end;
    std::string output;
    Outcome outcome;
    std::string signature;
  };
  const Case cases[] = {
      {Exited(1), "there is no GPU here\n", Outcome::kSkip, "needs a GPU"},
      {Exited(1), "x\nE: FAILED_PRECONDITION: in async_computation\n", Outcome::kError, "precondition"},
      {segv, "E: FAILED_PRECONDITION: in async_computation\n", Outcome::kCrash, "precondition"},
      {Exited(0), "wrong data at 3\nprocess 1: ok\n", Outcome::kFail, "wrong data"},
      {segv, "process 1: ok\n", Outcome::kCrash, "killed by SIGSEGV"},
      {late, "skip: too late to matter\n", Outcome::kTimeout,
       "timeout in exec: the command ran past 2s; its process group was killed"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.output);
    r = ClassifyExecEnd(c.end, c.output, Rules());
    EXPECT_EQ(r.outcome, c.outcome);
    EXPECT_EQ(r.signature, c.signature);
  }
}

TEST(ExecClassify, TailIsTheLastLinesWithNonTextShownAsQuestionMarks) {
  EXPECT_EQ(OutputTail("1\n2\n3\n", 2), "2\n3\n");
  EXPECT_EQ(OutputTail("1\r\n2", 5), "1\n2\n");
  EXPECT_EQ(OutputTail(std::string("a\x01\xff\tb\n", 6), 1), "a??\tb\n");
  EXPECT_EQ(OutputTail("1\n2\n", 0), "");
}

TEST(ExecClassify, SkipReasonIsTheFirstGroupWhenItCapturedElseTheLine) {
  ExecRules rules;
  ASSERT_TRUE(rules.AddSkip("exec.skip[0]", "^skip:(.*)$", "").ok());
  EXPECT_EQ(ClassifyExecEnd(Exited(0), "skip: no jax\n", rules).signature, " no jax");
  EXPECT_EQ(ClassifyExecEnd(Exited(0), "skip:\n", rules).signature, "skip:");
}

TEST(ExecClassify, BadRegexAfterPlaceholdersNamesTheKeyAndRe2sReason) {
  ExecRules rules;
  absl::Status added = rules.AddSignature("exec.signatures[1].regex", "broken",
                                          "Cuda failure (1", Outcome::kError);
  EXPECT_EQ(added.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(added.message(),
            "exec.signatures[1].regex: invalid regular expression 'Cuda failure (1': "
            "missing ): Cuda failure (1");
  EXPECT_TRUE(rules.signatures.empty());
  EXPECT_THAT(std::string(rules.AddPass("exec.pass[0]", "a{2,1}").message()),
              ::testing::StartsWith("exec.pass[0]: invalid regular expression 'a{2,1}': "));
  EXPECT_THAT(std::string(rules.AddSkip("exec.skip[2]", "(?<=x)y", "").message()),
              ::testing::StartsWith("exec.skip[2]: invalid regular expression '(?<=x)y': "));
}

// std::regex recursed once per character and overflowed the stack on a ~100 KB line (real XLA
// verifier errors embed HLO that long); RE2 is linear and recursion-free.
std::string MiBLine(bool with_signature) {
  std::string line = "jax.errors.JaxRuntimeError: FAILED_PRECONDITION: verifier: ";
  line.append(size_t{1} << 20, 'h');
  line += with_signature ? " in async_computation" : " in the main computation";
  return line;
}

TEST(ExecClassify, OneMiBLineMatchesTheSignatureOrFallsThrough) {
  RankOutcome r = ClassifyExecEnd(Exited(1), "start\n" + MiBLine(true) + "\nend\n", Rules());
  EXPECT_EQ(r.outcome, Outcome::kError);
  EXPECT_EQ(r.signature, "precondition");
  EXPECT_EQ(r.output_tail.size(), MiBLine(true).size() + 1 + 4) << "its last 2 lines";
  r = ClassifyExecEnd(Exited(1), "start\n" + MiBLine(false) + "\nend\n", Rules());
  EXPECT_EQ(r.outcome, Outcome::kError);
  EXPECT_EQ(r.signature, "exit status 1");
  r = ClassifyExecEnd(Exited(0), MiBLine(false) + "\nprocess 1: ok\n", Rules());
  EXPECT_EQ(r.outcome, Outcome::kPass) << r.signature;
}

// 10 MiB over 160 Ki lines of 64 bytes, the signature (if any) on the last.
std::string TenMiBOutput(bool with_signature) {
  std::string out;
  const std::string filler(63, 'x');
  while (out.size() < (size_t{10} << 20)) out += filler + "\n";
  out += with_signature ? "E: FAILED_PRECONDITION: in async_computation\n" : "E: done\n";
  return out;
}

TEST(ExecClassify, TenMiBOutputMatchesTheSignatureOrFallsThrough) {
  RankOutcome r = ClassifyExecEnd(Exited(1), TenMiBOutput(true), Rules());
  EXPECT_EQ(r.outcome, Outcome::kError);
  EXPECT_EQ(r.signature, "precondition");
  EXPECT_EQ(r.output_tail, std::string(63, 'x') + "\nE: FAILED_PRECONDITION: in async_computation\n");
  r = ClassifyExecEnd(Exited(0), TenMiBOutput(false), Rules());
  EXPECT_EQ(r.outcome, Outcome::kFail);
  EXPECT_EQ(r.signature, "missing output: no line matches '^process 1: ok$'");
}

ExecEnd ExitedWith(int status) {
  ExecEnd end;
  end.exit_status = status;
  return end;
}

// Issue 18: with no signature rule, `exit status 1` made any other Python exception on any
// version the hunted failure. The signature is the traceback's exception line instead.
TEST(ExecDefaultSignature, IsTheLastExceptionLineOfATraceback) {
  const std::string traceback =
      "WARNING: something at the top\n"
      "Traceback (most recent call last):\n"
      "  File \"x.py\", line 7, in <module>\n"
      "    doubled = jax.tree_map(f, tree)\n"
      "AttributeError: jax.tree_map was removed in JAX v0.6.0: use jax.tree.map\n"
      "\n";
  RankOutcome r = ClassifyExecEnd(ExitedWith(1), traceback, ExecRules{});
  EXPECT_EQ(r.outcome, Outcome::kError);
  EXPECT_EQ(r.signature, "AttributeError: jax.tree_map was removed in JAX v0.6.0: use jax.tree.map");
  r = ClassifyExecEnd(ExitedWith(1), "jax.errors.JaxRuntimeError: INTERNAL: boom\nexiting\n", ExecRules{});
  EXPECT_EQ(r.signature, "jax.errors.JaxRuntimeError: INTERNAL: boom") << "dotted names, later lines";
  r = ClassifyExecEnd(ExitedWith(1), "Traceback:\nAssertionError\n", ExecRules{});
  EXPECT_EQ(r.signature, "AssertionError") << "an exception without a message";
}

TEST(ExecDefaultSignature, IsTheLastLineWithTheExitStatusWithoutATraceback) {
  RankOutcome r = ClassifyExecEnd(ExitedWith(3), "starting\n  cannot open the device  \n\n", ExecRules{});
  EXPECT_EQ(r.signature, "exit status 3: cannot open the device");
  r = ClassifyExecEnd(ExitedWith(3), "", ExecRules{});
  EXPECT_EQ(r.signature, "exit status 3") << "no output: the status alone";
  r = ClassifyExecEnd(ExitedWith(1), std::string(400, 'e') + "\n", ExecRules{});
  EXPECT_EQ(r.signature, "exit status 1: " + std::string(300, 'e') + "...") << "cut";
}

TEST(ExecDefaultSignature, SignatureRulesKeepTheExitStatusWhenNoneMatches) {
  ExecRules rules;
  ASSERT_TRUE(rules.AddSignature("exec.signatures[0].regex", "named", "^never$", Outcome::kError).ok());
  RankOutcome r = ClassifyExecEnd(ExitedWith(1), "ValueError: other\n", rules);
  EXPECT_EQ(r.signature, "exit status 1");
}

}  // namespace
}  // namespace gh
