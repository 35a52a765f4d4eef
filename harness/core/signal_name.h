// The one table of signal names the harness prints ("killed by SIGSEGV", "crash on rank 1:
// SIGBUS in step 'x'").
#ifndef GPUHARNESS_CORE_SIGNAL_NAME_H_
#define GPUHARNESS_CORE_SIGNAL_NAME_H_

#include <string>

namespace gh {

// "SIGSEGV" for 11; nullptr for a signal without a name here. Async-signal-safe (crash handlers).
const char* SignalNameOrNull(int signal);

// "SIGSEGV" for 11, "signal 64" when unnamed.
std::string SignalName(int signal);

}  // namespace gh

#endif  // GPUHARNESS_CORE_SIGNAL_NAME_H_
