// The watchdog's report text: what a rank's .hang file holds and what it sends rank 0.
#include <fstream>

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "harness/runtime/watchdog.h"

namespace gh {
namespace {

TEST(WatchdogReportText, RoundTripsAndKeepsLinesWhole) {
  WatchdogReport report;
  report.rank = 3;
  report.step = "exchange";
  report.stack = {"PMPI_Barrier [libmpi.so.40]", "a frame\nwith a newline"};
  report.stack_note = "main thread";
  report.ops = {{1, "start", 1, "", 0}, {2, "setup step", 1, "", 0}, {3, "exchange", 1, "send/recv", 4096}};
  const std::string text = EncodeWatchdogReport(17, report);
  EXPECT_EQ(text.rfind("gh-hang 1\nsequence 17\nrank 3\nstep exchange\n", 0), 0u) << text;
  EXPECT_NE(text.find("\nop 3 1 exchange\nop_call 4096 send/recv\n"), std::string::npos) << text;
  int64_t sequence = 0;
  WatchdogReport back;
  ASSERT_TRUE(ParseWatchdogReport(text, &sequence, &back));
  EXPECT_EQ(sequence, 17);
  EXPECT_EQ(back.rank, 3);
  EXPECT_EQ(back.step, "exchange");
  EXPECT_EQ(back.stack, (std::vector<std::string>{"PMPI_Barrier [libmpi.so.40]",
                                                  "a frame with a newline"}));
  EXPECT_EQ(back.stack_note, "main thread");
  EXPECT_EQ(back.ops, report.ops);
}

TEST(WatchdogReportText, AnythingElseIsRejected) {
  int64_t sequence = 0;
  WatchdogReport back;
  EXPECT_FALSE(ParseWatchdogReport("", &sequence, &back));
  EXPECT_FALSE(ParseWatchdogReport("gh-hang 1\nrank 1\n", &sequence, &back));  // no sequence
  EXPECT_FALSE(ParseWatchdogReport("gh-hang 1\nsequence 1\nrank 1\nop x 1 y\n", &sequence, &back));
  EXPECT_FALSE(ParseWatchdogReport("gh-hang 2\nsequence 1\nrank 1\n", &sequence, &back));
  // An operation's call belongs to the op line before it.
  EXPECT_FALSE(ParseWatchdogReport("gh-hang 1\nsequence 1\nrank 1\nop_call 8 put\n", &sequence, &back));
  EXPECT_FALSE(
      ParseWatchdogReport("gh-hang 1\nsequence 1\nrank 1\nop 1 1 x\nop_call x put\n", &sequence, &back));
}

TEST(WatchdogReportText, HangFileMustBeThisRanksThisPointsAndRecent) {
  const std::string path = ::testing::TempDir() + "/rank2.hang";
  WatchdogReport report;
  report.rank = 2;
  report.step = "verify";
  report.stack = {"PMPI_Barrier [libmpi.so.40]"};
  std::ofstream(path) << EncodeWatchdogReport(5, report);
  const absl::Time before = absl::Now() - absl::Minutes(1);
  WatchdogReport back;
  EXPECT_TRUE(ReadHangFile(path, 2, 5, before, &back));
  EXPECT_EQ(back.stack, report.stack);
  EXPECT_FALSE(ReadHangFile(path, 2, 6, before, &back)) << "another point's";
  EXPECT_FALSE(ReadHangFile(path, 3, 5, before, &back)) << "another rank's";
  EXPECT_FALSE(ReadHangFile(path, 2, 5, absl::Now() + absl::Minutes(1), &back)) << "stale";
  EXPECT_FALSE(ReadHangFile(path + ".missing", 2, 5, before, &back));
}

}  // namespace
}  // namespace gh
