#include "harness/driver/sweep_progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "harness/report/failure_lines.h"

namespace gh::driver {
namespace {

constexpr size_t kDefaultWidth = 120;

std::string Clock(double seconds) {
  int s = static_cast<int>(seconds + 0.5);
  if (s >= 3600) return absl::StrFormat("%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
  return absl::StrFormat("%02d:%02d", s / 60, s % 60);
}

// "3s", "4m12s", "1h02m": how long a point has been running.
std::string Since(absl::Duration d) {
  const int64_t s = absl::ToInt64Seconds(d);
  if (s < 60) return absl::StrCat(s, "s");
  if (s < 3600) return absl::StrFormat("%dm%02ds", s / 60, s % 60);
  return absl::StrFormat("%dh%02dm", s / 3600, s / 60 % 60);
}

size_t TerminalWidth(std::FILE* out) {
  struct winsize ws{};
  if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20) return ws.ws_col;
  return kDefaultWidth;
}

}  // namespace

SweepProgress::SweepProgress(std::FILE* out, ConsoleStyle style, ProgressTotals totals,
                             absl::Time start, absl::Duration heartbeat)
    : out_(out), style_(style), totals_(totals), start_(start), heartbeat_(heartbeat),
      last_line_(start) {
  if (style_.live) width_ = TerminalWidth(out);
}

size_t CountNewLines(const std::string& path, uintmax_t& offset) {
  size_t lines = 0;
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    if (std::fseek(f, static_cast<long>(offset), SEEK_SET) == 0) {
      char buffer[1 << 16];
      for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;) {
        lines += static_cast<size_t>(std::count(buffer, buffer + n, '\n'));
        offset += n;
      }
    }
    std::fclose(f);
  }
  return lines;
}

std::string SweepProgress::StatusLine(absl::Time now) const {
  const double elapsed = absl::ToDoubleSeconds(now - start_);
  int runs_here = runs_finished_here_;
  for (const auto& [id, cell] : running_) runs_here += cell.runs_done;
  const int runs_done = std::min(totals_.runs, totals_.runs_done + runs_here);
  std::string line = absl::StrCat(runs_done, "/", totals_.runs, " points, ", totals_.cells_done,
                                  "/", totals_.cells, " cells done, ", running_.size(),
                                  " running, ", totals_.cells_failed, " failed, ", Clock(elapsed),
                                  " elapsed");
  const int left = totals_.runs - runs_done;
  if (runs_here > 0 && left > 0) {
    // Runs finish at the rate seen so far in this invocation (concurrency included).
    absl::StrAppend(&line, ", ETA ", Clock(elapsed / runs_here * left));
  }
  return line;
}

std::string SweepProgress::RunningCells(absl::Time now, const std::string& sep, size_t limit) const {
  std::vector<std::pair<int, std::string>> cells;
  for (const auto& [id, cell] : running_) {
    std::string text = id;
    if (!cell.point.empty()) absl::StrAppend(&text, ": ", cell.point, " (", Since(now - cell.point_since), ")");
    cells.emplace_back(cell.order, std::move(text));
  }
  std::sort(cells.begin(), cells.end());
  std::vector<std::string> parts;
  for (size_t i = 0; i < cells.size() && i < limit; ++i) parts.push_back(cells[i].second);
  if (cells.size() > limit) parts.push_back(absl::StrCat("+", cells.size() - limit, " more"));
  return absl::StrJoin(parts, sep);
}

void SweepProgress::Print(const std::string& line, absl::Time now) {
  if (style_.live) {
    std::fprintf(out_, "\r\033[K%s\n", line.c_str());
    last_draw_ = absl::InfinitePast();  // redraw the status under it
  } else {
    std::fprintf(out_, "%s\n", line.c_str());
    last_line_ = now;
  }
  std::fflush(out_);
}

void SweepProgress::CellStarted(const std::string& id, absl::Time now) {
  running_[id] = Running{started_++, 0, "", now};
  Tick(now);
}

void SweepProgress::CellAt(const std::string& id, int runs_done, const std::string& point, absl::Time now) {
  auto it = running_.find(id);
  if (it == running_.end()) return;
  if (it->second.point != point) it->second.point_since = now;
  it->second.runs_done = runs_done;
  it->second.point = point;
}

void SweepProgress::CellFinished(const CellSummary& cell, absl::Time now) {
  running_.erase(cell.id);
  ++totals_.cells_done;
  ++finished_here_;
  runs_finished_here_ += cell.runs;
  if (cell.failed) ++totals_.cells_failed;
  if (style_.live) {
    if (cell.failed) {
      Print(absl::StrFormat("%s %s: %d/%d pass, %d unmet (%s)", style_.Red("FAILED"), cell.id,
                            cell.passed, cell.records, cell.unmet, cell.how),
            now);
    }
    Tick(now);
  } else {
    Print(absl::StrFormat("[%d/%d] %s: %d/%d pass, %d unmet, %s, %.1fs", totals_.cells_done,
                          totals_.cells, cell.id, cell.passed, cell.records, cell.unmet, cell.how,
                          cell.wall_s),
          now);
  }
}

void SweepProgress::Tick(absl::Time now) {
  if (!style_.live) {
    if (now - last_line_ < heartbeat_ || running_.empty()) return;
    Print(absl::StrCat("[heartbeat] ", StatusLine(now), "; running: ", RunningCells(now, "; ", 8)), now);
    return;
  }
  if (now - last_draw_ < absl::Milliseconds(200)) return;
  last_draw_ = now;
  std::string line = StatusLine(now);
  if (!running_.empty()) absl::StrAppend(&line, " — ", RunningCells(now, ", ", 2));
  std::fprintf(out_, "\r\033[K%s", OneLineClipped(line, width_ - 1).c_str());
  std::fflush(out_);
}

void SweepProgress::Finish(absl::Time now) {
  if (style_.live) {
    std::fprintf(out_, "\r\033[K%s\n", StatusLine(now).c_str());
  } else {
    std::fprintf(out_, "%s\n", StatusLine(now).c_str());
  }
  std::fflush(out_);
}

}  // namespace gh::driver
