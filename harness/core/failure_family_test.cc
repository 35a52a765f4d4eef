#include "harness/core/failure_family.h"

#include "gtest/gtest.h"

namespace gh {
namespace {

// The traceback of a removed attribute, as JAX 0.7.0 and later releases print it.
constexpr char kRemovedIn070[] = R"(Traceback (most recent call last):
  File "/home/u/prog.py", line 12, in <module>
    main()
  File "/home/u/prog.py", line 8, in main
    s = jax.sharding.PositionalSharding(devices)
        ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/u/v/lib/python3.11/site-packages/jax/_src/deprecations.py", line 54, in getattr
    raise AttributeError(message)
AttributeError: jax.sharding.PositionalSharding was deprecated in JAX v0.6.0 and removed in JAX v0.7.0
)";
constexpr char kNoAttribute[] = R"(Traceback (most recent call last):
  File "/tmp/run/prog.py", line 12, in <module>
    main()
  File "/tmp/run/prog.py", line 8, in main
    s = jax.sharding.PositionalSharding(devices)
AttributeError: module 'jax.sharding' has no attribute 'PositionalSharding'
)";

TEST(NormalizeFailureMessageTest, FoldsWhatVariesBetweenVersionsAndRuns) {
  EXPECT_EQ(NormalizeFailureMessage("module 'jax.sharding' has no attribute 'PositionalSharding'"),
            "module '<id>' has no attribute '<id>'");
  EXPECT_EQ(NormalizeFailureMessage("removed in JAX v0.7.0 (was 2.30.3rc1)"), "removed in JAX <ver> (was <ver>)");
  EXPECT_EQ(NormalizeFailureMessage("the answer is 41, not 42 [ranks 1,3]"), "the answer is <n>, not <n>");
  EXPECT_EQ(NormalizeFailureMessage("bad pointer 0x7f3a12 at /usr/lib/x86_64/libnccl.so.2:"),
            "bad pointer <addr> at <path>:");
  EXPECT_EQ(NormalizeFailureMessage("cannot open jax/_src/api.py (64MiB needed, ran past 60s)"),
            "cannot open <path> (<n> needed, ran past <n>)");
  EXPECT_EQ(NormalizeFailureMessage("expected float32,   got v4"), "expected float32, got <ver>");
  EXPECT_EQ(NormalizeFailureMessage("can't find it: 1/2 failed"), "can't find it: <n>/<n> failed");
  EXPECT_EQ(NormalizeFailureMessage("no line matches '^process 0: ok'"), "no line matches '^process <n>: ok'");
}

TEST(FailingSourceLineTest, TheInnermostFrameOfTheUsersProgram) {
  EXPECT_EQ(FailingSourceLine(kRemovedIn070), "prog.py: s = jax.sharding.PositionalSharding(devices)");
  EXPECT_EQ(FailingSourceLine(kNoAttribute), "prog.py: s = jax.sharding.PositionalSharding(devices)");
  // No source shown (python -c, a missing file): the file, line and function.
  EXPECT_EQ(FailingSourceLine("Traceback (most recent call last):\n  File \"fakeprog.py\", line 7, in <module>\n"
                              "ValueError: the answer is 41, not 42\n"),
            "fakeprog.py:7 in <module>");
  // Only the last traceback counts (an exception raised while handling another).
  EXPECT_EQ(FailingSourceLine(std::string("Traceback (most recent call last):\n  File \"a.py\", line 1, in f\n"
                                          "    g()\nKeyError: 'x'\n\nDuring handling of the above exception, another "
                                          "exception occurred:\n\n") + kNoAttribute),
            "prog.py: s = jax.sharding.PositionalSharding(devices)");
  // faulthandler's frames after a crash.
  EXPECT_EQ(FailingSourceLine("Fatal Python error: Segmentation fault\n\nCurrent thread 0x1 (most recent call first):\n"
                              "  File \"/usr/lib/python3.11/ctypes/__init__.py\", line 3 in call\n"
                              "  File \"/w/crash.py\", line 9 in main\n"),
            "crash.py:9 in main");
  EXPECT_EQ(FailingSourceLine("  File \"/v/lib/python3.11/site-packages/x.py\", line 2, in f\n    y()\nOSError: no\n"),
            "");
  EXPECT_EQ(FailingSourceLine("process 0: wrong answer\n"), "");
}

TEST(FailureFamilyTest, ARewordedMessageRaisedByTheSameLineIsTheSameFamily) {
  const std::string where = FailingSourceLine(kRemovedIn070);
  const FailureFamily old_words = FailureFamilyOf(
      Outcome::kError,
      "AttributeError: jax.sharding.PositionalSharding was deprecated in JAX v0.6.0 and removed in JAX v0.7.0", where);
  const FailureFamily new_words = FailureFamilyOf(
      Outcome::kError, "AttributeError: module 'jax.sharding' has no attribute 'PositionalSharding' [ranks 1]",
      FailingSourceLine(kNoAttribute));
  EXPECT_EQ(old_words.type, "AttributeError");
  EXPECT_EQ(new_words.message, "module '<id>' has no attribute '<id>'");
  EXPECT_EQ(new_words.example, "AttributeError: module 'jax.sharding' has no attribute 'PositionalSharding'");
  EXPECT_TRUE(SameFailureFamily(old_words, new_words));
  EXPECT_EQ(new_words.ToString(), "error AttributeError at prog.py: s = jax.sharding.PositionalSharding(devices)");
  // Another exception type at the same line, or the same type elsewhere with other words, is not.
  EXPECT_FALSE(SameFailureFamily(old_words, FailureFamilyOf(Outcome::kError, "ImportError: no jax", where)));
  EXPECT_FALSE(SameFailureFamily(
      old_words, FailureFamilyOf(Outcome::kError, "AttributeError: 'NoneType' object has no attribute 'x'",
                                 "prog.py: y = x.x")));
  // Without a traceback the normalised message decides.
  EXPECT_TRUE(SameFailureFamily(FailureFamilyOf(Outcome::kError, "ValueError: the answer is 41, not 42", ""),
                                FailureFamilyOf(Outcome::kError, "ValueError: the answer is 40, not 42", "")));
  EXPECT_FALSE(SameFailureFamily(FailureFamilyOf(Outcome::kError, "ValueError: the answer is 41, not 42", ""),
                                 FailureFamilyOf(Outcome::kFail, "ValueError: the answer is 41, not 42", "")));
  // Dotted exception names compare by their last part (modules move between releases).
  EXPECT_EQ(FailureFamilyOf(Outcome::kError, "jax.errors.JaxRuntimeError: INTERNAL: x", "").type, "JaxRuntimeError");
}

TEST(FailureFamilyTest, NativeFailuresByStepAndSignal) {
  const FailureFamily crash = FailureFamilyOf(Outcome::kCrash, "SIGSEGV in step 'exchange' [ranks 1]", "");
  EXPECT_EQ(crash.type, "SIGSEGV");
  EXPECT_EQ(crash.where, "step exchange");
  EXPECT_EQ(crash.ToString(), "crash SIGSEGV in step exchange");
  EXPECT_TRUE(SameFailureFamily(crash, FailureFamilyOf(Outcome::kCrash, "killed by SIGSEGV", "step exchange")));
  EXPECT_FALSE(SameFailureFamily(crash, FailureFamilyOf(Outcome::kCrash, "SIGSEGV in step 'init'", "")));
  EXPECT_FALSE(SameFailureFamily(crash, FailureFamilyOf(Outcome::kCrash, "SIGABRT in step 'exchange'", "")));
  EXPECT_TRUE(SameFailureFamily(FailureFamilyOf(Outcome::kTimeout, "timeout in exchange", ""),
                                FailureFamilyOf(Outcome::kTimeout, "timeout in exchange (rank 3 stuck)", "")));
  const FailureFamily wrong = FailureFamilyOf(Outcome::kFail, "1 of 1024 elements wrong, first at 0 [ranks 1]", "");
  EXPECT_EQ(wrong.ToString(), "fail: '<n> of <n> elements wrong, first at <n>'");
  EXPECT_TRUE(SameFailureFamily(wrong, FailureFamilyOf(Outcome::kFail, "7 of 4096 elements wrong, first at 12", "")));
}

TEST(FailureWhereTest, TheUsersLineFromTheFailingRanksElseTheirStep) {
  PointOutcome point;
  point.outcome = Outcome::kError;
  RankOutcome passed;
  passed.output_tail = kNoAttribute;  // a rank that did not end as the point did is not looked at
  RankOutcome failed = RankOutcome::Error("AttributeError: x", "exec");
  failed.rank = 1;
  failed.output_tail = kRemovedIn070;
  point.ranks = {passed, failed};
  EXPECT_EQ(FailureWhere(point), "prog.py: s = jax.sharding.PositionalSharding(devices)");
  point.ranks[1].output_tail = "";
  EXPECT_EQ(FailureWhere(point), "");
  point.ranks[1].step = "allreduce";
  EXPECT_EQ(FailureWhere(point), "step allreduce");
}

}  // namespace
}  // namespace gh
