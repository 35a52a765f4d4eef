#include "harness/bisect/bisect_session.h"

#include <sys/stat.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/core/file_util.h"
#include "harness/bisect/bisect_jobs.h"
#include "harness/bisect/bisect_plan.h"
#include "harness/bisect/bisect_session_setup.h"
#include "harness/bisect/bisect_state.h"
#include "harness/bisect/bisect_summary.h"
#include "harness/bisect/repro_script.h"

namespace gh {

namespace {

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
  if (absl::Status st = CheckHuntSignature(options.hunt); !st.ok()) return st;
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

  absl::StatusOr<ProbeJobOptions> job_options = SetUpProbeJobs(
      options.out_dir, options.program, plan->job, options.kill_grace, options.setup_timeout, env);
  if (!job_options.ok()) return job_options.status();
  const std::string out_dir = job_options->out_dir;  // absolute
  const std::string state_path = out_dir + "/bisect_state.json";
  JobTrialRunner jobs(*std::move(job_options), versions->configs, *env.runner, *env.clock);
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
