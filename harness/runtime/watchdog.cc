#include "harness/runtime/watchdog.h"

#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "harness/core/file_util.h"
#include "harness/runtime/stack_dump.h"

namespace gh {
namespace {

constexpr int kReportTag = 7301;
constexpr char kReportMagic[] = "gh-hang 1";
// A report larger than this is cut (its frames and ops are bounded well below).
constexpr size_t kMaxReportBytes = 64 * 1024;

// One line's value: newlines would end the line early.
std::string OneLine(absl::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

std::chrono::steady_clock::duration ToChrono(absl::Duration d) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      absl::ToChronoNanoseconds(d));
}

}  // namespace

std::string EncodeWatchdogReport(int64_t sequence, const WatchdogReport& report) {
  std::string out = absl::StrCat(kReportMagic, "\nsequence ", sequence, "\nrank ", report.rank,
                                 "\nstep ", OneLine(report.step), "\n");
  for (const std::string& frame : report.stack) absl::StrAppend(&out, "frame ", OneLine(frame), "\n");
  if (!report.stack_note.empty()) absl::StrAppend(&out, "note ", OneLine(report.stack_note), "\n");
  for (const OpEntry& op : report.ops) {
    absl::StrAppend(&out, "op ", op.sequence, " ", op.occurrence, " ", OneLine(op.step), "\n");
    // The step's communication, if it named one: a line of its own, for the op above.
    if (!op.operation.empty()) {
      absl::StrAppend(&out, "op_call ", op.bytes, " ", OneLine(op.operation), "\n");
    }
  }
  if (out.size() > kMaxReportBytes) out.resize(kMaxReportBytes);
  return out;
}

bool ParseWatchdogReport(absl::string_view text, int64_t* sequence, WatchdogReport* report) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  if (lines.empty() || lines[0] != kReportMagic) return false;
  bool have_sequence = false, have_rank = false;
  *report = WatchdogReport{};
  for (size_t i = 1; i < lines.size(); ++i) {
    const absl::string_view line = lines[i];
    if (line.empty()) continue;
    const size_t space = line.find(' ');
    const absl::string_view key = line.substr(0, space);
    const absl::string_view value =
        space == absl::string_view::npos ? absl::string_view() : line.substr(space + 1);
    if (key == "sequence") {
      have_sequence = absl::SimpleAtoi(value, sequence);
    } else if (key == "rank") {
      have_rank = absl::SimpleAtoi(value, &report->rank);
    } else if (key == "step") {
      report->step = std::string(value);
    } else if (key == "frame") {
      report->stack.emplace_back(value);
    } else if (key == "note") {
      report->stack_note = std::string(value);
    } else if (key == "op") {
      std::vector<absl::string_view> parts = absl::StrSplit(value, absl::MaxSplits(' ', 2));
      OpEntry op;
      if (parts.size() != 3 || !absl::SimpleAtoi(parts[0], &op.sequence) ||
          !absl::SimpleAtoi(parts[1], &op.occurrence)) {
        return false;
      }
      op.step = std::string(parts[2]);
      report->ops.push_back(std::move(op));
    } else if (key == "op_call") {
      std::vector<absl::string_view> parts = absl::StrSplit(value, absl::MaxSplits(' ', 1));
      if (report->ops.empty() || parts.size() != 2 ||
          !absl::SimpleAtoi(parts[0], &report->ops.back().bytes)) {
        return false;
      }
      report->ops.back().operation = std::string(parts[1]);
    }
  }
  return have_sequence && have_rank;
}

Watchdog::Watchdog(MPI_Comm comm, TimeoutHandler on_timeout, absl::Duration grace,
                   absl::Duration last_resort)
    : comm_(comm), on_timeout_(std::move(on_timeout)), grace_(grace), last_resort_(last_resort) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  if (absl::Status sampler = InstallStackSampler(); !sampler.ok()) {
    std::fprintf(stderr, "gpuharness: watchdog: %s; timeouts will carry no stacks\n",
                 std::string(sampler.message()).c_str());
  }
  thread_ = std::thread([this] { Loop(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
  if (outgoing_request_ != MPI_REQUEST_NULL) MPI_Request_free(&outgoing_request_);
}

void Watchdog::Arm(absl::Duration timeout) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++sequence_;
    armed_ = true;
    fired_ = false;
    timeout_ = timeout;
    deadline_ = std::chrono::steady_clock::now() + ToChrono(timeout);
    main_thread_ = pthread_self();
    armed_at_ = absl::Now();
    ring_.Reset();
    SetStep("start");
  }
  wake_.notify_all();
}

void Watchdog::SetStep(const char* step, const char* operation, int64_t bytes) {
  step_.store(step, std::memory_order_relaxed);
  ring_.Record(step, operation, bytes);
}

bool Watchdog::Disarm() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (fired_ && rank_ == 0) return false;
  armed_ = false;
  SetStep("idle");
  wake_.notify_all();
  return true;
}

void Watchdog::Loop() {
  // SIGTERM/SIGINT belong to the main thread, whose handler writes the crash record.
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGTERM);
  sigaddset(&blocked, SIGINT);
  pthread_sigmask(SIG_BLOCK, &blocked, nullptr);

  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    if (!armed_ || fired_) {
      wake_.wait(lock);
      continue;
    }
    if (std::chrono::steady_clock::now() < deadline_) {
      wake_.wait_until(lock, deadline_);
      continue;
    }
    fired_ = true;
    const int64_t sequence = sequence_;
    const absl::Duration timeout = timeout_;
    if (rank_ == 0) {
      lock.unlock();
      FireOnRoot(sequence, timeout);  // does not return
    }
    FireOnOtherRank(sequence, lock);
  }
}

std::string Watchdog::HangFile(int rank) const {
  return absl::StrCat(ranks_dir_, "/rank", rank, ".hang");
}

WatchdogReport Watchdog::TakeSnapshot(int64_t sequence) {
  WatchdogReport report;
  report.rank = rank_;
  report.step = step();
  CapturedStack stack = CaptureThreadStack(main_thread_, kStackWait);
  report.stack = std::move(stack.frames);
  report.stack_note = report.stack.empty()
                          ? stack.note
                          : absl::StrCat("main thread", stack.note.empty() ? "" : "; ", stack.note);
  report.ops = ring_.Snapshot();
  if (!ranks_dir_.empty()) {
    // Best effort: rank 0 reads it only when this rank's message never comes.
    (void)WriteFileAtomically(HangFile(rank_), EncodeWatchdogReport(sequence, report));
  }
  return report;
}

bool ReadHangFile(const std::string& path, int rank, int64_t sequence, absl::Time not_before,
                  WatchdogReport* report) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0 || absl::FromTimeT(info.st_mtime) < not_before) return false;
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  int64_t file_sequence = 0;
  return ParseWatchdogReport(text.str(), &file_sequence, report) && file_sequence == sequence &&
         report->rank == rank;
}

void Watchdog::FireOnRoot(int64_t sequence, absl::Duration timeout) {
  std::vector<WatchdogReport> reports = CollectReports(sequence, TakeSnapshot(sequence));
  if (on_timeout_) on_timeout_(timeout, reports);
  std::fprintf(stderr, "gpuharness: watchdog: timeout after %s; aborting the job\n",
               absl::FormatDuration(timeout).c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

void Watchdog::FireOnOtherRank(int64_t sequence, std::unique_lock<std::mutex>& lock) {
  lock.unlock();
  WatchdogReport report = TakeSnapshot(sequence);
  int done = 1;
  if (outgoing_request_ != MPI_REQUEST_NULL) MPI_Test(&outgoing_request_, &done, MPI_STATUS_IGNORE);
  if (done) {
    outgoing_ = EncodeWatchdogReport(sequence, report);
    MPI_Isend(outgoing_.data(), static_cast<int>(outgoing_.size()), MPI_BYTE, 0, kReportTag,
              comm_, &outgoing_request_);
  }
  lock.lock();
  // Rank 0 ends the job; if it cannot (gone, frozen), rank 1 records the timeout in its place and
  // ends it, and failing that this rank ends it, rather than hang. A report above the eager size
  // needs this side to progress: test it while waiting.
  const bool deputy = rank_ == 1 && on_root_silent_;
  const auto last_resort = std::chrono::steady_clock::now() + ToChrono(last_resort_) +
                           ToChrono(on_root_silent_ && !deputy ? kDeputyMargin : absl::ZeroDuration());
  auto finished = [&] { return stop_ || !armed_ || sequence_ != sequence; };
  while (!finished() && std::chrono::steady_clock::now() < last_resort) {
    wake_.wait_for(lock, std::chrono::milliseconds(10));
    if (outgoing_request_ != MPI_REQUEST_NULL) {
      lock.unlock();
      int sent = 0;
      MPI_Test(&outgoing_request_, &sent, MPI_STATUS_IGNORE);
      lock.lock();
    }
  }
  if (finished()) return;
  std::fprintf(stderr,
               "gpuharness: watchdog on rank %d: rank 0 did not end the job %s after the timeout "
               "in step '%s'; %s\n",
               rank_, absl::FormatDuration(last_resort_).c_str(), step(),
               deputy ? "recording the timeout in its place" : "aborting");
  std::fflush(stderr);
  if (deputy) {
    const absl::Duration timeout = timeout_;
    lock.unlock();
    std::vector<WatchdogReport> reports = SilentReports();
    std::vector<bool> heard(size_, false);
    reports[rank_] = std::move(report);
    heard[rank_] = true;
    AddReportsFromFiles(sequence, reports, heard, /*as_reports=*/true);
    on_root_silent_(timeout, reports);  // writes the records and ends the job
  }
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

std::vector<WatchdogReport> Watchdog::SilentReports() const {
  std::vector<WatchdogReport> reports(size_);
  for (int r = 0; r < size_; ++r) {
    reports[r].rank = r;
    reports[r].step = kUnresponsiveStep;
    reports[r].stack_note = "no stack: the rank sent no report within the grace period";
  }
  return reports;
}

std::vector<WatchdogReport> Watchdog::CollectReports(int64_t sequence, WatchdogReport own) {
  std::vector<WatchdogReport> reports = SilentReports();
  std::vector<bool> heard(size_, false);
  reports[0] = std::move(own);
  heard[0] = true;
  int heard_count = 1;
  const auto until = std::chrono::steady_clock::now() + ToChrono(grace_);
  while (heard_count < size_ && std::chrono::steady_clock::now() < until) {
    int flag = 0;
    MPI_Status status;
    if (MPI_Iprobe(MPI_ANY_SOURCE, kReportTag, comm_, &flag, &status) != MPI_SUCCESS) break;
    if (!flag) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    std::string message(static_cast<size_t>(std::max(count, 0)), '\0');
    if (MPI_Recv(message.data(), count, MPI_BYTE, status.MPI_SOURCE, kReportTag, comm_,
                 MPI_STATUS_IGNORE) != MPI_SUCCESS) {
      break;
    }
    int64_t message_sequence = 0;
    WatchdogReport report;
    // Reports of earlier points (a rank that raced its own completion) are drained and dropped.
    if (!ParseWatchdogReport(message, &message_sequence, &report) ||
        message_sequence != sequence || report.rank <= 0 || report.rank >= size_ ||
        report.rank != status.MPI_SOURCE || heard[report.rank]) {
      continue;
    }
    heard[report.rank] = true;
    reports[report.rank] = std::move(report);
    ++heard_count;
  }
  AddReportsFromFiles(sequence, reports, heard, /*as_reports=*/false);
  return reports;
}

void Watchdog::AddReportsFromFiles(int64_t sequence, std::vector<WatchdogReport>& reports,
                                   const std::vector<bool>& heard, bool as_reports) {
  // A rank whose message never came may still have left its snapshot on a shared disk; its
  // step stays "unresponsive" (it did not report), its stack and ring tell where it was.
  for (int r = 0; r < size_; ++r) {
    WatchdogReport from_file;
    // A file from an earlier job in the same directory predates this point (a minute's slack
    // for the clocks of other hosts).
    if (heard[r] || ranks_dir_.empty() ||
        !ReadHangFile(HangFile(r), r, sequence, armed_at_ - absl::Minutes(1), &from_file)) {
      continue;
    }
    reports[r].stack = std::move(from_file.stack);
    reports[r].stack_note = absl::StrCat("from its .hang file (no report within the grace): ",
                                         from_file.stack_note, "; last step '", from_file.step,
                                         "'");
    reports[r].ops = std::move(from_file.ops);
    if (as_reports) {  // the deputy heard no one: what a rank left is its report
      reports[r].step = from_file.step;
      reports[r].stack_note = absl::StrCat("from its .hang file: ", from_file.stack_note);
    }
  }
}

}  // namespace gh
