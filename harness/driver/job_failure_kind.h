// The one place that decides what a job's end says about the runs it left unrecorded: a
// verdict on the code under test (a crash, a timeout) or no verdict at all because the
// machinery failed (infrastructure: the launcher is missing, mpirun refused to start, MPI could
// not initialise, the job exited before recording anything). Infrastructure becomes
// Outcome::kInfra, which never meets an expectation and makes `sweep` exit 3; a bisect treats
// such a trial as unclassifiable. A job that crashed after recording runs stays a crash.
#ifndef GPUHARNESS_DRIVER_JOB_FAILURE_KIND_H_
#define GPUHARNESS_DRIVER_JOB_FAILURE_KIND_H_

#include <cstddef>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "harness/core/outcome.h"
#include "harness/driver/process_runner.h"

namespace gh::driver {

// How a job ended.
struct JobEnd {
  bool timed_out = false;        // the driver killed it at its timeout
  absl::Duration timeout;        // the timeout, for the signature
  ProcessExit exit;              // as reaped
  std::string log_path;          // the job's stdout+stderr
  std::string run_dir;           // the job's --out DIR
  // When the driver started the process and saw it end (its clock); equal when not known.
  absl::Time started, ended;
};

enum class JobFailureKind {
  kTimeout,         // the driver killed it at the cell's timeout
  kBadInput,        // it exited 2: the job refused its input
  kCrash,           // a rank or the job died: a verdict on the code under test
  kInfrastructure,  // the launcher, MPI start-up or the harness failed: no verdict
};

// What the runs a job never recorded become.
struct JobFailure {
  JobFailureKind kind = JobFailureKind::kCrash;
  Outcome outcome = Outcome::kCrash;  // timeout, error, crash or infra
  std::string signature;
  bool names_rank = false;  // a crash whose signature names the rank(s) that died
};

// Decides, from the job's end, its log and its DIR (.ranks/rank<r>.crash), given how many
// records it wrote to its records.jsonl (any point): in this order,
//   killed at the timeout                      -> timeout "cell timeout after 10m"
//   exit 2                                     -> error   "bad input: <first line of the log>"
//   srun: a node of the step died              -> infra   "infrastructure: srun: error: Node failure on ghnode2 (job exited with status 0)"
//   a rank left a crash file                   -> crash   "crash on rank 1: SIGSEGV in step 'x' (job exited with status 139)"
//   mpirun names a rank killed by a signal     -> crash   "crash: rank 2 killed by SIGKILL (job exited with status 137)"
//   nothing recorded and the log holds a launcher or MPI start-up failure (LauncherFailureLine)
//                                              -> infra   "infrastructure: <that line> (job exited with status 1)"
//   exit 126 or 127 (cannot execute)           -> infra   "infrastructure: <first line> (job exited with status 127)"
//   exit 3 (the job's own infrastructure exit) -> infra   "infrastructure: <its gpuharness line> (job exited with status 3)"
//   the job itself died by a signal            -> crash   "crash: job killed by SIGSEGV"
//   exit 0 or 1, nothing recorded              -> infra   "infrastructure: job ended before recording anything[: <first line>] (job exited with status 1)"
//   exit 0 or 1 after other records            -> infra   "infrastructure: job ended without recording this run (job exited with status 0)"
//   any other status                           -> crash   "crash: job exited with status 134: <first line>"
JobFailure ClassifyJobFailure(const JobEnd& end, size_t records_written);

// The first line of `log_path` in which a launcher or MPI start-up reports it could not run the
// job ("mpirun has detected an attempt to run as root", "It looks like MPI_INIT failed",
// "ORTE was unable to ...", "PMIx ... error", "srun: error: ...", "cannot execute '...'"),
// trimmed; "" when none.
std::string LauncherFailureLine(const std::string& log_path);

// mpirun's own account of the first rank a signal ended ("process rank 2 with PID 123 on node x
// exited on signal 9 (Killed)."); nullopt when the log has none.
struct RankSignal {
  int rank = 0;
  int signal = 0;
  std::string ToString() const;  // "rank 2 killed by SIGKILL"
};
std::optional<RankSignal> MpirunRankSignal(const std::string& log_path);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_JOB_FAILURE_KIND_H_
