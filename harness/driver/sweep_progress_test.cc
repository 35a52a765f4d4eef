// Sweep progress on the console: per-point counts, the ETA from measured run times, the point
// each running cell is in, heartbeats off a terminal, and no carriage return or escape sequence
// unless the style is live.
#include "harness/driver/sweep_progress.h"

#include <cstdio>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/core/testdata/captured_file.h"

namespace gh::driver {
namespace {

using ::testing::HasSubstr;

using Captured = testing::CapturedFile;

const absl::Time kStart = absl::UnixEpoch();
absl::Time At(int seconds) { return kStart + absl::Seconds(seconds); }

ConsoleStyle Live(bool color) {
  ConsoleStyle style;
  style.live = true;
  style.color = color;
  return style;
}

CellSummary Finished(const std::string& id, int runs, int unmet) {
  CellSummary cell;
  cell.id = id;
  cell.runs = runs;
  cell.records = runs;
  cell.passed = runs - unmet;
  cell.unmet = unmet;
  cell.failed = unmet > 0;
  cell.how = "exit 0";
  cell.wall_s = 40;
  return cell;
}

// A one-cell sweep no longer reads "0/1 cells done" until it ends: its points count, and the
// ETA comes from the rate they finish at.
TEST(SweepProgress, OneCellSweepCountsPointsAndEstimatesFromRunTimes) {
  Captured out;
  SweepProgress progress(out.file(), ConsoleStyle{}, {.cells = 1, .runs = 8}, kStart);
  progress.CellStarted("np=2", At(0));
  EXPECT_EQ(progress.StatusLine(At(5)), "0/8 points, 0/1 cells done, 1 running, 0 failed, 00:05 elapsed");
  progress.CellAt("np=2", 2, "ring/bytes=4M/np=2", At(10));
  EXPECT_EQ(progress.StatusLine(At(10)),
            "2/8 points, 0/1 cells done, 1 running, 0 failed, 00:10 elapsed, ETA 00:30");
  EXPECT_EQ(progress.RunningCells(At(13), "; ", 8), "np=2: ring/bytes=4M/np=2 (3s)");
  progress.CellAt("np=2", 2, "ring/bytes=4M/np=2", At(200));  // same point: its clock runs on
  EXPECT_EQ(progress.RunningCells(At(200), "; ", 8), "np=2: ring/bytes=4M/np=2 (3m10s)");
}

TEST(SweepProgress, ResumedCellsAndRunsCountAsDoneButNotInTheRate) {
  Captured out;
  SweepProgress progress(out.file(), ConsoleStyle{},
                         {.cells = 4, .cells_done = 2, .cells_failed = 1, .runs = 32, .runs_done = 16}, kStart);
  EXPECT_EQ(progress.StatusLine(At(1)), "16/32 points, 2/4 cells done, 0 running, 1 failed, 00:01 elapsed");
  progress.CellStarted("c", At(1));
  progress.CellFinished(Finished("c", 8, 0), At(9));
  EXPECT_EQ(progress.StatusLine(At(9)), "24/32 points, 3/4 cells done, 0 running, 1 failed, 00:09 elapsed, ETA 00:09");
}

TEST(SweepProgress, PlainLinesPerCellAndAHeartbeatWhenSilent) {
  Captured out;
  SweepProgress progress(out.file(), ConsoleStyle{}, {.cells = 2, .runs = 16}, kStart, absl::Seconds(60));
  progress.CellStarted("np=2", At(0));
  progress.CellStarted("np=4", At(0));
  progress.CellAt("np=2", 1, "ring/a", At(30));
  progress.Tick(At(30));  // silent for 30 s only: nothing
  progress.CellAt("np=4", 0, "ring/x", At(59));
  progress.Tick(At(61));
  progress.Tick(At(90));  // 29 s after the heartbeat: nothing
  progress.CellFinished(Finished("np=2", 8, 1), At(100));
  progress.Tick(At(159));
  progress.Tick(At(161));
  progress.CellFinished(Finished("np=4", 8, 0), At(170));
  progress.Finish(At(170));
  EXPECT_EQ(out.Text(),
            "[heartbeat] 1/16 points, 0/2 cells done, 2 running, 0 failed, 01:01 elapsed, ETA 15:15; "
            "running: np=2: ring/a (31s); np=4: ring/x (2s)\n"
            "[1/2] np=2: 7/8 pass, 1 unmet, exit 0, 40.0s\n"
            "[heartbeat] 8/16 points, 1/2 cells done, 1 running, 1 failed, 02:41 elapsed, ETA 02:41; "
            "running: np=4: ring/x (1m42s)\n"
            "[2/2] np=4: 8/8 pass, 0 unmet, exit 0, 40.0s\n"
            "16/16 points, 2/2 cells done, 0 running, 1 failed, 02:50 elapsed\n");
}

TEST(SweepProgress, LiveRedrawsInPlaceAndPrintsFailedCellsAbove) {
  Captured out;
  SweepProgress progress(out.file(), Live(/*color=*/false), {.cells = 1, .runs = 4}, kStart);
  progress.CellStarted("np=2", At(0));
  progress.CellAt("np=2", 1, "ring/b", At(1));
  progress.Tick(At(1));
  progress.CellFinished(Finished("np=2", 4, 2), At(2));
  progress.Finish(At(2));
  const std::string text = out.Text();
  EXPECT_THAT(text, HasSubstr("\r\033[K1/4 points, 0/1 cells done, 1 running, 0 failed, 00:01 elapsed, ETA 00:03 — "
                              "np=2: ring/b (0s)"));
  EXPECT_THAT(text, HasSubstr("\r\033[KFAILED np=2: 2/4 pass, 2 unmet (exit 0)\n"));
  EXPECT_THAT(text, ::testing::EndsWith("\r\033[K4/4 points, 1/1 cells done, 0 running, 1 failed, 00:02 elapsed\n"));
  EXPECT_EQ(text.find("\033[1;31m"), std::string::npos);  // NO_COLOR: live, but no colour

  Captured colored;
  SweepProgress with_color(colored.file(), Live(/*color=*/true), {.cells = 1, .runs = 1}, kStart);
  with_color.CellStarted("c", At(0));
  with_color.CellFinished(Finished("c", 1, 1), At(1));
  EXPECT_THAT(colored.Text(), HasSubstr("\033[1;31mFAILED\033[0m c: 0/1 pass"));
}

TEST(SweepProgress, PlainOutputHasNoCarriageReturnOrEscape) {
  Captured out;
  SweepProgress progress(out.file(), ConsoleStyle{}, {.cells = 1, .runs = 2}, kStart, absl::Seconds(1));
  progress.CellStarted("c", At(0));
  for (int t = 1; t < 5; ++t) {
    progress.CellAt("c", t / 3, "p", At(t));
    progress.Tick(At(t));
  }
  progress.CellFinished(Finished("c", 2, 2), At(6));
  progress.Finish(At(6));
  const std::string text = out.Text();
  EXPECT_EQ(text.find('\r'), std::string::npos);
  EXPECT_EQ(text.find('\033'), std::string::npos);
  EXPECT_THAT(text, HasSubstr("[heartbeat] "));
}

}  // namespace
}  // namespace gh::driver
