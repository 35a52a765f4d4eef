#include "harness/runtime/watchdog.h"

#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <cstring>

namespace gh {
namespace {

constexpr int kReportTag = 7301;

std::chrono::steady_clock::duration ToChrono(absl::Duration d) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      absl::ToChronoNanoseconds(d));
}

}  // namespace

Watchdog::Watchdog(MPI_Comm comm, TimeoutHandler on_timeout, absl::Duration grace,
                   absl::Duration last_resort)
    : comm_(comm), on_timeout_(std::move(on_timeout)), grace_(grace), last_resort_(last_resort) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
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
    SetStep("start");
  }
  wake_.notify_all();
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

void Watchdog::FireOnRoot(int64_t sequence, absl::Duration timeout) {
  std::vector<WatchdogReport> reports = CollectReports(sequence);
  if (on_timeout_) on_timeout_(timeout, reports);
  std::fprintf(stderr, "gpuharness: watchdog: timeout after %s; aborting the job\n",
               absl::FormatDuration(timeout).c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

void Watchdog::FireOnOtherRank(int64_t sequence, std::unique_lock<std::mutex>& lock) {
  int done = 1;
  if (outgoing_request_ != MPI_REQUEST_NULL) MPI_Test(&outgoing_request_, &done, MPI_STATUS_IGNORE);
  if (done) {
    outgoing_ = ReportMessage{};
    outgoing_.sequence = sequence;
    outgoing_.rank = rank_;
    std::strncpy(outgoing_.step, step(), sizeof(outgoing_.step) - 1);
    MPI_Isend(&outgoing_, sizeof(outgoing_), MPI_BYTE, 0, kReportTag, comm_, &outgoing_request_);
  }
  // Rank 0 ends the job; if it cannot (gone, frozen), this rank does, rather than hang.
  const auto last_resort = std::chrono::steady_clock::now() + ToChrono(last_resort_);
  const bool finished = wake_.wait_until(lock, last_resort, [&] {
    return stop_ || !armed_ || sequence_ != sequence;
  });
  if (finished) return;
  std::fprintf(stderr,
               "gpuharness: watchdog on rank %d: rank 0 did not end the job %s after the timeout "
               "in step '%s'; aborting\n",
               rank_, absl::FormatDuration(last_resort_).c_str(), step());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

std::vector<WatchdogReport> Watchdog::CollectReports(int64_t sequence) {
  std::vector<WatchdogReport> reports(size_);
  std::vector<bool> heard(size_, false);
  for (int r = 0; r < size_; ++r) reports[r] = WatchdogReport{r, kUnresponsiveStep};
  reports[0].step = step();
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
    ReportMessage message{};
    if (MPI_Recv(&message, sizeof(message), MPI_BYTE, status.MPI_SOURCE, kReportTag, comm_,
                 MPI_STATUS_IGNORE) != MPI_SUCCESS) {
      break;
    }
    // Reports of earlier points (a rank that raced its own completion) are drained and dropped.
    if (message.sequence != sequence || message.rank <= 0 || message.rank >= size_ ||
        heard[message.rank]) {
      continue;
    }
    message.step[sizeof(message.step) - 1] = '\0';
    reports[message.rank].step = message.step;
    heard[message.rank] = true;
    ++heard_count;
  }
  return reports;
}

}  // namespace gh
