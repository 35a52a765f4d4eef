// The flags that say how metrics compare with a baseline's, shared by sweep and report:
// --perf-threshold PCT (default 5%) and --perf-warn-only.
#ifndef GPUHARNESS_CLI_PERF_FLAGS_H_
#define GPUHARNESS_CLI_PERF_FLAGS_H_

#include <optional>
#include <string>

#include "harness/cli/command_line.h"
#include "harness/core/perf_comparison.h"

namespace gh {

struct PerfFlags {
  std::string threshold;  // as given; "" for the default
  bool warn_only = false;
  void Add(CommandLine& flags);
  // Fills `options` after Parse; a bad threshold is reported (BadArgument) and its exit status
  // returned.
  std::optional<int> Apply(const CommandLine& flags, PerfOptions& options) const;
};

}  // namespace gh

#endif  // GPUHARNESS_CLI_PERF_FLAGS_H_
