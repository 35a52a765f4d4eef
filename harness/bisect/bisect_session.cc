#include "harness/bisect/bisect_session.h"

#include <algorithm>
#include <filesystem>
#include <functional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "harness/core/exit_codes.h"
#include "harness/core/file_util.h"
#include "harness/core/path_under.h"
#include "harness/core/writable_dir.h"
#include "harness/driver/version_list_command.h"
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
  BisectVersions versions = {};
  BisectConfig config = {};
  ProbeCache cache = {};
  std::optional<RefineSpec> refine = {};  // --refine: the finer axis
  std::optional<ParamVersions> param = {};  // --param: the values' scenario (versions holds the configs)
};

// --param: the values of one parameter in one cell stand for the versions.
absl::Status PrepareParamSearch(const BisectOptions& options, BisectInputs& in) {
  if (options.refine) {
    return absl::InvalidArgumentError("--refine: refines a version axis; a --param search stays within one version");
  }
  absl::StatusOr<ParamVersions> values = PlanParamVersions(in.plan, in.cell, *options.param);
  if (!values.ok()) return values.status();
  in.versions = std::move(values->versions);
  in.config.good = values->good;
  in.config.bad = values->bad;
  in.param = *std::move(values);
  return absl::OkStatus();
}

absl::StatusOr<BisectInputs> PrepareBisect(const BisectOptions& options) {
  if (options.out_dir.empty()) return absl::InvalidArgumentError("--out: missing the output directory");
  if (options.good.empty()) return absl::InvalidArgumentError("--good: missing the known good version");
  if (options.bad.empty()) return absl::InvalidArgumentError("--bad: missing the known bad version");
  if (absl::Status st = CheckHuntSignature(options.hunt); !st.ok()) return st;
  absl::StatusOr<LabelSet> cell = ParseLabelSet(options.cell, "--cell");
  if (!cell.ok()) return cell.status();
  absl::StatusOr<ProbePlan> plan = PlanProbes({options.matrix_path, options.scenario_path, options.points,
                                                 /*scenario_may_stand_for_matrix=*/options.param.has_value()});
  if (!plan.ok()) return plan.status();
  BisectInputs in{*std::move(cell), *std::move(plan)};
  if (options.param.has_value()) {
    if (absl::Status st = PrepareParamSearch(options, in); !st.ok()) return st;
  } else {
    absl::StatusOr<BisectVersions> versions = PlanBisectVersions(in.plan, in.cell);
    if (!versions.ok()) return versions.status();
    in.versions = *std::move(versions);
    absl::StatusOr<int> good = FindVersion(in.versions, options.good, "--good");
    if (!good.ok()) return good.status();
    absl::StatusOr<int> bad = FindVersion(in.versions, options.bad, "--bad");
    if (!bad.ok()) return bad.status();
    in.config.good = *good;
    in.config.bad = *bad;
  }
  BisectConfig& config = in.config;
  for (const ProbeConfig& c : in.versions.configs) config.versions.push_back(c.label);
  config.jobs = options.jobs;
  config.hunt = options.hunt;
  config.sprt = options.sprt;
  config.find = options.find;
  config.estimate_trials = options.estimate_trials;
  if (absl::Status st = ValidateBisectConfig(config); !st.ok()) return st;
  if (options.refine) {
    absl::StatusOr<RefineSpec> spec = ReadRefineSpec(in.plan.sweep.matrix);
    if (!spec.ok()) return spec.status();
    if (absl::Status st = CheckRefineSpec(*spec, options.good, options.bad); !st.ok()) return st;
    in.refine = *std::move(spec);
  }
  // DIR holds the state file: an unwritable one is said as such (exit 3), before it is read.
  if (absl::Status st = EnsureWritableDir(AbsolutePath(options.out_dir)); !st.ok()) return st;
  absl::StatusOr<ProbeCache> cache = ProbeCache::Load(options.out_dir + "/bisect_state.json");
  if (!cache.ok()) return cache.status();
  in.cache = *std::move(cache);
  return in;
}

// 0 found; 3 when an end could not run at all (its set-up failed, or every attempt of its trials
// ended infra): that is no verdict on the code; 1 when an end is not what it was said to be.
int BisectExitStatus(const BisectResult& result) {
  if (result.status == BisectStatus::kFound) return 0;
  for (const ProbeRecord& p : result.probes) {
    if (p.round != 0 || p.trials.empty()) continue;
    bool unrunnable = true;
    for (const TrialResult& t : p.trials) unrunnable = unrunnable && t.unrunnable();
    if (unrunnable) return kExitInfrastructure;
  }
  return 1;
}

// The progress line of one finished probe.
std::string ProbeLine(const ProbeRecord& p) {
  return absl::StrCat("[", p.round == 0 ? "ends" : absl::StrCat("round ", p.round), "] ", p.label, ": ",
                      std::string(ProbeVerdictName(p.tally.verdict)), p.tally.truncated ? " at the cap" : "", " (",
                      ProbeCell(p), ")");
}

// One level of a bisect: its versions and test, and the directory its reports go to.
struct Level {
  const BisectVersions* versions = nullptr;
  BisectConfig config;
  std::string report_dir;  // absolute: DIR, or DIR/refine for the finer level
  std::function<absl::Status(int)> prepare = {};  // --param: makes a value runnable before its first trial
};

BisectContext MakeContext(const BisectOptions& options, const BisectInputs& in, const Level& level) {
  BisectContext context;
  context.matrix = options.matrix_path;
  std::vector<std::string> files;
  for (const driver::JobScenarioFile& f : in.plan.job.files) files.push_back(f.path);
  context.scenario = absl::StrJoin(files, " ");
  context.points = in.plan.job.filter;
  context.cell = FormatLabelSet(in.cell);
  context.version_axis = level.versions->axis;
  context.excluded = level.versions->excluded;
  if (options.perf.has_value()) {  // what "worse" meant: the threshold and the direction
    const PerfHunt& perf = *options.perf;
    context.perf_hunt = absl::StrCat(perf.metric, " worse by ", absl::StrFormat("%g", perf.threshold * 100),
                                     "% or more (--threshold) at the bad end than at the good end; ",
                                     !perf.lower_is_worse ? "which way is worse: by the metric's unit"
                                     : *perf.lower_is_worse ? "lower is worse"
                                                            : "higher is worse");
  }
  return context;
}

// Repro scripts: the first bad version as the failing arm, the last good as the workaround. Only a
// write failure is an error; arms that cannot be read leave no script (said on progress).
absl::Status WriteBisectRepros(const Level& level, const std::string& out_dir, const driver::DriverEnv& env,
                               BisectSessionResult& out, BisectContext& context) {
  if (out.result.status != BisectStatus::kFound) return absl::OkStatus();
  absl::StatusOr<Hunt> hunt =
      Hunt::Create(out.result.hunt_outcome, out.result.hunt_signature, level.config.hunt.other_as_bad);
  const ProbeRecord* bad_probe = FindProbe(out.result, out.result.answer.first_bad);
  const ProbeRecord* good_probe = FindProbe(out.result, out.result.answer.last_good);
  const TrialResult* bad_trial = hunt.ok() && bad_probe ? ShowingTrial(*bad_probe, *hunt, true) : nullptr;
  const TrialResult* good_trial = hunt.ok() && good_probe ? ShowingTrial(*good_probe, *hunt, false) : nullptr;
  if (!bad_trial || !good_trial) return absl::OkStatus();
  const std::string& axis = level.versions->axis;
  const bool fix = out.result.find == BisectFind::kFix;
  absl::StatusOr<std::pair<ReproArm, ReproArm>> arms = ArmsFromTrials(
      *bad_trial, absl::StrCat(axis, "=", bad_probe->label, fix ? " (last bad)" : " (first bad)"), *good_trial,
      absl::StrCat(axis, "=", good_probe->label, fix ? " (first good, the fix)" : " (last good)"));
  if (!arms.ok()) {
    env.Print(absl::StrCat("no repro script: ", arms.status().message()));
    return absl::OkStatus();
  }
  auto& [failing, working] = *arms;
  SetSeenFailing(failing, bad_probe->tally);
  SetSeenFailing(working, good_probe->tally);
  const std::string boundary = BoundaryText(level.versions->axis, level.config, out.result);
  const std::string source = level.prepare ? absl::StrCat("the boundary search in ", out_dir, ": ", boundary)
                                           : absl::StrCat("the bisect in ", out_dir);
  std::string point = bad_trial->point;
  if (level.prepare) {
    // Each arm runs its own value's scenario copy: one filter, the parameter's value left open,
    // selects each arm's point.
    const std::string key = absl::StrCat("/", level.versions->axis, "=");
    size_t at = point.find(key);
    if (at != std::string::npos) {
      size_t end = point.find('/', at + key.size());
      point.replace(at + key.size(), end == std::string::npos ? std::string::npos : end - at - key.size(), "*");
    }
  }
  std::string both = RenderReproScript(point, source, failing, working);
  std::string last_good = RenderReproScript(point, source, working, std::nullopt, /*failing_expected=*/false);
  for (const auto& [name, text] : {std::pair<std::string, std::string>{"repro_first_bad.sh", both},
                                   {"repro_last_good.sh", last_good}}) {
    if (absl::Status st = WriteReproScript(level.report_dir, name, text); !st.ok()) return st;
    context.repro_scripts.push_back(name);
    out.written.push_back(name);
  }
  return absl::OkStatus();
}

std::string AnswerText(const BisectConfig& config, const BisectResult& r) {
  if (r.status != BisectStatus::kFound) return absl::StrCat("no answer: ", r.message);
  std::string headline =
      r.find == BisectFind::kFix
          ? absl::StrCat("first good (the fix): ", config.versions[r.answer.last_good],
                         ", last bad: ", config.versions[r.answer.first_bad])
          : absl::StrCat("first bad: ", config.versions[r.answer.first_bad],
                         ", last good: ", config.versions[r.answer.last_good]);
  if (!r.answer.unclassified.empty()) {
    std::vector<std::string> labels;
    for (int i : r.answer.unclassified) {
      labels.push_back(config.versions[i]);
      // Infrastructure on every attempt says nothing of the version: the headline says so.
      for (const ProbeRecord& p : r.probes) {
        if (p.version == i && !p.tally.infra_failure.empty()) {
          absl::StrAppend(&labels.back(), " (", p.tally.infra_failure, ")");
        }
      }
    }
    absl::StrAppend(&headline, ", unclassified between: ", absl::StrJoin(labels, ", "));
  }
  return headline;
}

std::string BisectHeadline(const BisectOptions& options, const std::string& answer, int probes, int trials,
                           int cached) {
  return absl::StrCat(answer, "; ", probes, " probes, ", trials, " trials (", cached,
                      " from the state file); see ", options.out_dir, "/summary.md");
}

// summary.md with `section` after its title (the answer's first screen).
std::string InsertSection(std::string md, const std::string& section) {
  size_t title_end = absl::StartsWith(md, "# ") ? md.find('\n') : std::string::npos;
  md.insert(title_end == std::string::npos ? 0 : title_end + 1, "\n" + section);
  return md;
}

// A level's summary.md (the levels' section after its title, when there are levels) and summary.json.
struct LevelReport {
  std::string markdown;
  nlohmann::json json;
};

absl::Status WriteLevelReport(const std::string& dir, const LevelReport& report,
                              const std::vector<LevelAnswer>& levels) {
  if (levels.empty()) return WriteSummaries(dir, report.markdown, report.json);
  nlohmann::json json = report.json;
  json["levels"] = LevelsJson(levels);
  return WriteSummaries(dir, InsertSection(report.markdown, LevelsMarkdown(levels)), json);
}

// Runs one level through `job_options` and the DIR claim: its probes, its repro scripts and its
// reports (written to level.report_dir; `report` keeps them for the levels' section).
absl::StatusOr<BisectSessionResult> RunLevel(const BisectOptions& options, BisectInputs& in, const Level& level,
                                             const ProbeJobOptions& job_options, driver::ResultsDirClaim& claim,
                                             driver::DriverEnv& env, LevelReport& report) {
  const BisectConfig& config = level.config;
  const std::string state_path = job_options.out_dir + "/bisect_state.json";
  // An infra attempt is no trial of the version: the jobs run it again (below the state file's cache).
  JobTrialRunner jobs(job_options, level.versions->configs, env, claim.runner());
  TrialRunner* measured = &jobs;
  std::optional<PreparingTrialRunner> preparing;  // inside the perf probe, which runs jobs itself
  if (level.prepare) measured = &preparing.emplace(jobs, level.prepare);
  std::optional<PerfTrialRunner> perf;
  if (options.perf.has_value()) measured = &perf.emplace(*measured, *options.perf, config.good, config.bad);
  CachingTrialRunner caching(*measured, in.cache, config.versions, level.versions->settings, state_path);
  env.Print(absl::StrCat("bisect ", options.matrix_path, " over ", level.versions->axis, ": ",
                                  config.versions.size(), " versions, good ", config.versions[config.good], ", bad ",
                                  config.versions[config.bad], ", up to ", config.jobs, " at once"));
  absl::StatusOr<BisectResult> result =
      RunBisect(config, caching, [&](const ProbeRecord& p) { env.Print(ProbeLine(p)); });
  if (!result.ok()) return result.status();

  BisectSessionResult out;
  out.result = *std::move(result);
  out.cached_trials = caching.hits();
  out.exit_status = BisectExitStatus(out.result);
  BisectContext context = MakeContext(options, in, level);
  context.out_dir = job_options.out_dir;
  if (absl::Status st = WriteBisectRepros(level, job_options.out_dir, env, out, context); !st.ok()) return st;
  report = {RenderBisectMarkdown(config, out.result, context), BisectSummaryJson(config, out.result, context)};
  if (level.prepare) {  // a boundary search: the interval first
    report.markdown = InsertSection(report.markdown,
                                    BoundaryMarkdown(level.versions->axis, config, out.result, in.param->numeric));
    report.json["boundary"] = {{"param", level.versions->axis},
                               {"text", BoundaryText(level.versions->axis, config, out.result)},
                               {"scenario", in.param->scenario_path}};
  }
  if (absl::Status st = WriteLevelReport(level.report_dir, report, {}); !st.ok()) return st;
  out.written.insert(out.written.begin(), {"summary.md", "summary.json"});
  absl::StatusOr<Hunt> hunt = Hunt::Create(out.result.hunt_outcome, out.result.hunt_signature, config.hunt.other_as_bad);
  out.failures = ProbeFailureLines(out.result.probes, level.versions->axis,
                                   hunt.ok() && !out.result.hunt.empty() ? &*hunt : nullptr);
  return out;
}

// The finer level's versions and test, between the coarse answer's ends, hunting the failure the
// coarse level hunted.
absl::StatusOr<Level> PlanFinerLevel(const BisectInputs& in, const BisectConfig& coarse_config,
                                     const BisectResult& coarse, const std::string& report_dir,
                                     BisectVersions& storage) {
  const std::string& good = coarse_config.versions[coarse.answer.last_good];
  const std::string& bad = coarse_config.versions[coarse.answer.first_bad];
  absl::StatusOr<driver::MatrixAxis> axis = ReadRefineAxis(*in.refine, good, bad, driver::RunVersionListCommand);
  if (!axis.ok()) return axis.status();
  const int first = std::min(coarse.answer.last_good, coarse.answer.first_bad);
  const int last = std::max(coarse.answer.last_good, coarse.answer.first_bad);
  absl::StatusOr<BisectVersions> versions =
      PlanRefinedVersions(in.plan, in.cell, *std::move(axis), in.versions, first, last);
  if (!versions.ok()) return versions.status();
  storage = *std::move(versions);
  Level level;
  level.versions = &storage;
  level.report_dir = report_dir;
  level.config = coarse_config;
  level.config.versions.clear();
  for (const ProbeConfig& c : storage.configs) level.config.versions.push_back(c.label);
  const int n = static_cast<int>(storage.configs.size());
  const bool fix = coarse.find == BisectFind::kFix;
  level.config.good = fix ? n - 1 : 0;
  level.config.bad = fix ? 0 : n - 1;
  level.config.hunt.outcome = coarse.hunt_outcome;
  level.config.hunt.signature = coarse.hunt_signature;
  if (absl::Status st = ValidateBisectConfig(level.config); !st.ok()) return st;
  return level;
}

// --refine after a coarse answer: the finer level in DIR/refine, then both reports rewritten with
// the levels' section. `out` holds the coarse level's result and becomes the session's.
absl::Status RefineBisect(const BisectOptions& options, BisectInputs& in, const Level& coarse,
                          const LevelReport& coarse_report, const ProbeJobOptions& job_options,
                          driver::ResultsDirClaim& claim, driver::DriverEnv& env, BisectSessionResult& out) {
  const std::string report_dir = job_options.out_dir + "/refine";
  std::error_code ec;
  std::filesystem::create_directories(report_dir, ec);
  if (ec) return absl::InternalError(absl::StrCat(report_dir, ": cannot create: ", ec.message()));
  BisectVersions storage;
  absl::StatusOr<Level> fine = PlanFinerLevel(in, coarse.config, out.result, report_dir, storage);
  if (!fine.ok()) return fine.status();
  env.Print(absl::StrCat("refine: ", coarse.versions->axis, " answered; ", in.refine->name, " between ",
                                  coarse.config.versions[out.result.answer.last_good], " and ",
                                  coarse.config.versions[out.result.answer.first_bad], ": ",
                                  storage.configs.size(), " versions"));
  LevelReport fine_report;
  absl::StatusOr<BisectSessionResult> finer = RunLevel(options, in, *fine, job_options, claim, env, fine_report);
  if (!finer.ok()) return finer.status();
  std::vector<LevelAnswer> levels = {MakeLevelAnswer(coarse.versions->axis, coarse.config, out.result, "summary.md"),
                                     MakeLevelAnswer(in.refine->name, fine->config, finer->result, "refine/summary.md")};
  if (levels[1].found) {
    const std::string& changed = levels[1].find == BisectFind::kFix ? levels[1].last_good : levels[1].first_bad;
    levels[1].subject = CommitSubject(absl::StrCat(job_options.out_dir, "/versions/", SafeDirName(changed), "/src"));
  }
  if (absl::Status st = WriteLevelReport(job_options.out_dir, coarse_report, levels); !st.ok()) return st;
  if (absl::Status st = WriteLevelReport(report_dir, fine_report, levels); !st.ok()) return st;
  const int probes = static_cast<int>(out.result.probes.size() + finer->result.probes.size());
  const int trials = out.result.total_trials + finer->result.total_trials;
  const int cached = out.cached_trials + finer->cached_trials;
  std::vector<std::string> written = out.written;
  for (const std::string& name : finer->written) written.push_back("refine/" + name);
  out = *std::move(finer);
  out.exit_status = std::max(out.exit_status, levels[0].found ? 0 : 1);  // (the coarse level answered)
  out.written = std::move(written);
  out.levels = std::move(levels);
  out.headline = BisectHeadline(options, LevelsLine(out.levels), probes, trials, cached);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<BisectSessionResult> RunBisectSession(const BisectOptions& options, driver::DriverEnv& env) {
  absl::StatusOr<BisectInputs> in = PrepareBisect(options);
  if (!in.ok()) return in.status();
  absl::StatusOr<ProbeDir> dir = ClaimProbeDir(options, in->plan.job, env);
  if (!dir.ok()) return dir.status();
  const ProbeJobOptions* job_options = &dir->jobs;
  driver::ResultsDirClaim* claim = dir->claim.get();
  Level coarse{&in->versions, in->config, job_options->out_dir};
  if (in->param.has_value()) {
    coarse.prepare = [&in, &job_options](int version) {
      return MaterializeParamValue(*in->param, in->plan, in->versions.configs[version], job_options->out_dir);
    };
  }
  LevelReport report;
  absl::StatusOr<BisectSessionResult> out = RunLevel(options, *in, coarse, *job_options, *claim, env, report);
  if (!out.ok()) return out.status();
  out->written.push_back("bisect_state.json");
  const std::string answer = in->param.has_value() && out->result.status == BisectStatus::kFound
                                 ? absl::StrCat("boundary: ", BoundaryText(in->versions.axis, coarse.config, out->result))
                                 : AnswerText(coarse.config, out->result);
  out->headline = BisectHeadline(options, answer, out->result.probes.size(),
                                 out->result.total_trials, out->cached_trials);
  if (in->refine.has_value() && out->result.status == BisectStatus::kFound) {
    if (absl::Status st = RefineBisect(options, *in, coarse, report, *job_options, *claim, env, *out); !st.ok()) {
      return st;
    }
  }
  return out;
}

}  // namespace gh
