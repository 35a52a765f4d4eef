// What a timeout record says about the hang (docs/explanation/hangs.md), from the watchdogs' reports:
// one line per group of ranks stopped at the same place, and where their operation histories
// part, Flight-Recorder style.
#ifndef GPUHARNESS_RUNTIME_HANG_REPORT_H_
#define GPUHARNESS_RUNTIME_HANG_REPORT_H_

#include <string>
#include <vector>

#include "harness/runtime/watchdog.h"

namespace gh {

// "ranks 0,2,3: MPI_Barrier <- RingShift::RunSteps (step exchange)", in rank order of each
// group's first rank; a rank without a stack: "rank 3: no stack (<why>) (step unresponsive)".
std::vector<std::string> HangSummaryLines(const std::vector<WatchdogReport>& reports);

// Where the ranks diverged:
//   - some ranks behind the others: "rank 2 is in exchange #17 (send/recv 4 KiB), ranks 0,1,3
//     finished #17 and wait in verify #17" (an operation's call and size where its step named
//     them: PointContext::SetStep);
//   - all at the same operation, told apart by their stacks: "rank 1 is in exchange #1
//     outside any communication call (nanosleep <- RingShift::Stall); ranks 0,2,3 are in
//     exchange #1 waiting in MPI_Barrier";
//   - nothing tells them apart: "every rank is in exchange #1 (MPI_Barrier): no rank is
//     behind the others".
// Ranks that left no operations are named last ("rank 3 left no record of its operations").
std::string DivergenceLine(const std::vector<WatchdogReport>& reports);

// A communication call a waiting rank sits in: MPI, NCCL, CUDA synchronization (and the
// runtime's own stream wait, CudaResources::Synchronize).
bool IsCommunicationWait(const std::string& summary);

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_HANG_REPORT_H_
