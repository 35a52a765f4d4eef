// The command line of `gpuharness run`.
#ifndef GPUHARNESS_RUNTIME_RUN_OPTIONS_H_
#define GPUHARNESS_RUNTIME_RUN_OPTIONS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace gh {

enum class BackendChoice { kAuto, kHost, kCuda };

struct RunOptions {
  std::vector<std::string> scenario_files;
  std::string out_dir;
  BackendChoice backend = BackendChoice::kAuto;
  bool share_gpu = false;
  std::string filter;  // glob on point names; empty runs every point
  std::string runs_file;  // --runs: only these point x trial runs (core/run_list.h); empty: all
  bool help = false;   // --help: print RunUsage() and exit 0
};

// `args` excludes the program and subcommand names. Flags take their value as the next
// argument or after '=' (--out=DIR). InvalidArgument names the flag.
absl::StatusOr<RunOptions> ParseRunOptions(const std::vector<std::string>& args);

const char* RunUsage();

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_RUN_OPTIONS_H_
