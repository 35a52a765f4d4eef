// A version's set-up command, run once per version in DIR/versions/<label>/ (its cwd and
// {version_dir}) and cached there: a success is remembered in setup.json with the command's
// hash and not run again; a failure is retried by the next sweep.
#ifndef GPUHARNESS_DRIVER_VERSION_SETUP_H_
#define GPUHARNESS_DRIVER_VERSION_SETUP_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "harness/driver/clock.h"
#include "harness/driver/process_runner.h"

namespace gh::driver {

struct VersionSetupResult {
  bool ok = true;
  bool cached = false;  // a previous sweep's success
  std::string detail;   // on failure: "setup exited with status 1: <first log line>"
};

// Runs `command` with /bin/sh -c in `version_dir` (created), log in setup.log, killing its
// process group after `timeout`. GH_VERSION and GH_VERSION_DIR are set for it.
VersionSetupResult RunVersionSetup(const std::string& version, const std::string& command,
                                   const std::string& version_dir,
                                   const std::vector<std::string>& base_env, absl::Duration timeout,
                                   ProcessRunner& runner, Clock& clock);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_VERSION_SETUP_H_
