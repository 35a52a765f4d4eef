// Turns a dying rank into a recorded outcome. On a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
// SIGABRT) any rank writes DIR/.ranks/rank<r>.crash ("<SIGNAME> in step '<step>'", then the
// faulting thread's stack: raw addresses first, then symbolized frames); rank 0,
// on its own fatal signal or on SIGTERM/SIGINT (what mpirun sends the survivors when a rank
// dies), appends the in-flight point's pre-rendered crash record (see crash_record.h) in one
// write(2). Then the signal takes its default course. The handlers use async-signal-safe
// calls only; everything they need is prepared beforehand.
#ifndef GPUHARNESS_RUNTIME_CRASH_GUARD_H_
#define GPUHARNESS_RUNTIME_CRASH_GUARD_H_

#include <atomic>
#include <string>

#include "absl/status/status.h"
#include "harness/core/records_file.h"

namespace gh {

struct CrashGuardConfig {
  std::string ranks_dir;  // DIR/.ranks, created by rank 0 before any point runs
  int rank = 0;
  int nranks = 1;
  const std::atomic<const char*>* step = nullptr;  // the watchdog's step label
  const RecordsWriter* records = nullptr;          // rank 0 only
  // Rank 0: once this file exists, rank 1 has recorded the point in rank 0's place (a rank 0
  // frozen past the watchdog's last resort): no crash record then.
  std::string deputy_file = {};
};

// Installs the handlers (after MPI_Init, which installs its own). Once per process.
absl::Status InstallCrashGuard(const CrashGuardConfig& config);

// Rank 0: the line (from RenderCrashRecordTemplate) to write should the job die before
// ClearPendingCrashRecord. Allocates here, never in the handler.
void SetPendingCrashRecord(std::string crash_record_template);
// Rank 0: the point finished (or its outcome is being written by other means).
void ClearPendingCrashRecord();

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_CRASH_GUARD_H_
