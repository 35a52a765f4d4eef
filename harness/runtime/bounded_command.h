// Runs a helper program (addr2line, py-spy, nvidia-smi) to read its standard output, within a time
// bound, through the one process seam (core/child_process.h): the hang report must not wait on a
// tool that hangs itself.
#ifndef GPUHARNESS_RUNTIME_BOUNDED_COMMAND_H_
#define GPUHARNESS_RUNTIME_BOUNDED_COMMAND_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace gh {

// Runs argv (argv[0] looked up in PATH; its stderr is dropped) and returns its standard output.
// Errors: "cannot run 'NAME': <why>", "NAME gave no answer within 2s" (it is killed), "NAME
// failed" (a nonzero exit or a signal); NAME is argv[0].
absl::StatusOr<std::string> RunBoundedCommand(const std::vector<std::string>& argv,
                                              absl::Duration bound);

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_BOUNDED_COMMAND_H_
