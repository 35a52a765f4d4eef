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

namespace gh {

// InvalidArgument ("--hunt-signature: bad regex ...") when the hunt's signature is set and is not
// a valid regex (RE2 syntax).
absl::Status CheckHuntSignature(const HuntSpec& hunt);

// A session's results DIR, held while its probes run: the probe jobs' options (`out_dir` made
// absolute: jobs run in their own directories) and the DIR's claim (its lock and job ledger).
struct ProbeDir {
  ProbeJobOptions jobs;
  std::unique_ptr<driver::ResultsDirClaim> claim;
};

// Creates `out_dir` (--out) and proves it writable (FailedPrecondition "--out DIR: not writable:
// ...", an infrastructure failure: exit 3), then claims it (ResultsDirClaim::Claim: Unavailable
// when another run holds it; an earlier run's leftovers stopped).
absl::StatusOr<ProbeDir> ClaimProbeDir(const std::string& out_dir, const std::string& program,
                                       const driver::PlannedJob& job, absl::Duration kill_grace,
                                       absl::Duration setup_timeout, const driver::DriverEnv& env);
// The same from a session's options (BisectOptions, MinimizeOptions): their --out, --program,
// --kill-grace and --setup-timeout.
template <typename Options>
absl::StatusOr<ProbeDir> ClaimProbeDir(const Options& options, const driver::PlannedJob& job,
                                       const driver::DriverEnv& env) {
  return ClaimProbeDir(options.out_dir, options.program, job, options.kill_grace, options.setup_timeout, env);
}

// The trial of `probe` that best shows its verdict: for a bad probe (`want_hunted`) the first
// hunted trial, for a good one the first passing trial; null when there is none.
const TrialResult* ShowingTrial(const ProbeRecord& probe, const Hunt& hunt, bool want_hunted);

// A repro script arm from the job.json of `trial`'s job, named and titled.
absl::StatusOr<ReproArm> ArmFromTrial(const TrialResult& trial, const std::string& name, const std::string& title);

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
