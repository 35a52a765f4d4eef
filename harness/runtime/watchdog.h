// The per-rank watchdog: a thread that ends the job when a point × trial outlives its timeout,
// so that a hung rank never hangs CI.
//
// Protocol. Every rank arms the watchdog for every point × trial, in the same order, so arm
// sequence numbers agree across ranks. When a rank's deadline passes:
//   - a rank other than 0 sends {sequence, rank, step} to rank 0 over the watchdog's own
//     communicator (a small eager message) and carries on; if its point is still unfinished
//     `last_resort` later (rank 0 is gone or frozen), it calls MPI_Abort itself;
//   - rank 0 collects the other ranks' reports for up to `grace`, marks the ranks that sent
//     none as "unresponsive", and calls the timeout handler on the watchdog thread. The handler
//     writes the records and ends the job (MPI_Abort); should it return, the watchdog aborts.
// Thread-safety: Arm/Disarm/SetStep are called by the rank's main thread only.
#ifndef GPUHARNESS_RUNTIME_WATCHDOG_H_
#define GPUHARNESS_RUNTIME_WATCHDOG_H_

#include <mpi.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"

namespace gh {

// Step label of a rank that sent no report within the grace period.
inline constexpr char kUnresponsiveStep[] = "unresponsive";

struct WatchdogReport {
  int rank = 0;
  std::string step;  // the rank's step when its deadline passed, or kUnresponsiveStep
};

class Watchdog {
 public:
  // Runs on rank 0's watchdog thread with one report per rank, ordered by rank.
  using TimeoutHandler =
      std::function<void(absl::Duration timeout, const std::vector<WatchdogReport>& reports)>;

  // `comm` is used by watchdogs only (a duplicate of the world); the watchdog does not own it.
  Watchdog(MPI_Comm comm, TimeoutHandler on_timeout, absl::Duration grace = absl::Seconds(2),
           absl::Duration last_resort = absl::Seconds(30));
  ~Watchdog();  // stops the thread; call only while disarmed
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Starts watching one point × trial; the step becomes "start".
  void Arm(absl::Duration timeout);
  // Stops watching. False on rank 0 when the deadline already passed and the timeout handler
  // owns the job: the caller must then write nothing and wait for the job to end.
  bool Disarm();

  // `step` must have static storage duration (a string literal).
  void SetStep(const char* step) { step_.store(step, std::memory_order_relaxed); }
  const char* step() const { return step_.load(std::memory_order_relaxed); }
  // For the crash guard's signal handler, which reads the step without locks.
  const std::atomic<const char*>* step_slot() const { return &step_; }

 private:
  struct ReportMessage {
    int64_t sequence;
    int32_t rank;
    char step[84];
  };

  void Loop();
  void FireOnRoot(int64_t sequence, absl::Duration timeout);
  void FireOnOtherRank(int64_t sequence, std::unique_lock<std::mutex>& lock);
  std::vector<WatchdogReport> CollectReports(int64_t sequence);

  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  TimeoutHandler on_timeout_;
  absl::Duration grace_;
  absl::Duration last_resort_;
  std::atomic<const char*> step_{"idle"};

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool armed_ = false;
  bool fired_ = false;
  int64_t sequence_ = 0;
  absl::Duration timeout_;
  std::chrono::steady_clock::time_point deadline_;

  ReportMessage outgoing_{};          // stays alive while its send is in flight
  MPI_Request outgoing_request_ = MPI_REQUEST_NULL;
  std::thread thread_;
};

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_WATCHDOG_H_
