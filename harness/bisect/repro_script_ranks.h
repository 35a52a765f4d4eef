// The commands an exec job's ranks ran, read back for a repro script that runs them without
// the harness (the files scenarios/exec_command_record.h writes).
#ifndef GPUHARNESS_BISECT_REPRO_SCRIPT_RANKS_H_
#define GPUHARNESS_BISECT_REPRO_SCRIPT_RANKS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace gh {

// One exec rank's own command as it ran (scenarios/exec_command_record.h): the script runs it
// directly, with a coordinator of its own in place of `coordinator` wherever that appears.
struct ReproRank {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;  // the exec block's env, in order
  std::string workdir;
  std::string coordinator;  // the address the recorded ranks agreed on ("" for none)
  int exit_status = 0;      // what a passing command exits with
};

// The exec ranks' commands a job recorded for `point` under its output directory `out`
// (logs/**/rank<r>.log.command.json), rank order; empty when the job recorded none (another
// kind) or not every rank's. A file that is no such record is InvalidArgument naming it.
absl::StatusOr<std::vector<ReproRank>> ReadReproRanks(const std::string& out, const std::string& point);

}  // namespace gh

#endif  // GPUHARNESS_BISECT_REPRO_SCRIPT_RANKS_H_
