// The per-rank watchdog: a thread that ends the job when a point × trial outlives its timeout,
// so that a hung rank never hangs CI.
//
// Protocol. Every rank arms the watchdog for every point × trial, in the same order, so arm
// sequence numbers agree across ranks. When a rank's deadline passes, its watchdog thread
// first takes the rank's hang snapshot (docs/explanation/hangs.md): the step, the main thread's stack
// (stack_dump.h, at most kStackWait) and the operations ring (op_ring.h); it writes the
// snapshot to DIR/.ranks/rank<r>.hang (when SetRanksDir named DIR/.ranks) and then:
//   - a rank other than 0 sends the snapshot to rank 0 over the watchdog's own communicator
//     and carries on, driving the send while it waits; if its point is still unfinished
//     `last_resort` later (rank 0 is gone or frozen), rank 1 stands in for rank 0 (the deputy
//     handler, SetDeputy): with its own snapshot and those the others left in their .hang files,
//     rank 0 marked "unresponsive", it records the timeout and ends the job; the other ranks
//     wait a margin longer for it, then call MPI_Abort themselves;
//   - rank 0 collects the other ranks' reports for up to `grace`, takes the snapshot a silent
//     rank left in its .hang file (same sequence, written since the point began) when there is
//     one, marks the ranks that left neither as "unresponsive", and calls the timeout handler on the watchdog thread. The handler
//     writes the records and ends the job (MPI_Abort); should it return, the watchdog aborts.
// Thread-safety: Arm/Disarm/SetStep are called by the rank's main thread only.
#ifndef GPUHARNESS_RUNTIME_WATCHDOG_H_
#define GPUHARNESS_RUNTIME_WATCHDOG_H_

#include <mpi.h>
#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "harness/runtime/op_ring.h"

namespace gh {

// Step label of a rank that sent no report within the grace period.
inline constexpr char kUnresponsiveStep[] = "unresponsive";

// How much longer than rank 1 the other ranks wait for a silent rank 0 before they end the job
// without a record: rank 1 records the timeout in rank 0's place meanwhile (SetDeputy).
inline constexpr absl::Duration kDeputyMargin = absl::Seconds(10);

// How long a rank's watchdog waits for its main thread's stack.
inline constexpr absl::Duration kStackWait = absl::Milliseconds(300);

struct WatchdogReport {
  int rank = 0;
  std::string step;  // the rank's step when its deadline passed, or kUnresponsiveStep
  std::vector<std::string> stack;  // the main thread's frames, innermost first
  std::string stack_note;          // why there are none, or where they came from
  std::vector<OpEntry> ops;        // the rank's last operations, oldest first
};

// A report as text ("gh-hang 1" then one "key value" line per field): what the .hang file
// holds and what travels to rank 0. Parse returns false on anything but such text.
std::string EncodeWatchdogReport(int64_t sequence, const WatchdogReport& report);
bool ParseWatchdogReport(absl::string_view text, int64_t* sequence, WatchdogReport* report);
// A silent rank's snapshot from its .hang file at `path`: true when the file holds rank
// `rank`'s report for arm `sequence` and was written no earlier than `not_before`.
bool ReadHangFile(const std::string& path, int rank, int64_t sequence, absl::Time not_before,
                  WatchdogReport* report);

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

  // DIR/.ranks: where each rank leaves its hang snapshot at a timeout. Before the first Arm.
  void SetRanksDir(std::string dir) { ranks_dir_ = std::move(dir); }
  // Rank 1's stand-in for a silent rank 0, called on its watchdog thread `last_resort` after its
  // deadline with one report per rank (rank 0 unresponsive); it writes the records and ends the
  // job. Before the first Arm; every rank may be given it, rank 1 alone calls it.
  void SetDeputy(TimeoutHandler on_root_silent) { on_root_silent_ = std::move(on_root_silent); }

  // `step` and `operation` must have static storage duration (string literals). Also enters
  // the step, and the operation it issues if any (OpRing::Record), in the operations ring.
  void SetStep(const char* step, const char* operation = nullptr, int64_t bytes = 0);
  const char* step() const { return step_.load(std::memory_order_relaxed); }
  // For the crash guard's signal handler, which reads the step without locks.
  const std::atomic<const char*>* step_slot() const { return &step_; }

 private:
  void Loop();
  void FireOnRoot(int64_t sequence, absl::Duration timeout);
  void FireOnOtherRank(int64_t sequence, std::unique_lock<std::mutex>& lock);
  std::vector<WatchdogReport> CollectReports(int64_t sequence, WatchdogReport own);
  // Every rank not `heard` yet: its snapshot from its .hang file; its step stays "unresponsive"
  // (it did not report) unless `as_reports` (the deputy, who heard no one, takes the files' steps).
  void AddReportsFromFiles(int64_t sequence, std::vector<WatchdogReport>& reports, const std::vector<bool>& heard,
                           bool as_reports);
  // One report per rank, each "unresponsive" until heard from.
  std::vector<WatchdogReport> SilentReports() const;
  // The rank's own report (stack, ring), also left in its .hang file.
  WatchdogReport TakeSnapshot(int64_t sequence);
  std::string HangFile(int rank) const;

  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  TimeoutHandler on_timeout_;
  TimeoutHandler on_root_silent_;
  absl::Duration grace_;
  absl::Duration last_resort_;
  std::atomic<const char*> step_{"idle"};
  OpRing ring_;
  pthread_t main_thread_{};  // the thread that armed: the one whose stack tells
  std::string ranks_dir_;
  absl::Time armed_at_;

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool armed_ = false;
  bool fired_ = false;
  int64_t sequence_ = 0;
  absl::Duration timeout_;
  std::chrono::steady_clock::time_point deadline_;

  std::string outgoing_;              // stays alive while its send is in flight
  MPI_Request outgoing_request_ = MPI_REQUEST_NULL;
  std::thread thread_;
};

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_WATCHDOG_H_
