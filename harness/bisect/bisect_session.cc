#include "harness/bisect/bisect_session.h"

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

// What a bisect needs before its first probe, all checked before anything is written.
struct BisectInputs {
  LabelSet cell;
  ProbePlan plan;
  BisectVersions versions;
  BisectConfig config;
  ProbeCache cache;
};

absl::StatusOr<BisectInputs> PrepareBisect(const BisectOptions& options) {
  if (options.out_dir.empty()) return absl::InvalidArgumentError("--out: missing the output directory");
  if (options.good.empty()) return absl::InvalidArgumentError("--good: missing the known good version");
  if (options.bad.empty()) return absl::InvalidArgumentError("--bad: missing the known bad version");
  if (absl::Status st = CheckHuntSignature(options.hunt); !st.ok()) return st;
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
  config.find = options.find;
  config.estimate_trials = options.estimate_trials;
  if (absl::Status st = ValidateBisectConfig(config); !st.ok()) return st;
  absl::StatusOr<ProbeCache> cache = ProbeCache::Load(options.out_dir + "/bisect_state.json");
  if (!cache.ok()) return cache.status();
  return BisectInputs{*std::move(cell), *std::move(plan), *std::move(versions), std::move(config),
                      *std::move(cache)};
}

// The progress line of one finished probe.
std::string ProbeLine(const ProbeRecord& p) {
  return absl::StrCat("[", p.round == 0 ? "ends" : absl::StrCat("round ", p.round), "] ", p.label, ": ",
                      std::string(ProbeVerdictName(p.tally.verdict)), p.tally.truncated ? " at the cap" : "", " (",
                      ProbeCell(p), ")");
}

BisectContext MakeContext(const BisectOptions& options, const BisectInputs& in) {
  BisectContext context;
  context.matrix = options.matrix_path;
  std::vector<std::string> files;
  for (const driver::JobScenarioFile& f : in.plan.job.files) files.push_back(f.path);
  context.scenario = absl::StrJoin(files, " ");
  context.points = in.plan.job.filter;
  context.cell = FormatLabelSet(in.cell);
  context.version_axis = in.versions.axis;
  context.excluded = in.versions.excluded;
  return context;
}

// Repro scripts: the first bad version as the failing arm, the last good as the workaround. Only a
// write failure is an error; arms that cannot be read leave no script (said on progress).
absl::Status WriteBisectRepros(const BisectOptions& options, const BisectInputs& in, const std::string& out_dir,
                               const BisectSessionEnv& env, BisectSessionResult& out,
                               BisectContext& context) {
  if (out.result.status != BisectStatus::kFound) return absl::OkStatus();
  absl::StatusOr<Hunt> hunt =
      Hunt::Create(out.result.hunt_outcome, out.result.hunt_signature, in.config.hunt.other_as_bad);
  const ProbeRecord* bad_probe = FindProbe(out.result, out.result.answer.first_bad);
  const ProbeRecord* good_probe = FindProbe(out.result, out.result.answer.last_good);
  const TrialResult* bad_trial = hunt.ok() && bad_probe ? ShowingTrial(*bad_probe, *hunt, true) : nullptr;
  const TrialResult* good_trial = hunt.ok() && good_probe ? ShowingTrial(*good_probe, *hunt, false) : nullptr;
  if (!bad_trial || !good_trial) return absl::OkStatus();
  const std::string& axis = in.versions.axis;
  const bool fix = out.result.find == BisectFind::kFix;
  absl::StatusOr<std::pair<ReproArm, ReproArm>> arms = ArmsFromTrials(
      *bad_trial, absl::StrCat(axis, "=", bad_probe->label, fix ? " (last bad)" : " (first bad)"), *good_trial,
      absl::StrCat(axis, "=", good_probe->label, fix ? " (first good, the fix)" : " (last good)"));
  if (!arms.ok()) {
    PrintProgress(env, absl::StrCat("no repro script: ", arms.status().message()));
    return absl::OkStatus();
  }
  auto& [failing, working] = *arms;
  SetSeenFailing(failing, bad_probe->tally);
  SetSeenFailing(working, good_probe->tally);
  const std::string source = absl::StrCat("the bisect in ", out_dir);
  const std::string point = bad_trial->point;
  std::string both = RenderReproScript(point, source, failing, working);
  std::string last_good = RenderReproScript(point, source, working, std::nullopt, /*failing_expected=*/false);
  for (const auto& [name, text] : {std::pair<std::string, std::string>{"repro_first_bad.sh", both},
                                   {"repro_last_good.sh", last_good}}) {
    if (absl::Status st = WriteReproScript(options.out_dir, name, text); !st.ok()) return st;
    context.repro_scripts.push_back(name);
    out.written.push_back(name);
  }
  return absl::OkStatus();
}

std::string BisectHeadline(const BisectOptions& options, const BisectConfig& config, const BisectSessionResult& out) {
  const BisectResult& r = out.result;
  std::string headline;
  if (r.status == BisectStatus::kFound && r.find == BisectFind::kFix) {
    headline = absl::StrCat("first good (the fix): ", config.versions[r.answer.last_good],
                            ", last bad: ", config.versions[r.answer.first_bad]);
  } else if (r.status == BisectStatus::kFound) {
    headline = absl::StrCat("first bad: ", config.versions[r.answer.first_bad],
                            ", last good: ", config.versions[r.answer.last_good]);
  }
  if (r.status == BisectStatus::kFound) {
    if (!r.answer.unclassified.empty()) {
      std::vector<std::string> labels;
      for (int i : r.answer.unclassified) labels.push_back(config.versions[i]);
      absl::StrAppend(&headline, ", unclassified between: ", absl::StrJoin(labels, ", "));
    }
  } else {
    headline = absl::StrCat("no answer: ", r.message);
  }
  absl::StrAppend(&headline, "; ", r.probes.size(), " probes, ", r.total_trials, " trials (", out.cached_trials,
                  " from the state file); see ", options.out_dir, "/summary.md");
  return headline;
}

}  // namespace

absl::StatusOr<BisectSessionResult> RunBisectSession(const BisectOptions& options, BisectSessionEnv& env) {
  absl::StatusOr<BisectInputs> in = PrepareBisect(options);
  if (!in.ok()) return in.status();
  const BisectConfig& config = in->config;
  absl::StatusOr<ProbeJobOptions> job_options = SetUpProbeJobs(
      options.out_dir, options.program, in->plan.job, options.kill_grace, options.setup_timeout, env);
  if (!job_options.ok()) return job_options.status();
  absl::StatusOr<std::unique_ptr<ProbeDirGuard>> guard = GuardProbeDir(*job_options, env);
  if (!guard.ok()) return guard.status();
  const std::string out_dir = job_options->out_dir;  // absolute
  const std::string state_path = out_dir + "/bisect_state.json";
  JobTrialRunner jobs(*std::move(job_options), in->versions.configs, *(*guard)->runner, *env.clock);
  std::optional<PerfTrialRunner> perf;
  if (options.perf.has_value()) perf.emplace(jobs, *options.perf, config.good, config.bad);
  TrialRunner& measured = perf.has_value() ? static_cast<TrialRunner&>(*perf) : jobs;
  CachingTrialRunner caching(measured, in->cache, config.versions, in->versions.settings, state_path);
  PrintProgress(env, absl::StrCat("bisect ", options.matrix_path, " over ", in->versions.axis, ": ",
                                  config.versions.size(), " versions, good ", options.good, ", bad ", options.bad,
                                  ", up to ", config.jobs, " at once"));
  absl::StatusOr<BisectResult> result =
      RunBisect(config, caching, [&](const ProbeRecord& p) { PrintProgress(env, ProbeLine(p)); });
  if (!result.ok()) return result.status();

  BisectSessionResult out;
  out.result = *std::move(result);
  out.cached_trials = caching.hits();
  out.exit_status = out.result.status == BisectStatus::kFound ? 0 : 1;
  BisectContext context = MakeContext(options, *in);
  context.out_dir = out_dir;
  if (absl::Status st = WriteBisectRepros(options, *in, out_dir, env, out, context); !st.ok()) return st;
  if (absl::Status st = WriteSummaries(options.out_dir, RenderBisectMarkdown(config, out.result, context),
                                       BisectSummaryJson(config, out.result, context));
      !st.ok()) {
    return st;
  }
  out.written.insert(out.written.begin(), {"summary.md", "summary.json", "bisect_state.json"});
  out.headline = BisectHeadline(options, config, out);
  absl::StatusOr<Hunt> hunt = Hunt::Create(out.result.hunt_outcome, out.result.hunt_signature, config.hunt.other_as_bad);
  out.failures = ProbeFailureLines(out.result.probes, in->versions.axis,
                                   hunt.ok() && !out.result.hunt.empty() ? &*hunt : nullptr);
  return out;
}

}  // namespace gh
