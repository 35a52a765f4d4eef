// What `gpuharness bisect` (bisect_session.cc) and `gpuharness minimize`
// (bisect_minimize_session.cc) share around their probes: checking the hunted signature, setting
// up the output directory and the probe jobs, and the repro script arms taken from the trials.
#ifndef GPUHARNESS_BISECT_BISECT_SESSION_SETUP_H_
#define GPUHARNESS_BISECT_BISECT_SESSION_SETUP_H_

#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "harness/bisect/bisect_jobs.h"
#include "harness/bisect/bisect_session.h"
#include "harness/bisect/repro_script.h"
#include "harness/driver/dir_lock.h"
#include "harness/driver/job_ledger.h"

namespace gh {

// InvalidArgument ("--hunt-signature: bad regex ...") when the hunt's signature is set and is not
// a valid regex (RE2 syntax).
absl::Status CheckHuntSignature(const HuntSpec& hunt);

// Creates `out_dir` (--out) and returns the options of the probe jobs that run there, with
// `out_dir` made absolute: jobs run in their own directories, so every path they are given is
// absolute. InvalidArgument ("--out: ...") when the directory cannot be created.
absl::StatusOr<ProbeJobOptions> SetUpProbeJobs(const std::string& out_dir, const std::string& program,
                                               const driver::PlannedJob& job, absl::Duration kill_grace,
                                               absl::Duration setup_timeout, const BisectSessionEnv& env);

// What a session holds while it runs in its DIR, as a sweep does: the DIR lock (a second
// sweep, bisect or minimize there is refused), and the job ledger, through which its jobs run.
struct ProbeDirGuard {
  driver::DirLock lock;
  driver::JobLedger ledger;
  std::unique_ptr<driver::LedgeredProcessRunner> runner;  // env.runner behind the ledger
};

// Takes DIR's lock (Unavailable when another run holds it), then stops whatever jobs an earlier
// run left running there (said on env.progress), before anything is started.
absl::StatusOr<std::unique_ptr<ProbeDirGuard>> GuardProbeDir(const ProbeJobOptions& options,
                                                             const BisectSessionEnv& env);

// The trial of `probe` that best shows its verdict: for a bad probe (`want_hunted`) the first
// hunted trial, for a good one the first passing trial; null when there is none.
const TrialResult* ShowingTrial(const ProbeRecord& probe, const Hunt& hunt, bool want_hunted);

// A repro script arm from the job.json of `trial`'s job, named and titled.
absl::StatusOr<ReproArm> ArmFromTrial(const TrialResult& trial, const std::string& name, const std::string& title);

// Prints `line` and a newline to the session's progress stream, if it has one, and flushes it.
void PrintProgress(const BisectSessionEnv& env, const std::string& line);

// The failing and the workaround arms of a repro script, from the trials that show them; the first
// error when either job.json cannot be read.
absl::StatusOr<std::pair<ReproArm, ReproArm>> ArmsFromTrials(const TrialResult& failing_trial,
                                                             const std::string& failing_title,
                                                             const TrialResult& working_trial,
                                                             const std::string& working_title);

// Writes the repro script `text` to `dir`/`name` and makes it executable.
absl::Status WriteReproScript(const std::string& dir, const std::string& name, const std::string& text);

// Writes a session's summary.md and summary.json (pretty-printed) into `dir`.
absl::Status WriteSummaries(const std::string& dir, const std::string& markdown, const nlohmann::json& json);

}  // namespace gh

#endif  // GPUHARNESS_BISECT_BISECT_SESSION_SETUP_H_
