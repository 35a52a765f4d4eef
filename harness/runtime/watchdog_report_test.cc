// The watchdog's report text: what a rank's .hang file holds and what it sends rank 0.
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
  report.ops = {{1, "start", 1}, {2, "setup step", 1}};
  const std::string text = EncodeWatchdogReport(17, report);
  EXPECT_EQ(text.rfind("gh-hang 1\nsequence 17\nrank 3\nstep exchange\n", 0), 0u) << text;
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
}

}  // namespace
}  // namespace gh
