// Runs a matrix's `versions.list.command` (a shell string the user wrote) and returns what it
// printed, within bounds: a time limit (`versions.list.timeout`), an output cap read
// incrementally (memory stays bounded however much it prints), and a stop request (SIGINT/
// SIGTERM to the driver) ends it at once. The command runs in a session of its own, dies with
// the driver, and is killed with everything it started when it is stopped.
#ifndef GPUHARNESS_DRIVER_VERSION_LIST_COMMAND_H_
#define GPUHARNESS_DRIVER_VERSION_LIST_COMMAND_H_

#include <atomic>
#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace gh::driver {

struct VersionListCommand {
  std::string command;  // run with /bin/sh -c
  std::string cwd;      // the matrix's directory
  absl::Duration timeout = absl::Seconds(60);
  size_t max_bytes = size_t{1} << 20;  // of output
  size_t max_lines = 10000;            // non-empty lines: version labels
  const std::atomic<bool>* stop = nullptr;  // null: the driver's StopFlag()
};

inline constexpr absl::Duration kDefaultListTimeout = absl::Seconds(60);

// Its stdout. FailedPrecondition (the matrix reports it at `versions.list.command`): a non-zero
// exit ("`CMD` exited with status 1"), the time limit ("`CMD` did not finish within 60s"), the
// cap ("`CMD` printed more than 1048576 bytes"). Cancelled when stopped; Internal when it cannot
// be started.
absl::StatusOr<std::string> RunVersionListCommand(const VersionListCommand& request);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_VERSION_LIST_COMMAND_H_
