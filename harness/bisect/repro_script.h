// Standalone repro scripts: one recorded point re-run without the driver, with the exact
// launcher command, environment and version activation of the job that recorded it, as a
// failing arm and, when a passing configuration is known, a workaround arm (seed 000's shape).
#ifndef GPUHARNESS_BISECT_REPRO_SCRIPT_H_
#define GPUHARNESS_BISECT_REPRO_SCRIPT_H_

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/bisect/repro_script_ranks.h"
#include "harness/core/failure_family.h"
#include "harness/core/state_json.h"

namespace gh {

struct ReproArm {
  std::string name;      // "failing", "workaround": the arm's output folder under $OUT
  std::string title;     // "nccl=2.28.9", "with NCCL_CUMEM_ENABLE=0"
  std::string observed;  // what the recorded job showed: "fail: wrong data [ranks 1]"
  // The recorded failure's family (a failing arm): a run that fails otherwise did not reproduce it.
  std::optional<FailureFamily> family;
  std::vector<std::string> argv;            // the job's command line as recorded
  // The variables the configuration set, and beside them those the job recorded in force
  // (its environment.json; core/fingerprint.h IsReproducedEnvVar).
  std::map<std::string, std::string> env;
  std::string cwd;
  std::string version;      // "" without a version axis
  std::string version_dir;  // where the version's set-up ran
  std::string setup;        // its set-up command ("" for none)
  std::string out;          // the job's output directory ("" when not recorded)
  // Exec: each rank's own command, rank order; empty: the arm runs the recorded gpuharness job.
  std::vector<ReproRank> ranks;
  // How often the bisect saw this arm's version fail: `seen_failed` of `seen_trials` (0 trials:
  // not known).
  int seen_failed = 0, seen_trials = 0;
};



// An arm from a recorded job: a bisect/minimize probe's job.json or one entry of a sweep cell's
// cell.json "jobs" (argv, env, and optionally cwd, version, version_dir, setup), read strictly:
// InvalidArgument naming the file and the key for a wrong type or an env name that is no
// environment variable name (core/name_rules).
// With `point`, an exec job's rank commands for it are read too (ReadReproRanks of "out").
absl::StatusOr<ReproArm> ReproArmFromJobJson(const StateJson& job, const std::string& point = "");

// The argv with the `gpuharness run` job pointed at `out` (the element after --out) and run
// for `point` only (--filter replaced, or added after --out's value when absent; --runs dropped).
std::vector<std::string> RetargetRunArgs(const std::vector<std::string>& argv, const std::string& out,
                                         const std::string& point);

// The script: every user string in it (point, paths, labels, titles, signatures, argv, env)
// goes through core/shell_quote, so none can run a command or end a comment. A header naming the point, where it was recorded and what each arm showed; a
// set-up step per version (run again whenever the version's directory lacks its set-up's record or a
// path its activation uses); each arm in a subshell with its
// environment exported and its command exec'd, writing under $OUT (GH_REPRO_OUT or a mktemp
// dir); at the end the arms' exit statuses and whether the failure reproduced (exit 0 when
// the failing arm failed as recorded, of the arm's `family`, and the workaround arm, if any, passed;
// 1 otherwise, "not reproduced: failed differently: <line>" when every failure was of another family).
// The arms are named "failing" and "workaround" in the script whatever their `name`.
// An arm with `ranks` starts each rank's own command in the background (its output in
// $OUT/<arm>/rank<r>.log, the coordinator 127.0.0.1 at a free port), waits for all, and prints
// the last lines of every rank that did not exit as a passing command does.
// `--repeat N` runs each arm N times and prints how often it failed beside how often the
// bisect saw it fail; `--arm failing|workaround|passing` runs that arm alone and exits 1 when
// any of its runs failed, else 0.
// A script of one arm that is expected to pass (a last good version's) says so with
// `failing_expected = false`: it then exits 0 when that arm passes.
std::string RenderReproScript(const std::string& point, const std::string& source,
                              const ReproArm& failing, const std::optional<ReproArm>& workaround,
                              bool failing_expected = true);

}  // namespace gh

#endif  // GPUHARNESS_BISECT_REPRO_SCRIPT_H_
