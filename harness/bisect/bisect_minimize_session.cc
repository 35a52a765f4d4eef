#include "harness/bisect/bisect_minimize_session.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "harness/core/file_util.h"
#include "harness/core/status_macros.h"
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

// The two cells and the settings between them, all checked before anything is written.
struct MinimizeEnds {
  ProbePlan plan;
  ProbeConfig failing;
  ProbeConfig passing;
  std::vector<SettingChange> changes;
};

// What the session found and wrote.
struct MinimizeFindings {
  BisectResult checked;                   // the two cells, probed like a bisect's ends
  std::optional<Hunt> hunt;               // set when the ends held
  std::string message;                    // why there is no answer, when they did not
  std::vector<TestRow> tests;             // ddmin's probes, in order
  std::optional<ProbeRecord> workaround;  // the failing cell with the minimal change reverted
  std::vector<std::string> scripts;       // repro scripts written
};

absl::StatusOr<MinimizeEnds> PrepareMinimize(const MinimizeOptions& options) {
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
  absl::StatusOr<std::vector<SettingChange>> changes =
      DiffSettings(passing_config->cell.plan, failing_config->cell.plan);
  if (!changes.ok()) return changes.status();
  if (changes->empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--failing and --passing: '", options.failing, "' and '", options.passing,
        "' set the same environment; there is nothing to minimize"));
  }
  return MinimizeEnds{*std::move(plan), *std::move(failing_config), *std::move(passing_config), *std::move(changes)};
}

// Probes the passing cell with some of the changes applied, each time as a new configuration.
class ChangeProber {
 public:
  ChangeProber(const MinimizeOptions& options, const MinimizeEnds& ends, std::vector<ProbeConfig>& configs,
               TrialRunner& runner, const ProbeCallback& print)
      : options_(options), ends_(ends), configs_(configs), runner_(runner), print_(print) {}

  absl::StatusOr<ProbeRecord> Probe(const std::vector<int>& applied, const std::string& label,
                                    const std::string& dir, const Hunt& hunt) {
    std::vector<SettingChange> subset;
    for (int i : applied) subset.push_back(ends_.changes[i]);
    ProbeConfig config = ends_.passing;
    config.label = label;
    config.dir_name = dir;
    config.cell.plan = ApplyChanges(ends_.passing.cell.plan, subset);
    configs_.push_back(std::move(config));
    absl::StatusOr<ProbeRecord> probe =
        RunProbe(runner_, static_cast<int>(configs_.size()) - 1, label, hunt, options_.sprt);
    if (probe.ok()) print_(*probe);
    return probe;
  }

 private:
  const MinimizeOptions& options_;
  const MinimizeEnds& ends_;
  std::vector<ProbeConfig>& configs_;
  TrialRunner& runner_;
  const ProbeCallback& print_;
};

// Ddmin over the changes, then the workaround verified: sets out.minimal and out.workaround_verified.
absl::Status SearchMinimalChange(const MinimizeEnds& ends, ChangeProber& prober, MinimizeFindings& found,
                                 MinimizeSessionResult& out) {
  const std::vector<SettingChange>& changes = ends.changes;
  const Hunt& hunt = *found.hunt;
  absl::StatusOr<DdminResult> dd = Ddmin(
      static_cast<int>(changes.size()), [&](const std::vector<int>& applied) -> absl::StatusOr<DdOutcome> {
        if (applied.size() == changes.size()) return DdOutcome::kFail;  // the failing cell, probed
        const std::string label = absl::StrCat("passing + {", Joined(changes, applied, true), "}");
        absl::StatusOr<ProbeRecord> probe =
            prober.Probe(applied, label, absl::StrCat("test", found.tests.size() + 1), hunt);
        if (!probe.ok()) return probe.status();
        found.tests.push_back({applied, *probe});
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
  for (int i = 0; i < static_cast<int>(changes.size()); ++i) {
    if (std::find(out.minimal.begin(), out.minimal.end(), i) == out.minimal.end()) rest.push_back(i);
  }
  absl::StatusOr<ProbeRecord> verified =
      prober.Probe(rest, absl::StrCat("failing with ", Joined(changes, out.minimal, false)), "workaround", hunt);
  if (!verified.ok()) return verified.status();
  found.workaround = *verified;
  out.workaround_verified = verified->tally.verdict == ProbeVerdict::kGood;
  return absl::OkStatus();
}

std::string MinimizeHeadline(const MinimizeEnds& ends, const MinimizeFindings& found,
                             const MinimizeSessionResult& out) {
  if (!found.hunt || out.minimal.empty()) return absl::StrCat("no answer: ", found.message);
  const std::string workaround_text = Joined(ends.changes, out.minimal, false);
  return out.workaround_verified
             ? absl::StrCat("with ", workaround_text, " every rank passes (the minimal change: ",
                            Joined(ends.changes, out.minimal, true), ")")
             : absl::StrCat("minimal change ", Joined(ends.changes, out.minimal, true),
                            ", but the failing cell with ", workaround_text, " still fails: ",
                            ProbeCell(*found.workaround));
}

// repro.sh, when the workaround is verified: the failing cell against it.
absl::Status WriteMinimizeRepro(const MinimizeOptions& options, const MinimizeEnds& ends,
                                const std::string& out_dir, const MinimizeSessionResult& out,
                                MinimizeFindings& found) {
  if (!found.hunt || !found.workaround || !out.workaround_verified) return absl::OkStatus();
  const TrialResult* bad_trial = nullptr;
  for (const ProbeRecord& p : found.checked.probes) {
    if (p.version == 1) bad_trial = ShowingTrial(p, *found.hunt, true);
  }
  const TrialResult* good_trial = ShowingTrial(*found.workaround, *found.hunt, false);
  if (!bad_trial || !good_trial) return absl::OkStatus();
  absl::StatusOr<std::pair<ReproArm, ReproArm>> arms = ArmsFromTrials(
      *bad_trial, absl::StrCat(options.failing, " (failing cell)"), *good_trial,
      absl::StrCat(options.failing, " with ", Joined(ends.changes, out.minimal, false)));
  if (!arms.ok()) return absl::OkStatus();
  std::string text =
      RenderReproScript(bad_trial->point, absl::StrCat("the minimize in ", out_dir), arms->first, arms->second);
  if (absl::Status st = WriteReproScript(out_dir, "repro.sh", text); !st.ok()) return st;
  found.scripts.push_back("repro.sh");
  return absl::OkStatus();
}

bool InMinimal(const MinimizeSessionResult& out, size_t i) {
  return std::find(out.minimal.begin(), out.minimal.end(), static_cast<int>(i)) != out.minimal.end();
}

// Every probe the session ran: the two cells, ddmin's tests, then the workaround.
std::vector<const ProbeRecord*> AllProbes(const MinimizeFindings& found) {
  std::vector<const ProbeRecord*> all;
  for (const ProbeRecord& p : found.checked.probes) all.push_back(&p);
  for (const TestRow& t : found.tests) all.push_back(&t.probe);
  if (found.workaround) all.push_back(&*found.workaround);
  return all;
}

std::string MinimizeMarkdown(const MinimizeOptions& options, const MinimizeEnds& ends,
                             const MinimizeFindings& found, const MinimizeSessionResult& out) {
  const std::vector<SettingChange>& changes = ends.changes;
  const std::string workaround_text = Joined(changes, out.minimal, false);
  std::string md = absl::StrCat("# Minimize: ", Code(options.failing), " fails, ", Code(options.passing), " passes\n\n");
  if (found.hunt && !out.minimal.empty()) {
    absl::StrAppend(&md, "**Minimal change that flips the result: ", Code(Joined(changes, out.minimal, true)), "** (",
                    out.minimal.size(), " of ", changes.size(), " differences)\n\n");
    absl::StrAppend(&md, out.workaround_verified ? "Workaround, verified: with " : "Not a workaround: with ",
                    Code(workaround_text), out.workaround_verified ? " every rank passes (" : " the failing cell still fails (",
                    ProbeCell(*found.workaround), ").\n\n");
  } else {
    absl::StrAppend(&md, "**No answer: ", Cell(found.message), "**\n\n");
  }
  absl::StrAppend(&md, "- Hunted: ", found.checked.hunt.empty() ? "(unresolved)" : Code(found.checked.hunt), "\n",
                  "- Matrix: ", Code(options.matrix_path), "\n", "- Trials per probe: SPRT ", options.sprt.ToString(), "\n");
  for (const std::string& s : found.scripts) absl::StrAppend(&md, "- Repro: ", Code(s), "\n");
  absl::StrAppend(&md, "\n## Differences (passing -> failing)\n\n| # | failing | passing | in the minimal change |\n|---|---|---|---|\n");
  for (size_t i = 0; i < changes.size(); ++i) {
    absl::StrAppend(&md, "| ", i + 1, " | ", Cell(changes[i].FailingText()), " | ", Cell(changes[i].PassingText()),
                    " | ", InMinimal(out, i) ? "yes" : "", " |\n");
  }
  absl::StrAppend(&md, "\n## Probes\n\n| configuration | verdict | trials | result |\n|---|---|---|---|\n");
  for (const ProbeRecord* p : AllProbes(found)) {
    absl::StrAppend(&md, "| ", Cell(p->label), " | ", std::string(ProbeVerdictName(p->tally.verdict)), " | ", p->tally.trials, " | ",
                    Cell(ProbeCell(*p)), " |\n");
  }
  return md;
}

nlohmann::json MinimizeSummaryJson(const MinimizeOptions& options, const MinimizeEnds& ends,
                                   const MinimizeFindings& found, const MinimizeSessionResult& out) {
  const std::vector<SettingChange>& changes = ends.changes;
  nlohmann::json probes_json = nlohmann::json::array();
  for (const ProbeRecord* p : AllProbes(found)) {
    probes_json.push_back({{"configuration", p->label}, {"verdict", std::string(ProbeVerdictName(p->tally.verdict))},
                           {"trials", p->tally.trials}, {"passes", p->tally.passes}, {"hunted", p->tally.hunted},
                           {"others", p->tally.others}, {"skips", p->tally.skips}, {"signatures", p->tally.signatures},
                           {"trial_results", TrialsJson(*p)}});
  }
  nlohmann::json changes_json = nlohmann::json::array();
  for (size_t i = 0; i < changes.size(); ++i) {
    changes_json.push_back({{"failing", changes[i].FailingText()}, {"passing", changes[i].PassingText()},
                            {"minimal", InMinimal(out, i)}});
  }
  return {{"kind", "minimize"},
          {"schema_version", 1},
          {"status", found.hunt ? (out.workaround_verified ? "found" : "not_verified") : "ends_contradict"},
          {"message", found.message},
          {"headline", out.headline},
          {"matrix", options.matrix_path},
          {"failing", options.failing},
          {"passing", options.passing},
          {"hunt", found.checked.hunt},
          {"changes", changes_json},
          {"minimal_change", Joined(changes, out.minimal, true)},
          {"workaround", Joined(changes, out.minimal, false)},
          {"workaround_verified", out.workaround_verified},
          {"tests", found.tests.size()},
          {"probes", probes_json},
          {"repro_scripts", found.scripts}};
}

}  // namespace

absl::StatusOr<MinimizeSessionResult> RunMinimizeSession(const MinimizeOptions& options, driver::DriverEnv& env) {
  GH_ASSIGN_OR_RETURN(MinimizeEnds ends, PrepareMinimize(options));
  GH_ASSIGN_OR_RETURN(ProbeDir dir, ClaimProbeDir(options, ends.plan.job, env));
  const std::string out_dir = dir.jobs.out_dir;  // absolute
  std::vector<ProbeConfig> configs = {ends.passing, ends.failing};
  // An infra attempt is no trial of the configuration: the jobs run it again.
  JobTrialRunner runner(dir.jobs, configs, env, dir.claim->runner());
  const ProbeCallback print = [&](const ProbeRecord& p) {
    env.Print(absl::StrCat(p.label, ": ", std::string(ProbeVerdictName(p.tally.verdict)), " (", ProbeCell(p), ")"));
  };

  MinimizeSessionResult out;
  out.changes = ends.changes;
  // The two configurations, checked like a bisect's ends (the failing one names the hunt).
  BisectConfig end_config;
  end_config.versions = {"passing", "failing"};
  end_config.good = 0;
  end_config.bad = 1;
  end_config.hunt = options.hunt;
  end_config.sprt = options.sprt;
  absl::StatusOr<BisectResult> checked = RunBisect(end_config, runner, print);
  if (!checked.ok()) return checked.status();
  MinimizeFindings found;
  found.checked = *std::move(checked);
  if (found.checked.status != BisectStatus::kFound) {
    found.message = absl::StrReplaceAll(found.checked.message, {{"the good end 'passing'", "the passing cell"},
                                                                {"the bad end 'failing'", "the failing cell"}});
  } else {
    absl::StatusOr<Hunt> resolved =
        Hunt::Create(found.checked.hunt_outcome, found.checked.hunt_signature, options.hunt.other_as_bad);
    if (!resolved.ok()) return resolved.status();
    found.hunt = *resolved;
    ChangeProber prober(options, ends, configs, runner, print);
    if (absl::Status st = SearchMinimalChange(ends, prober, found, out); !st.ok()) return st;
  }

  out.headline = MinimizeHeadline(ends, found, out);
  std::vector<ProbeRecord> probes = found.checked.probes;
  for (const TestRow& test : found.tests) probes.push_back(test.probe);
  if (found.workaround) probes.push_back(*found.workaround);
  out.failures = ProbeFailureLines(probes, "", found.hunt ? &*found.hunt : nullptr);
  out.exit_status = found.hunt && out.workaround_verified ? 0 : 1;
  if (absl::Status st = WriteMinimizeRepro(options, ends, out_dir, out, found); !st.ok()) return st;
  if (absl::Status st = WriteSummaries(out_dir, MinimizeMarkdown(options, ends, found, out),
                                       MinimizeSummaryJson(options, ends, found, out));
      !st.ok()) {
    return st;
  }
  return out;
}

}  // namespace gh
