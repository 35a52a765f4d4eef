// The machine's process table as the driver needs it (Linux /proc): which processes belong to a
// job's session, and signalling all of them. A job is started with setsid(), so its session id
// is its leader's pid, and every process it starts stays in that session even where it takes a
// process group of its own (mpirun puts each rank in one).
#ifndef GPUHARNESS_CORE_PROCESS_TABLE_H_
#define GPUHARNESS_CORE_PROCESS_TABLE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gh {

struct ProcessStat {
  int pid = 0;
  int ppid = 0;
  int pgid = 0;
  int sid = 0;
  char state = '?';         // 'Z' for a zombie: ended, not yet reaped
  uint64_t start_ticks = 0;  // start time in clock ticks since boot: tells a reused pid apart
};

// nullopt when the process does not exist (or /proc cannot be read).
std::optional<ProcessStat> ReadProcessStat(int pid);

// Every live (non-zombie) process whose session id is `sid`, the leader included.
std::vector<ProcessStat> SessionMembers(int sid);

// Sends `signal` to the process group `sid` and to every live process of session `sid` (and
// its group). Returns how many processes were signalled.
int SignalSession(int sid, int signal);

// This boot's id (/proc/sys/kernel/random/boot_id), "" when unknown: start times of different
// boots are not comparable.
std::string BootId();

}  // namespace gh

#endif  // GPUHARNESS_CORE_PROCESS_TABLE_H_
