// The short table `gpuharness run` prints at the end: unmet expectations first.
#ifndef GPUHARNESS_REPORT_CONSOLE_TABLE_H_
#define GPUHARNESS_REPORT_CONSOLE_TABLE_H_

#include <string>
#include <vector>

#include "harness/core/record.h"

namespace gh {

// Columns: point, trial (when trials > 1), outcome, expected, a ✗ where unmet, the signature
// (truncated), and the point's headline metric (bandwidth or median time).
// The table's rows, then RenderTrialVerdicts and RenderConsoleTally.
std::string RenderConsoleTable(const std::vector<Record>& records);

// "trials, judged per point:" and a line per point run several times, judged on all its trials
// ("✗ <description> (<point>) — 4 trials, 1 failed (1 crash); expected pass by any_failure");
// "" when no point has several trials.
std::string RenderTrialVerdicts(const std::vector<Record>& records);

// The table's last line alone: "5 points: 2 pass, 1 fail, 1 error, 1 skip; 2 unmet
// expectations" (or "; all expectations met").
std::string RenderConsoleTally(const std::vector<Record>& records);

}  // namespace gh

#endif  // GPUHARNESS_REPORT_CONSOLE_TABLE_H_
