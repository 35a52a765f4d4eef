// What `gpuharness run` was asked to do (harness/cli/run_flags.h parses its command line).
#ifndef GPUHARNESS_RUNTIME_RUN_OPTIONS_H_
#define GPUHARNESS_RUNTIME_RUN_OPTIONS_H_

#include <string>
#include <vector>

namespace gh {

enum class BackendChoice { kAuto, kHost, kCuda };

struct RunOptions {
  std::vector<std::string> scenario_files;
  std::string out_dir;
  BackendChoice backend = BackendChoice::kAuto;
  bool share_gpu = false;
  std::string filter;  // glob on point names; empty runs every point
  // --nccl-inspector: NCCL's Inspector plugin (.so) for scenarios with `nccl_inspector: true`;
  // empty: GH_NCCL_INSPECTOR_PLUGIN (runtime/nccl_inspector.h).
  std::string nccl_inspector_plugin;
  std::string runs_file;  // --runs: only these point x trial runs (core/run_list.h); empty: all
};

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_RUN_OPTIONS_H_
