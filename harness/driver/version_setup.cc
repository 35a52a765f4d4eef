#include "harness/driver/version_setup.h"

#include <signal.h>

#include "absl/strings/str_cat.h"
#include "harness/core/file_util.h"
#include "harness/core/state_json.h"
#include "harness/driver/cell_plan.h"
#include "harness/driver/cell_records.h"
#include "harness/core/duration_text.h"
#include "nlohmann/json.hpp"

namespace gh::driver {

VersionSetupResult RunVersionSetup(const std::string& version, const std::string& command,
                                   const std::string& version_dir,
                                   const std::vector<std::string>& base_env, absl::Duration timeout,
                                   ProcessRunner& runner, Clock& clock) {
  VersionSetupResult result;
  std::string state_path = version_dir + "/setup.json";
  std::string hash = StableHash(command);
  // A cache only: a setup.json that is missing, malformed or of another command means run the
  // set-up again (which rewrites it), never a throw.
  if (absl::StatusOr<nlohmann::json> j = ParseStateFile(state_path); j.ok()) {
    const StateJson state(*j, state_path);
    absl::StatusOr<bool> ok = state.BoolOr("ok", false);
    absl::StatusOr<std::string> cached_hash = state.StringOr("command_hash", "");
    if (ok.ok() && *ok && cached_hash.ok() && *cached_hash == hash) {
      result.cached = true;
      return result;
    }
  }
  absl::Status st = MakeDirectories(version_dir);
  if (!st.ok()) return {false, false, absl::StrCat("cannot create ", version_dir, ": ", st.message())};
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", command};
  spec.env = base_env;
  spec.env.push_back(absl::StrCat("GH_VERSION=", version));
  spec.env.push_back(absl::StrCat("GH_VERSION_DIR=", version_dir));
  spec.cwd = version_dir;
  spec.log_path = version_dir + "/setup.log";
  absl::StatusOr<ProcessId> id = runner.Start(spec);
  if (!id.ok()) return {false, false, absl::StrCat("setup could not start: ", id.status().message())};
  absl::Time deadline = clock.Now() + timeout;
  std::optional<ProcessExit> exit;
  bool timed_out = false;
  while (!(exit = runner.Poll(*id))) {
    if (!timed_out && clock.Now() >= deadline) {
      timed_out = true;
      runner.SignalGroup(*id, SIGKILL);
    }
    clock.SleepFor(absl::Milliseconds(50));
  }
  if (timed_out) {
    result.ok = false;
    result.detail = absl::StrCat("setup timed out after ", FormatDurationText(timeout));
  } else if (exit->signaled || exit->code != 0) {
    result.ok = false;
    std::string first = FirstLineOf(spec.log_path);
    result.detail = absl::StrCat("setup ", exit->ToString(), first.empty() ? "" : ": ", first);
  }
  nlohmann::json j = {{"version", version}, {"command", command}, {"command_hash", hash},
                      {"ok", result.ok}, {"detail", result.detail}};
  st = WriteFileAtomically(state_path, j.dump(2) + "\n");
  if (!st.ok() && result.ok) {
    result.ok = false;
    result.detail = absl::StrCat("cannot record the setup: ", st.message());
  }
  return result;
}

}  // namespace gh::driver
