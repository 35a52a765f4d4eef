#include "harness/driver/sweep_progress.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace gh::driver {
namespace {

std::string Clock(double seconds) {
  int s = static_cast<int>(seconds + 0.5);
  if (s >= 3600) return absl::StrFormat("%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
  return absl::StrFormat("%02d:%02d", s / 60, s % 60);
}

}  // namespace

SweepProgress::SweepProgress(std::FILE* out, bool interactive, int total, int resumed,
                             absl::Time start)
    : out_(out), interactive_(interactive), total_(total), done_(resumed), start_(start) {}

bool SweepProgress::ShouldBeInteractive(std::FILE* out) {
  const char* ci = std::getenv("CI");
  if (ci != nullptr && (std::strcmp(ci, "true") == 0 || std::strcmp(ci, "1") == 0)) return false;
  return isatty(fileno(out)) != 0;
}

std::string SweepProgress::StatusLine(absl::Time now) const {
  double elapsed = absl::ToDoubleSeconds(now - start_);
  std::string line = absl::StrCat(done_, "/", total_, " cells done, ", running_, " running, ",
                                  failed_, " failed, ", Clock(elapsed), " elapsed");
  int left = total_ - done_;
  if (finished_here_ > 0 && left > 0) {
    // Cells finish at the rate seen so far in this invocation (concurrency included).
    double per_cell = elapsed / finished_here_;
    absl::StrAppend(&line, ", ETA ", Clock(per_cell * left));
  }
  return line;
}

void SweepProgress::CellStarted(absl::Time now) {
  ++running_;
  Tick(now);
}

void SweepProgress::CellFinished(const CellSummary& cell, absl::Time now) {
  --running_;
  ++done_;
  ++finished_here_;
  run_seconds_ += cell.wall_s;
  if (cell.failed) ++failed_;
  if (interactive_) {
    if (cell.failed) {
      std::fprintf(out_, "\r\033[K%s: %d/%d pass, %d unmet (%s)\n", cell.id.c_str(), cell.passed,
                   cell.records, cell.unmet, cell.how.c_str());
    }
    last_draw_ = absl::InfinitePast();
    Tick(now);
  } else {
    std::fprintf(out_, "[%d/%d] %s: %d/%d pass, %d unmet, %s, %.1fs\n", done_, total_,
                 cell.id.c_str(), cell.passed, cell.records, cell.unmet, cell.how.c_str(),
                 cell.wall_s);
    std::fflush(out_);
  }
}

void SweepProgress::Tick(absl::Time now) {
  if (!interactive_ || now - last_draw_ < absl::Milliseconds(200)) return;
  last_draw_ = now;
  std::fprintf(out_, "\r\033[K%s", StatusLine(now).c_str());
  std::fflush(out_);
}

void SweepProgress::Finish(absl::Time now) {
  if (interactive_) {
    std::fprintf(out_, "\r\033[K%s\n", StatusLine(now).c_str());
  } else {
    std::fprintf(out_, "%s\n", StatusLine(now).c_str());
  }
  std::fflush(out_);
}

}  // namespace gh::driver
