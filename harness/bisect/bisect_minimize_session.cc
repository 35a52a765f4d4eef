#include "harness/bisect/bisect_minimize_session.h"

#include <sys/stat.h>

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "harness/core/file_util.h"
#include "harness/bisect/bisect_jobs.h"
#include "harness/bisect/bisect_plan.h"
#include "harness/bisect/bisect_session_setup.h"
#include "harness/bisect/bisect_state.h"
#include "harness/bisect/bisect_summary.h"
#include "harness/bisect/ddmin.h"
#include "harness/bisect/repro_script.h"

namespace gh {

namespace {

absl::StatusOr<const driver::PlannedCell*> OneCell(const ProbePlan& plan, const std::string& labels,
                                                   const char* flag) {
  absl::StatusOr<LabelSet> set = ParseLabelSet(labels, flag);
  if (!set.ok()) return set.status();
  absl::StatusOr<std::vector<const driver::PlannedCell*>> cells = SelectCells(plan.sweep, *set, flag);
  if (!cells.ok()) return cells.status();
  if (cells->size() != 1) {
    std::vector<std::string> ids;
    for (const driver::PlannedCell* c : *cells) ids.push_back(c->plan.id);
    return absl::InvalidArgumentError(absl::StrCat(
        flag, ": '", labels, "' matches ", cells->size(), " cells",
        ids.empty() ? std::string() : absl::StrCat(" (", absl::StrJoin(ids, "; "), ")"),
        "; name one label per axis"));
  }
  return cells->front();
}

std::string Code(const std::string& text) { return absl::StrCat("`", absl::StrReplaceAll(text, {{"`", "'"}}), "`"); }
std::string Cell(const std::string& text) { return absl::StrReplaceAll(text, {{"|", "\\|"}, {"\n", " "}}); }

std::string Joined(const std::vector<SettingChange>& changes, const std::vector<int>& indices, bool failing) {
  std::vector<std::string> parts;
  for (int i : indices) parts.push_back(failing ? changes[i].FailingText() : changes[i].PassingText());
  return absl::StrJoin(parts, ", ");
}

nlohmann::json TrialsJson(const ProbeRecord& probe) {
  nlohmann::json trials = nlohmann::json::array();
  for (const TrialResult& t : probe.trials) trials.push_back(TrialResultToJson(t));
  return trials;
}

struct TestRow {
  std::vector<int> applied;
  ProbeRecord probe;
};

}  // namespace

absl::StatusOr<MinimizeSessionResult> RunMinimizeSession(const MinimizeOptions& options, BisectSessionEnv& env) {
  if (options.out_dir.empty()) return absl::InvalidArgumentError("--out: missing the output directory");
  if (options.failing.empty()) return absl::InvalidArgumentError("--failing: missing the failing cell's labels");
  if (options.passing.empty()) return absl::InvalidArgumentError("--passing: missing the passing cell's labels");
  if (absl::Status st = CheckHuntSignature(options.hunt); !st.ok()) return st;
  if (absl::Status st = options.sprt.Validate(); !st.ok()) return st;
  absl::StatusOr<ProbePlan> plan = PlanProbes({options.matrix_path, options.scenario_path, options.points});
  if (!plan.ok()) return plan.status();
  absl::StatusOr<const driver::PlannedCell*> failing_cell = OneCell(*plan, options.failing, "--failing");
  if (!failing_cell.ok()) return failing_cell.status();
  absl::StatusOr<const driver::PlannedCell*> passing_cell = OneCell(*plan, options.passing, "--passing");
  if (!passing_cell.ok()) return passing_cell.status();
  absl::StatusOr<ProbeConfig> failing_config = MakeProbeConfig(*plan, **failing_cell, "failing");
  if (!failing_config.ok()) return failing_config.status();
  absl::StatusOr<ProbeConfig> passing_config = MakeProbeConfig(*plan, **passing_cell, "passing");
  if (!passing_config.ok()) return passing_config.status();
  ProbeConfig failing = *std::move(failing_config);
  ProbeConfig passing = *std::move(passing_config);
  absl::StatusOr<std::vector<SettingChange>> changes = DiffSettings(passing.cell.plan, failing.cell.plan);
  if (!changes.ok()) return changes.status();
  if (changes->empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--failing and --passing: '", options.failing, "' and '", options.passing,
        "' set the same environment; there is nothing to minimize"));
  }

  absl::StatusOr<ProbeJobOptions> job_options = SetUpProbeJobs(
      options.out_dir, options.program, plan->job, options.kill_grace, options.setup_timeout, env);
  if (!job_options.ok()) return job_options.status();
  const std::string out_dir = job_options->out_dir;  // absolute
  std::vector<ProbeConfig> configs = {passing, failing};
  JobTrialRunner runner(*std::move(job_options), configs, *env.runner, *env.clock);
  auto print = [&](const ProbeRecord& p) {
    if (!env.progress) return;
    std::fprintf(env.progress, "%s: %s (%s)\n", p.label.c_str(),
                 std::string(ProbeVerdictName(p.tally.verdict)).c_str(), ProbeCell(p).c_str());
    std::fflush(env.progress);
  };

  MinimizeSessionResult out;
  out.changes = *changes;
  // The two configurations, checked like a bisect's ends (the failing one names the hunt).
  BisectConfig ends;
  ends.versions = {"passing", "failing"};
  ends.good = 0;
  ends.bad = 1;
  ends.hunt = options.hunt;
  ends.sprt = options.sprt;
  absl::StatusOr<BisectResult> checked = RunBisect(ends, runner, print);
  if (!checked.ok()) return checked.status();

  std::vector<TestRow> tests;
  std::optional<ProbeRecord> workaround;
  std::string message;
  std::optional<Hunt> hunt;
  if (checked->status != BisectStatus::kFound) {
    message = absl::StrReplaceAll(checked->message, {{"the good end 'passing'", "the passing cell"},
                                                     {"the bad end 'failing'", "the failing cell"}});
  } else {
    absl::StatusOr<Hunt> resolved =
        Hunt::Create(checked->hunt_outcome, checked->hunt_signature, options.hunt.other_as_bad);
    if (!resolved.ok()) return resolved.status();
    hunt = *resolved;
    auto probe_changes = [&](const std::vector<int>& applied, const std::string& label,
                             const std::string& dir) -> absl::StatusOr<ProbeRecord> {
      std::vector<SettingChange> subset;
      for (int i : applied) subset.push_back((*changes)[i]);
      ProbeConfig config = passing;
      config.label = label;
      config.dir_name = dir;
      config.cell.plan = ApplyChanges(passing.cell.plan, subset);
      configs.push_back(std::move(config));
      absl::StatusOr<ProbeRecord> probe =
          RunProbe(runner, static_cast<int>(configs.size()) - 1, label, *hunt, options.sprt);
      if (probe.ok()) print(*probe);
      return probe;
    };
    absl::StatusOr<DdminResult> dd = Ddmin(
        static_cast<int>(changes->size()), [&](const std::vector<int>& applied) -> absl::StatusOr<DdOutcome> {
          if (applied.size() == changes->size()) return DdOutcome::kFail;  // the failing cell, probed
          const std::string label = absl::StrCat("passing + {", Joined(*changes, applied, true), "}");
          absl::StatusOr<ProbeRecord> probe =
              probe_changes(applied, label, absl::StrCat("test", tests.size() + 1));
          if (!probe.ok()) return probe.status();
          tests.push_back({applied, *probe});
          switch (probe->tally.verdict) {
            case ProbeVerdict::kBad: return DdOutcome::kFail;
            case ProbeVerdict::kGood: return DdOutcome::kPass;
            default: return DdOutcome::kUnresolved;
          }
        });
    if (!dd.ok()) return dd.status();
    out.minimal = dd->minimal;
    // The workaround: the failing cell with the minimal change reverted.
    std::vector<int> rest;
    for (int i = 0; i < static_cast<int>(changes->size()); ++i) {
      if (std::find(out.minimal.begin(), out.minimal.end(), i) == out.minimal.end()) rest.push_back(i);
    }
    absl::StatusOr<ProbeRecord> verified = probe_changes(
        rest, absl::StrCat("failing with ", Joined(*changes, out.minimal, false)), "workaround");
    if (!verified.ok()) return verified.status();
    workaround = *verified;
    out.workaround_verified = verified->tally.verdict == ProbeVerdict::kGood;
  }

  // Outputs.
  const std::string workaround_text = Joined(*changes, out.minimal, false);
  if (hunt && !out.minimal.empty()) {
    out.headline = out.workaround_verified
                       ? absl::StrCat("with ", workaround_text, " every rank passes (the minimal change: ",
                                      Joined(*changes, out.minimal, true), ")")
                       : absl::StrCat("minimal change ", Joined(*changes, out.minimal, true),
                                      ", but the failing cell with ", workaround_text, " still fails: ",
                                      ProbeCell(*workaround));
  } else {
    out.headline = absl::StrCat("no answer: ", message);
  }
  out.exit_status = hunt && out.workaround_verified ? 0 : 1;

  std::vector<std::string> scripts;
  if (hunt && workaround && out.workaround_verified) {
    const TrialResult* bad_trial = nullptr;
    for (const ProbeRecord& p : checked->probes) {
      if (p.version == 1) bad_trial = ShowingTrial(p, *hunt, true);
    }
    const TrialResult* good_trial = ShowingTrial(*workaround, *hunt, false);
    if (bad_trial && good_trial) {
      absl::StatusOr<ReproArm> f = ArmFromTrial(*bad_trial, "failing", absl::StrCat(options.failing, " (failing cell)"));
      absl::StatusOr<ReproArm> w = ArmFromTrial(*good_trial, "workaround", absl::StrCat(options.failing, " with ", workaround_text));
      if (f.ok() && w.ok()) {
        std::string text = RenderReproScript(bad_trial->point, absl::StrCat("the minimize in ", out_dir), *f, *w);
        if (absl::Status st = WriteFileAtomically(out_dir + "/repro.sh", text); !st.ok()) return st;
        ::chmod((out_dir + "/repro.sh").c_str(), 0755);
        scripts.push_back("repro.sh");
      }
    }
  }

  std::string md = absl::StrCat("# Minimize: ", Code(options.failing), " fails, ", Code(options.passing), " passes\n\n");
  if (hunt && !out.minimal.empty()) {
    absl::StrAppend(&md, "**Minimal change that flips the result: ", Code(Joined(*changes, out.minimal, true)), "** (",
                    out.minimal.size(), " of ", changes->size(), " differences)\n\n");
    absl::StrAppend(&md, out.workaround_verified ? "Workaround, verified: with " : "Not a workaround: with ",
                    Code(workaround_text), out.workaround_verified ? " every rank passes (" : " the failing cell still fails (",
                    ProbeCell(*workaround), ").\n\n");
  } else {
    absl::StrAppend(&md, "**No answer: ", Cell(message), "**\n\n");
  }
  absl::StrAppend(&md, "- Hunted: ", checked->hunt.empty() ? "(unresolved)" : Code(checked->hunt), "\n",
                  "- Matrix: ", Code(options.matrix_path), "\n", "- Trials per probe: SPRT ", options.sprt.ToString(), "\n");
  for (const std::string& s : scripts) absl::StrAppend(&md, "- Repro: ", Code(s), "\n");
  absl::StrAppend(&md, "\n## Differences (passing -> failing)\n\n| # | failing | passing | in the minimal change |\n|---|---|---|---|\n");
  for (size_t i = 0; i < changes->size(); ++i) {
    const bool in = std::find(out.minimal.begin(), out.minimal.end(), static_cast<int>(i)) != out.minimal.end();
    absl::StrAppend(&md, "| ", i + 1, " | ", Cell((*changes)[i].FailingText()), " | ", Cell((*changes)[i].PassingText()),
                    " | ", in ? "yes" : "", " |\n");
  }
  absl::StrAppend(&md, "\n## Probes\n\n| configuration | verdict | trials | result |\n|---|---|---|---|\n");
  std::vector<const ProbeRecord*> all;
  for (const ProbeRecord& p : checked->probes) all.push_back(&p);
  for (const TestRow& t : tests) all.push_back(&t.probe);
  if (workaround) all.push_back(&*workaround);
  nlohmann::json probes_json = nlohmann::json::array();
  for (const ProbeRecord* p : all) {
    absl::StrAppend(&md, "| ", Cell(p->label), " | ", std::string(ProbeVerdictName(p->tally.verdict)), " | ", p->tally.trials, " | ",
                    Cell(ProbeCell(*p)), " |\n");
    probes_json.push_back({{"configuration", p->label}, {"verdict", std::string(ProbeVerdictName(p->tally.verdict))},
                           {"trials", p->tally.trials}, {"passes", p->tally.passes}, {"hunted", p->tally.hunted},
                           {"others", p->tally.others}, {"skips", p->tally.skips}, {"signatures", p->tally.signatures},
                           {"trial_results", TrialsJson(*p)}});
  }
  nlohmann::json changes_json = nlohmann::json::array();
  for (size_t i = 0; i < changes->size(); ++i) {
    changes_json.push_back({{"failing", (*changes)[i].FailingText()}, {"passing", (*changes)[i].PassingText()},
                            {"minimal", std::find(out.minimal.begin(), out.minimal.end(), static_cast<int>(i)) != out.minimal.end()}});
  }
  nlohmann::json summary = {{"kind", "minimize"},
                            {"schema_version", 1},
                            {"status", hunt ? (out.workaround_verified ? "found" : "not_verified") : "ends_contradict"},
                            {"message", message},
                            {"headline", out.headline},
                            {"matrix", options.matrix_path},
                            {"failing", options.failing},
                            {"passing", options.passing},
                            {"hunt", checked->hunt},
                            {"changes", changes_json},
                            {"minimal_change", Joined(*changes, out.minimal, true)},
                            {"workaround", workaround_text},
                            {"workaround_verified", out.workaround_verified},
                            {"tests", tests.size()},
                            {"probes", probes_json},
                            {"repro_scripts", scripts}};
  if (absl::Status st = WriteFileAtomically(out_dir + "/summary.md", md); !st.ok()) return st;
  if (absl::Status st = WriteFileAtomically(out_dir + "/summary.json", summary.dump(2) + "\n"); !st.ok()) return st;
  return out;
}

}  // namespace gh
