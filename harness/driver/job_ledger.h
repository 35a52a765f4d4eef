// Jobs must not outlive their driver. The process runner's parent-death signal kills a job's
// leader (mpirun) with the driver, but not what the leader started; so every running job is
// also written down in DIR/.jobs/<session>.json (its session id, its leader's start time, this
// boot's id: enough to tell it from a later process that reuses the pid) and removed once the
// job has ended and its session is cleared. The next sweep, bisect or minimize in DIR, holding
// the DIR lock, stops whatever those files still name before it starts anything.
#ifndef GPUHARNESS_DRIVER_JOB_LEDGER_H_
#define GPUHARNESS_DRIVER_JOB_LEDGER_H_

#include <cstdio>
#include <optional>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/driver/clock.h"
#include "harness/driver/process_runner.h"

namespace gh::driver {

class JobLedger {
 public:
  explicit JobLedger(std::string dir) : dir_(std::move(dir)) {}  // DIR

  // DIR/.jobs, where the entries are.
  std::string entries_dir() const { return dir_ + "/.jobs"; }

  // Stops the processes of every job in the ledger that are still alive: SIGTERM, then SIGKILL
  // after `grace`, saying so on `console`; the entries are removed. Returns how many processes
  // it stopped. InvalidArgument naming the file and key for an entry this code did not write.
  absl::StatusOr<int> StopLeftovers(absl::Duration grace, Clock& clock, std::FILE* console);

  // Writes the entry of the job whose leader is `id` (a child of this process, in a session of
  // its own); true when written. A process that is not this process's child (a test's fake id)
  // is not recorded: false.
  absl::StatusOr<bool> Add(ProcessId id, const ProcessSpec& spec);
  void Remove(ProcessId id);

 private:
  std::string EntryPath(ProcessId id) const;
  std::string dir_;
};

// A ProcessRunner that keeps `ledger` up to date around `inner`: an entry from Start until the
// job has ended (and, with the real runner, whatever it left in its session was killed). Ids a
// fake runner made up are never recorded.
class LedgeredProcessRunner : public ProcessRunner {
 public:
  LedgeredProcessRunner(ProcessRunner& inner, JobLedger& ledger) : inner_(inner), ledger_(ledger) {}
  absl::StatusOr<ProcessId> Start(const ProcessSpec& spec) override;
  std::optional<ProcessExit> Poll(ProcessId id) override;
  void SignalGroup(ProcessId id, int signal) override { inner_.SignalGroup(id, signal); }

 private:
  ProcessRunner& inner_;
  JobLedger& ledger_;
  std::set<ProcessId> recorded_;
};

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_JOB_LEDGER_H_
