#include "harness/bisect/bisect_session_setup.h"

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "harness/core/file_util.h"
#include "harness/core/state_json.h"
#include "harness/core/writable_dir.h"

namespace gh {

absl::Status CheckHuntSignature(const HuntSpec& hunt) {
  if (!hunt.signature) return absl::OkStatus();
  return CompileHuntSignature(*hunt.signature).status();
}

absl::StatusOr<ProbeDir> ClaimProbeDir(const std::string& out_dir, const std::string& program,
                                       const driver::PlannedJob& job, absl::Duration kill_grace,
                                       absl::Duration setup_timeout, const driver::DriverEnv& env) {
  ProbeDir dir;
  dir.jobs.out_dir = AbsolutePath(out_dir);
  if (absl::Status st = EnsureWritableDir(dir.jobs.out_dir); !st.ok()) return st;
  dir.jobs.program = program;
  dir.jobs.job = job;
  dir.jobs.kill_grace = kill_grace;
  dir.jobs.setup_timeout = setup_timeout;
  absl::StatusOr<std::unique_ptr<driver::ResultsDirClaim>> claim =
      driver::ResultsDirClaim::Claim(dir.jobs.out_dir, kill_grace, env);
  if (!claim.ok()) return claim.status();
  dir.claim = *std::move(claim);
  return dir;
}

const TrialResult* ShowingTrial(const ProbeRecord& probe, const Hunt& hunt, bool want_hunted) {
  for (const TrialResult& trial : probe.trials) {
    Hunt::TrialClass c = hunt.Classify(trial);
    if (want_hunted ? c == Hunt::TrialClass::kHunted : c == Hunt::TrialClass::kPass) return &trial;
  }
  return nullptr;
}

absl::StatusOr<ReproArm> ArmFromTrial(const TrialResult& trial, const std::string& name, const std::string& title) {
  const std::string path = trial.detail + "/job.json";
  absl::StatusOr<nlohmann::json> job = ParseStateFile(path);
  if (!job.ok()) return job.status();
  absl::StatusOr<ReproArm> arm = ReproArmFromJobJson(StateJson(*job, path), trial.point);
  if (!arm.ok()) return arm.status();
  arm->name = name;
  arm->title = title;
  arm->observed = trial.outcome == Outcome::kPass
                      ? "pass"
                      : absl::StrCat(std::string(OutcomeName(trial.outcome)), ": ", trial.signature);
  return arm;
}

absl::StatusOr<std::pair<ReproArm, ReproArm>> ArmsFromTrials(const TrialResult& failing_trial,
                                                             const std::string& failing_title,
                                                             const TrialResult& working_trial,
                                                             const std::string& working_title) {
  absl::StatusOr<ReproArm> failing = ArmFromTrial(failing_trial, "failing", failing_title);
  absl::StatusOr<ReproArm> working = ArmFromTrial(working_trial, "workaround", working_title);
  if (!failing.ok()) return failing.status();
  if (!working.ok()) return working.status();
  return std::make_pair(*std::move(failing), *std::move(working));
}

absl::Status WriteReproScript(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  if (absl::Status st = WriteFileAtomically(path, text); !st.ok()) return st;
  ::chmod(path.c_str(), 0755);
  return absl::OkStatus();
}

absl::Status WriteSummaries(const std::string& dir, const std::string& markdown, const nlohmann::json& json) {
  if (absl::Status st = WriteFileAtomically(dir + "/summary.md", markdown); !st.ok()) return st;
  return WriteFileAtomically(dir + "/summary.json", json.dump(2) + "\n");
}

}  // namespace gh
