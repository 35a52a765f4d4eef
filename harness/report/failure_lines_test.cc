// The FAILED lines: their exact text, their order (most important first), verbose lines, and
// plain text unless the console style has colour.
#include "harness/report/failure_lines.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/testdata/test_records.h"
#include "harness/report/report_test_records.h"

namespace gh {
namespace {

using ::gh::testing::MakeRecord;
using ::gh::testing::RecordSpec;

const ConsoleStyle kPlain;

Record Unmet(const std::string& suffix, Outcome outcome, const std::string& signature) {
  RecordSpec spec{.point_suffix = suffix, .outcome = outcome, .signature = signature, .matched = false};
  return MakeRecord(spec);
}

// The capture point's trials meet their expectation as a whole (any_failure): no line.
TEST(FailureLines, SmallSweepListsTheUnmetRegressionInMatrixAxisOrder) {
  testing::SmallSweep s = testing::MakeSmallSweep();
  Comparison c = CompareResults(s.records, &s.baseline);
  EXPECT_EQ(RenderFailureLines(ComparisonFailureLines(c, &s.sweep, false), kPlain),
            "FAILED proto=ll,nccl=2.28.9 :: ring/bytes=1M/np=2 — error: ncclUnhandledCudaError: Cuda "
            "failure 1 'invalid argument' | see log [ranks 1] (expected pass); a regression against the "
            "baseline\n");
}

TEST(FailureLines, OrderIsCrashTimeoutErrorFailThenUnexpectedPassThenSkip) {
  std::vector<Record> records = {Unmet("a", Outcome::kSkip, "no GPU"), Unmet("b", Outcome::kPass, ""),
                                 Unmet("c", Outcome::kFail, "wrong data on ranks 1"),
                                 Unmet("d", Outcome::kError, "ncclSystemError"),
                                 Unmet("e", Outcome::kTimeout, "timeout in step 'exchange'"),
                                 Unmet("f", Outcome::kCrash, "crash: rank 0 killed by SIGSEGV")};
  records[1].expected = Expectation{Outcome::kFail, std::nullopt, ""};
  EXPECT_EQ(RenderFailureLines(ComparisonFailureLines(CompareResults(records, nullptr), nullptr, false), kPlain),
            "FAILED ring/f — crash: rank 0 killed by SIGSEGV (expected pass)\n"
            "FAILED ring/e — timeout: timeout in step 'exchange' (expected pass)\n"
            "FAILED ring/d — error: ncclSystemError (expected pass)\n"
            "FAILED ring/c — fail: wrong data on ranks 1 (expected pass)\n"
            "FAILED ring/b — pass (expected fail)\n"
            "FAILED ring/a — skip: no GPU (expected pass)\n");
}

TEST(FailureLines, UnknownOutcomeAndInfrastructureComeFirst) {
  FailureLine crash{.outcome = Outcome::kCrash, .point = "p1", .detail = "crash"};
  FailureLine unknown{.outcome = static_cast<Outcome>(99), .point = "p2", .detail = "new kind"};
  FailureLine setup{.outcome = Outcome::kError, .infrastructure = true, .cell = "nccl=v3", .point = "(set-up)",
                    .detail = "set-up failed"};
  EXPECT_EQ(RenderFailureLines({crash, unknown, setup}, kPlain),
            "FAILED p2 — new kind\nFAILED nccl=v3 :: (set-up) — set-up failed\nFAILED p1 — crash\n");
}

TEST(FailureLines, NothingForMetPointsUnlessVerbose) {
  std::vector<Record> records = {MakeRecord(RecordSpec{.point_suffix = "ok"}),
                                 MakeRecord(RecordSpec{.point_suffix = "skipped", .outcome = Outcome::kSkip,
                                                       .signature = "no symmetric memory"}),
                                 Unmet("bad", Outcome::kFail, "wrong data")};
  RecordSpec expected_crash{.point_suffix = "boom", .outcome = Outcome::kCrash, .signature = "SIGSEGV"};
  expected_crash.expected = Expectation{Outcome::kCrash, std::nullopt, ""};
  records.push_back(MakeRecord(expected_crash));
  Comparison c = CompareResults(records, nullptr);
  EXPECT_EQ(RenderFailureLines(ComparisonFailureLines(c, nullptr, false), kPlain),
            "FAILED ring/bad — fail: wrong data (expected pass)\n");
  EXPECT_EQ(RenderFailureLines(ComparisonFailureLines(c, nullptr, true), kPlain),
            "FAILED ring/bad — fail: wrong data (expected pass)\n"
            "PASSED ring/ok\n"
            "SKIPPED ring/skipped — no symmetric memory\n"
            "XFAIL ring/boom — crash: SIGSEGV (expected crash)\n");
}

TEST(FailureLines, RegressionThatMeetsItsExpectationIsListed) {
  RecordSpec now{.point_suffix = "x", .outcome = Outcome::kFail, .signature = "wrong data"};
  now.expected = Expectation{Outcome::kFail, std::nullopt, ""};  // met: only the baseline says otherwise
  std::vector<Record> records = {MakeRecord(now)};
  std::vector<Record> baseline = {MakeRecord(RecordSpec{.point_suffix = "x"})};
  EXPECT_EQ(RenderFailureLines(ComparisonFailureLines(CompareResults(records, &baseline), nullptr, false), kPlain),
            "FAILED ring/x — fail: wrong data (a regression: it passed in the baseline)\n");
}

TEST(FailureLines, CellsWithoutSweepInfoAreSortedByAxisName) {
  RecordSpec spec{.point_suffix = "x", .outcome = Outcome::kFail, .signature = "w", .cell = {{"z", "1"}, {"a", "2"}},
                  .matched = false};
  std::vector<Record> records = {MakeRecord(spec)};
  EXPECT_EQ(RenderFailureLines(ComparisonFailureLines(CompareResults(records, nullptr), nullptr, false), kPlain),
            "FAILED a=2,z=1 :: ring/x — fail: w (expected pass)\n");
}

TEST(FailureLines, SignaturesStayOnOneLineAndAreClipped) {
  std::vector<Record> records = {Unmet("x", Outcome::kError, "first\nsecond\tthird\033[31m" + std::string(300, 'y'))};
  const std::string text =
      RenderFailureLines(ComparisonFailureLines(CompareResults(records, nullptr), nullptr, false), kPlain);
  EXPECT_EQ(text.find('\n'), text.size() - 1);
  EXPECT_EQ(text.find('\033'), std::string::npos);
  EXPECT_THAT(text, ::testing::StartsWith("FAILED ring/x — error: first second third [31myyy"));
  EXPECT_THAT(text, ::testing::EndsWith("yyy...\n"));
  EXPECT_EQ(OneLineClipped("ééééé", 4), "é...");
  EXPECT_EQ(OneLineClipped("éééé", 4), "éééé");
}

TEST(FailureLines, ColourOnlyWhenTheStyleHasIt) {
  ConsoleStyle color;
  color.live = color.color = true;
  FailureLine failed{.point = "p", .detail = "d"};
  FailureLine passed{.word = "PASSED", .point = "q"};
  EXPECT_EQ(RenderFailureLines({failed, passed}, color),
            "\033[1;31mFAILED\033[0m p — d\n\033[32mPASSED\033[0m q\n");
  EXPECT_EQ(RenderFailureLines({failed, passed}, kPlain), "FAILED p — d\nPASSED q\n");
}

TEST(ConsoleStyle, LiveOnlyOnATerminalOutsideCiAndColourUnlessNoColor) {
  auto style = [](bool tty, const char* ci, const char* no_color, const char* term) {
    ConsoleStyle s = ConsoleStyle::For(tty, ci, no_color, term);
    return std::make_pair(s.live, s.color);
  };
  EXPECT_EQ(style(true, nullptr, nullptr, "xterm"), std::make_pair(true, true));
  EXPECT_EQ(style(true, nullptr, "1", "xterm"), std::make_pair(true, false));
  EXPECT_EQ(style(true, nullptr, "", "xterm"), std::make_pair(true, true));  // empty NO_COLOR: unset
  EXPECT_EQ(style(true, "true", nullptr, "xterm"), std::make_pair(false, false));
  EXPECT_EQ(style(true, "1", nullptr, nullptr), std::make_pair(false, false));
  EXPECT_EQ(style(true, "false", nullptr, nullptr), std::make_pair(true, true));
  EXPECT_EQ(style(true, nullptr, nullptr, "dumb"), std::make_pair(false, false));
  EXPECT_EQ(style(false, nullptr, nullptr, "xterm"), std::make_pair(false, false));
}

}  // namespace
}  // namespace gh
