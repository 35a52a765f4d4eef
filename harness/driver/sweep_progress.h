// Sweep progress, per point. Jobs report the runs (point x trial) they finish by appending to
// their records.jsonl; the driver reads how far each running job got (SweepProgress::CellAt)
// and knows from the plan which point comes next, so the console can say, for each running
// cell, the point it is in and for how long.
//   live (a terminal, not CI; report/console_style.h): one line redrawn in place at most 5 times
//     a second: "14/32 points, 1/4 cells done, 2 running, 0 failed, 00:12 elapsed, ETA 00:15 —
//     np=2: ring_shift/bytes=4M/np=2 (3s), +1 more", cut to the terminal's width; a failed
//     cell's line is printed above it when the cell ends.
//   plain (a pipe, a file, CI=true): a line per finished cell ("[3/4] np=2: 8/8 pass, 0 unmet,
//     exit 0, 1.2s"), and a "[heartbeat] ..." line with the status and each running cell's
//     point whenever nothing was printed for `heartbeat` (default 60s), so a CI system never
//     sees a job silent for longer. No carriage returns, no escape sequences.
// The ETA is the runs left in the plan at the rate runs finished in this invocation.
#ifndef GPUHARNESS_DRIVER_SWEEP_PROGRESS_H_
#define GPUHARNESS_DRIVER_SWEEP_PROGRESS_H_

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

#include "absl/time/time.h"
#include "harness/report/console_style.h"

namespace gh::driver {

// How many more lines the file at `path` holds past byte `offset`, moved past what was read; a
// torn last line counts once it is whole. A file another process appends to (a job's
// records.jsonl, a line per finished run); 0 while it does not exist.
size_t CountNewLines(const std::string& path, uintmax_t& offset);

struct CellSummary {
  std::string id;
  int runs = 0;              // planned point x trial runs of the cell in this invocation
  int records = 0;
  int passed = 0;
  int unmet = 0;
  bool failed = false;       // unmet expectation, or the job timed out / crashed
  std::string how;           // "exit 0", "timeout", "killed by SIGSEGV", "resumed", "setup failed"
  double wall_s = 0;
};

// What the plan holds when the progress starts: every cell and run of this sweep, and those of
// them already done (resumed, or set up and failed) with how many of those cells failed.
struct ProgressTotals {
  int cells = 0;
  int cells_done = 0;
  int cells_failed = 0;
  int runs = 0;
  int runs_done = 0;
};

class SweepProgress {
 public:
  SweepProgress(std::FILE* out, ConsoleStyle style, ProgressTotals totals, absl::Time start,
                absl::Duration heartbeat = absl::Seconds(60));
  void CellStarted(const std::string& id, absl::Time now);
  // The cell has finished `runs_done` of its runs in this invocation and is in `point` ("" when
  // not known); a change of point restarts the point's clock.
  void CellAt(const std::string& id, int runs_done, const std::string& point, absl::Time now);
  void CellFinished(const CellSummary& cell, absl::Time now);
  void Tick(absl::Time now);    // redraws the live line (at most 5 times a second), or heartbeats
  void Finish(absl::Time now);  // the last status line, on a line of its own
  void Note(const std::string& line, absl::Time now) { Print(line, now); }  // a line of its own
  // "14/32 points, 1/4 cells done, 2 running, 0 failed, 00:12 elapsed, ETA 00:15"
  std::string StatusLine(absl::Time now) const;
  // "np=2: ring_shift/bytes=4M/np=2 (3s)" for each running cell, in start order, joined by `sep`.
  std::string RunningCells(absl::Time now, const std::string& sep, size_t limit) const;

 private:
  struct Running {
    int order = 0;
    int runs_done = 0;
    std::string point;
    absl::Time point_since;
  };
  void Print(const std::string& line, absl::Time now);

  std::FILE* out_;
  ConsoleStyle style_;
  ProgressTotals totals_;
  absl::Time start_;
  absl::Duration heartbeat_;
  int finished_here_ = 0;      // cells finished in this invocation
  int runs_finished_here_ = 0; // runs of those cells
  int started_ = 0;
  std::map<std::string, Running> running_;
  absl::Time last_draw_ = absl::InfinitePast();
  absl::Time last_line_;       // the last plain line printed
  size_t width_ = 0;           // the terminal's columns (live only)
};

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_SWEEP_PROGRESS_H_
