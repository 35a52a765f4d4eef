// Native stacks for the timeout and crash records (docs/explanation/hangs.md): one thread asks another for
// its stack with a signal, the target's handler captures raw return addresses (DWARF
// unwinding through glibc's backtrace(), which crosses libraries built without frame pointers,
// such as libmpi and libc), and the asking thread symbolizes them afterwards, outside the
// handler (Abseil's symbolizer reads the binaries' symbol tables: no -rdynamic needed, a
// RelWithDebInfo or stripped-of-debug-info build is enough; a fully stripped binary shows
// addresses). Every stack is bounded: kMaxStackFrames frames, kMaxStackBytes bytes of text.
#ifndef GPUHARNESS_RUNTIME_STACK_DUMP_H_
#define GPUHARNESS_RUNTIME_STACK_DUMP_H_

#include <pthread.h>

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace gh {

inline constexpr int kMaxStackFrames = 48;
inline constexpr size_t kMaxStackBytes = 8 * 1024;
inline constexpr size_t kMaxFrameBytes = 240;

struct CapturedStack {
  std::vector<std::string> frames;  // innermost first: "PMPI_Barrier [libmpi.so.40]"
  std::string note;                 // why there are none, or how they were cut; "" otherwise
};

// Installs the stack signal's handler (once per process; later calls do nothing) and loads
// the unwinder, so that the handler never has to.
absl::Status InstallStackSampler();

// The stack of `thread` (of this process), which must not block the stack signal: waits at
// most `wait` for its handler. One capture at a time (callers serialize on a lock).
CapturedStack CaptureThreadStack(pthread_t thread, absl::Duration wait);

// Async-signal-safe: the return addresses of the interrupted code, innermost first, from
// inside a signal handler given its ucontext (frames of the handler itself and of the signal
// trampoline dropped). Returns how many were written (at most `max`).
int CaptureRawStack(void** pcs, int max, const void* ucontext);

// Symbolized frames for raw addresses ("name [module]", "0x7f.. [module]"), bounded.
CapturedStack SymbolizeStack(void* const* pcs, int depth);

// Async-signal-safe: one frame's function name (demangled) into `out`, or false.
bool SymbolizeFrameSignalSafe(const void* pc, char* out, size_t capacity);

// The short form a person reads first: the foreign call the harness code was in and the
// harness function that made it, "MPI_Barrier <- RingShift::RunSteps"; a Python child's
// innermost frame, "hang_here (hang.py:5)"; "" without frames.
std::string StackSummary(const std::vector<std::string>& frames);

// "gh::(anonymous namespace)::RingShift::Stall() const" -> "RingShift::Stall";
// "PMPI_Barrier" -> "MPI_Barrier"; "__nanosleep" -> "nanosleep".
std::string ShortFunctionName(absl::string_view function);

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_STACK_DUMP_H_
