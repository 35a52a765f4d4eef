#include "harness/driver/bisect_session.h"

#include <sys/stat.h>

#include <filesystem>
#include <regex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/core/file_util.h"
#include "harness/driver/bisect_jobs.h"
#include "harness/driver/bisect_plan.h"
#include "harness/driver/bisect_state.h"
#include "harness/driver/bisect_summary.h"
#include "harness/driver/repro_script.h"

namespace gh {

namespace {

// The trial of `probe` that best shows its verdict: for a bad probe the first hunted trial,
// for a good one the first passing trial.
const TrialResult* ShowingTrial(const ProbeRecord& probe, const Hunt& hunt, bool want_hunted) {
  for (const TrialResult& trial : probe.trials) {
    Hunt::TrialClass c = hunt.Classify(trial);
    if (want_hunted ? c == Hunt::TrialClass::kHunted : c == Hunt::TrialClass::kPass) return &trial;
  }
  return nullptr;
}

absl::StatusOr<ReproArm> ArmFromTrial(const TrialResult& trial, const std::string& name,
                                      const std::string& title) {
  const std::string path = trial.detail + "/job.json";
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return text.status();
  nlohmann::json job = nlohmann::json::parse(*text, nullptr, false);
  if (job.is_discarded()) return absl::DataLossError(absl::StrCat(path, ": not valid JSON"));
  absl::StatusOr<ReproArm> arm = ReproArmFromJobJson(job, path);
  if (!arm.ok()) return arm.status();
  arm->name = name;
  arm->title = title;
  arm->observed = trial.outcome == Outcome::kPass
                      ? "pass"
                      : absl::StrCat(std::string(OutcomeName(trial.outcome)), ": ", trial.signature);
  return arm;
}

const ProbeRecord* FindProbe(const BisectResult& result, int version) {
  for (const ProbeRecord& p : result.probes) {
    if (p.version == version) return &p;
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<BisectSessionResult> RunBisectSession(const BisectOptions& options, BisectSessionEnv& env) {
  if (options.out_dir.empty()) return absl::InvalidArgumentError("--out: missing the output directory");
  if (options.good.empty()) return absl::InvalidArgumentError("--good: missing the known good version");
  if (options.bad.empty()) return absl::InvalidArgumentError("--bad: missing the known bad version");
  if (options.hunt.signature) {
    try {
      std::regex check(*options.hunt.signature, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return absl::InvalidArgumentError(
          absl::StrCat("--hunt-signature: bad regex '", *options.hunt.signature, "': ", e.what()));
    }
  }
  // Everything is checked before anything is written.
  absl::StatusOr<LabelSet> cell = ParseLabelSet(options.cell, "--cell");
  if (!cell.ok()) return cell.status();
  absl::StatusOr<ProbePlan> plan = PlanProbes({options.matrix_path, options.scenario_path, options.points});
  if (!plan.ok()) return plan.status();
  absl::StatusOr<BisectVersions> versions = PlanBisectVersions(*plan, *cell);
  if (!versions.ok()) return versions.status();
  BisectConfig config;
  for (const ProbeConfig& c : versions->configs) config.versions.push_back(c.label);
  absl::StatusOr<int> good = FindVersion(*versions, options.good, "--good");
  if (!good.ok()) return good.status();
  absl::StatusOr<int> bad = FindVersion(*versions, options.bad, "--bad");
  if (!bad.ok()) return bad.status();
  config.good = *good;
  config.bad = *bad;
  config.jobs = options.jobs;
  config.hunt = options.hunt;
  config.sprt = options.sprt;
  if (absl::Status st = ValidateBisectConfig(config); !st.ok()) return st;
  absl::StatusOr<ProbeCache> cache = ProbeCache::Load(options.out_dir + "/bisect_state.json");
  if (!cache.ok()) return cache.status();

  // Jobs run in their own directories: every path they are given is absolute.
  std::error_code ec;
  std::filesystem::path absolute_out = std::filesystem::absolute(options.out_dir, ec);
  const std::string out_dir = ec ? options.out_dir : absolute_out.lexically_normal().string();
  if (absl::Status st = MakeDirectories(out_dir); !st.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--out: ", st.message()));
  }
  ProbeJobOptions job_options;
  job_options.out_dir = out_dir;
  const std::string state_path = out_dir + "/bisect_state.json";
  job_options.program = options.program;
  job_options.job = plan->job;
  job_options.base_env = env.base_env;
  job_options.resources = env.resources;
  job_options.kill_grace = options.kill_grace;
  job_options.setup_timeout = options.setup_timeout;
  job_options.progress = env.progress;
  JobTrialRunner jobs(job_options, versions->configs, *env.runner, *env.clock);
  CachingTrialRunner caching(jobs, *cache, config.versions, versions->settings, state_path);
  if (env.progress) {
    std::fprintf(env.progress, "bisect %s over %s: %zu versions, good %s, bad %s, up to %d at once\n",
                 options.matrix_path.c_str(), versions->axis.c_str(), config.versions.size(),
                 options.good.c_str(), options.bad.c_str(), config.jobs);
    std::fflush(env.progress);
  }
  absl::StatusOr<BisectResult> result = RunBisect(config, caching, [&](const ProbeRecord& p) {
    if (!env.progress) return;
    std::fprintf(env.progress, "[%s] %s: %s%s (%s)\n",
                 p.round == 0 ? "ends" : absl::StrCat("round ", p.round).c_str(), p.label.c_str(),
                 std::string(ProbeVerdictName(p.tally.verdict)).c_str(), p.tally.truncated ? " at the cap" : "",
                 ProbeCell(p).c_str());
    std::fflush(env.progress);
  });
  if (!result.ok()) return result.status();

  BisectSessionResult out;
  out.result = *std::move(result);
  out.cached_trials = caching.hits();
  out.exit_status = out.result.status == BisectStatus::kFound ? 0 : 1;

  BisectContext context;
  context.matrix = options.matrix_path;
  std::vector<std::string> files;
  for (const driver::JobScenarioFile& f : plan->job.files) files.push_back(f.path);
  context.scenario = absl::StrJoin(files, " ");
  context.points = plan->job.filter;
  context.cell = FormatLabelSet(*cell);
  context.version_axis = versions->axis;
  context.excluded = versions->excluded;

  // Repro scripts: the first bad version as the failing arm, the last good as the workaround.
  if (out.result.status == BisectStatus::kFound) {
    absl::StatusOr<Hunt> hunt = Hunt::Create(out.result.hunt_outcome, out.result.hunt_signature,
                                             config.hunt.other_as_bad);
    const ProbeRecord* bad_probe = FindProbe(out.result, out.result.answer.first_bad);
    const ProbeRecord* good_probe = FindProbe(out.result, out.result.answer.last_good);
    const TrialResult* bad_trial = hunt.ok() && bad_probe ? ShowingTrial(*bad_probe, *hunt, true) : nullptr;
    const TrialResult* good_trial = hunt.ok() && good_probe ? ShowingTrial(*good_probe, *hunt, false) : nullptr;
    if (bad_trial && good_trial) {
      const std::string axis = versions->axis;
      absl::StatusOr<ReproArm> failing =
          ArmFromTrial(*bad_trial, "failing", absl::StrCat(axis, "=", bad_probe->label, " (first bad)"));
      absl::StatusOr<ReproArm> working =
          ArmFromTrial(*good_trial, "workaround", absl::StrCat(axis, "=", good_probe->label, " (last good)"));
      if (failing.ok() && working.ok()) {
        const std::string source = absl::StrCat("the bisect in ", out_dir);
        const std::string point = bad_trial->point;
        std::string both = RenderReproScript(point, source, *failing, *working);
        std::string last_good = RenderReproScript(point, source, *working, std::nullopt,
                                                  /*failing_expected=*/false);
        for (const auto& [name, text] : {std::pair<std::string, std::string>{"repro_first_bad.sh", both},
                                         {"repro_last_good.sh", last_good}}) {
          if (absl::Status st = WriteFileAtomically(options.out_dir + "/" + name, text); !st.ok()) return st;
          ::chmod((options.out_dir + "/" + name).c_str(), 0755);
          context.repro_scripts.push_back(name);
          out.written.push_back(name);
        }
      } else if (env.progress) {
        std::fprintf(env.progress, "no repro script: %s\n",
                     std::string((failing.ok() ? working.status() : failing.status()).message()).c_str());
      }
    }
  }
  if (absl::Status st = WriteFileAtomically(options.out_dir + "/summary.md",
                                            RenderBisectMarkdown(config, out.result, context));
      !st.ok()) {
    return st;
  }
  if (absl::Status st = WriteFileAtomically(options.out_dir + "/summary.json",
                                            BisectSummaryJson(config, out.result, context).dump(2) + "\n");
      !st.ok()) {
    return st;
  }
  out.written.insert(out.written.begin(), {"summary.md", "summary.json", "bisect_state.json"});
  const BisectResult& r = out.result;
  if (r.status == BisectStatus::kFound) {
    out.headline = absl::StrCat("first bad: ", config.versions[r.answer.first_bad],
                                ", last good: ", config.versions[r.answer.last_good]);
    if (!r.answer.unclassified.empty()) {
      std::vector<std::string> labels;
      for (int i : r.answer.unclassified) labels.push_back(config.versions[i]);
      absl::StrAppend(&out.headline, ", unclassified between: ", absl::StrJoin(labels, ", "));
    }
  } else {
    out.headline = absl::StrCat("no answer: ", r.message);
  }
  absl::StrAppend(&out.headline, "; ", r.probes.size(), " probes, ", r.total_trials, " trials (",
                  out.cached_trials, " from the state file); see ", options.out_dir, "/summary.md");
  return out;
}

}  // namespace gh
