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

absl::StatusOr<ProbeJobOptions> SetUpProbeJobs(const std::string& out_dir, const std::string& program,
                                               const driver::PlannedJob& job, absl::Duration kill_grace,
                                               absl::Duration setup_timeout, const BisectSessionEnv& env) {
  std::error_code ec;
  std::filesystem::path absolute_out = std::filesystem::absolute(out_dir, ec);
  ProbeJobOptions options;
  options.out_dir = ec ? out_dir : absolute_out.lexically_normal().string();
  if (absl::Status st = EnsureWritableDir(options.out_dir); !st.ok()) return st;
  options.program = program;
  options.job = job;
  options.base_env = env.base_env;
  options.resources = env.resources;
  options.kill_grace = kill_grace;
  options.setup_timeout = setup_timeout;
  options.progress = env.progress;
  options.stop = env.stop;
  return options;
}

absl::StatusOr<std::unique_ptr<ProbeDirGuard>> GuardProbeDir(const ProbeJobOptions& options,
                                                             const BisectSessionEnv& env) {
  absl::StatusOr<driver::DirLock> lock = driver::DirLock::Acquire(options.out_dir);
  if (!lock.ok()) return lock.status();
  auto guard = std::make_unique<ProbeDirGuard>(ProbeDirGuard{*std::move(lock), driver::JobLedger(options.out_dir), nullptr});
  absl::StatusOr<int> stopped = guard->ledger.StopLeftovers(options.kill_grace, *env.clock, env.progress);
  if (!stopped.ok()) return stopped.status();
  guard->runner = std::make_unique<driver::LedgeredProcessRunner>(*env.runner, guard->ledger);
  return guard;
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
  if (trial.outcome != Outcome::kPass && trial.outcome != Outcome::kSkip) arm->family = trial.family();
  return arm;
}

void PrintProgress(const BisectSessionEnv& env, const std::string& line) {
  if (!env.progress) return;
  std::fprintf(env.progress, "%s\n", line.c_str());
  std::fflush(env.progress);
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
