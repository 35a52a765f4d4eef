// How `sweep`, `bisect` and `minimize` are stopped: SIGINT, SIGTERM and SIGHUP set one flag
// (nothing else happens in the handler); the loops that wait on jobs or commands poll it, stop
// their jobs (SIGTERM, then SIGKILL after the kill grace), keep what is finished and exit 3
// with kResumeHint.
#ifndef GPUHARNESS_DRIVER_STOP_SIGNALS_H_
#define GPUHARNESS_DRIVER_STOP_SIGNALS_H_

#include <atomic>

namespace gh::driver {

// The end of every "stopped" message.
inline constexpr char kResumeHint[] = "Rerun the same command to resume.";

// Installs the handlers (without SA_RESTART, so a blocking wait returns at once). Idempotent.
void InstallStopSignalHandlers();

// Set by the handlers; never cleared.
const std::atomic<bool>& StopFlag();
inline bool StopRequested() { return StopFlag().load(); }

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_STOP_SIGNALS_H_
