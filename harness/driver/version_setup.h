// A version's set-up command, run once per version in DIR/versions/<label>/ (its cwd and
// {version_dir}) and cached there: a success is remembered in setup.json with the command's
// hash and not run again; a failure is retried by the next sweep. While it runs it holds an
// flock on setup.lock in that directory, so two drivers never set up one version at once (the
// second waits, then finds the first one's success cached). Every failure names its log and
// quotes the log's cause line (SetupCauseLine), never a warning at its top.
#ifndef GPUHARNESS_DRIVER_VERSION_SETUP_H_
#define GPUHARNESS_DRIVER_VERSION_SETUP_H_

#include <optional>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/time/time.h"
#include "harness/driver/clock.h"
#include "harness/driver/process_runner.h"

namespace gh::driver {

struct VersionSetupResult {
  bool ok = true;
  bool cached = false;  // a previous sweep's success
  // On failure: "setup exited with status 1 (log DIR/versions/v/setup.log): ERROR: No matching ..."
  // ("provenance: asked jax 3.0, the set-up installed jax 2.0 (log ...)": what it installed is not
  // what the label names; what was checked is in the version's provenance.json).
  std::string detail;
};

struct VersionSetupRequest {
  std::string version;
  std::string command;  // /bin/sh -c
  std::string version_dir;
  std::vector<std::string> base_env;
  absl::Duration timeout = absl::Minutes(30);
};

// One set-up in flight, advanced by Poll without blocking, so a driver runs several at once
// (--setup-jobs) between its other work. GH_VERSION and GH_VERSION_DIR are set for the command;
// its process group is killed after `timeout`. A set-up that names what it asks for
// (provenance.expected) is checked against what it installed: a cached one that no longer holds
// it (a pruned or replaced venv) is stale and runs again, once; a fresh one that does not hold it
// fails ("provenance: asked jax 3.0, the set-up installed jax 2.0").
class VersionSetupJob {
 public:
  VersionSetupJob(VersionSetupRequest request, ProcessRunner& runner, Clock& clock);
  VersionSetupJob(VersionSetupJob&&) noexcept;
  VersionSetupJob& operator=(VersionSetupJob&&) noexcept;
  ~VersionSetupJob();

  // The result once the set-up is over (cached, done or failed); nullopt while it runs or
  // waits for another driver's lock on the version.
  std::optional<VersionSetupResult> Poll();
  const VersionSetupRequest& request() const { return request_; }

 private:
  std::optional<VersionSetupResult> TryStart();
  // The cached success, checked; nullopt when there is none or it is stale (then stale_ says why).
  std::optional<VersionSetupResult> Cached();
  VersionSetupResult Finish(VersionSetupResult result);

  VersionSetupRequest request_;
  ProcessRunner* runner_;
  Clock* clock_;
  absl::Time deadline_;
  int lock_fd_ = -1;
  std::optional<ProcessId> id_;
  bool timed_out_ = false;
  std::string stale_;  // why a cached set-up runs again ("" when it did not)
  std::optional<VersionSetupResult> done_;
};

// Runs a set-up to its end (VersionSetupJob polled every 50 ms).
VersionSetupResult RunVersionSetup(const std::string& version, const std::string& command,
                                   const std::string& version_dir,
                                   const std::vector<std::string>& base_env, absl::Duration timeout,
                                   ProcessRunner& runner, Clock& clock);

// The line of a set-up log that says why it failed: the last line that reads as an error
// (`ERROR:`, `error:`, `fatal:`, `SomethingError: ...`, `No such file`, `not found`, `failed`),
// else the last non-empty line; "" for an empty log. Cut to `max_chars`.
std::string SetupCauseLine(absl::string_view log, size_t max_chars = 300);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_VERSION_SETUP_H_
