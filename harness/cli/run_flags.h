// The command line of `gpuharness run`, declared on CommandLine: RunOptions from the arguments.
#ifndef GPUHARNESS_CLI_RUN_FLAGS_H_
#define GPUHARNESS_CLI_RUN_FLAGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/cli/command_line.h"
#include "harness/runtime/run_options.h"

namespace gh {

class RunFlags {
 public:
  RunFlags();

  // Parses the arguments after "run": kHelp, or kParsed with options() filled; InvalidArgument
  // as CommandLine words it, or "missing SCENARIO.yaml", "--out DIR is required".
  absl::StatusOr<CommandLine::Result> Parse(const std::vector<std::string>& args);

  const RunOptions& options() const { return options_; }
  // -v, --verbose: the full table of every point at the end, not only the FAILED lines.
  bool verbose() const { return verbose_; }
  const CommandLine& command_line() const { return flags_; }

 private:
  RunOptions options_;
  std::string backend_ = "auto";
  bool verbose_ = false;
  CommandLine flags_;
};

}  // namespace gh

#endif  // GPUHARNESS_CLI_RUN_FLAGS_H_
