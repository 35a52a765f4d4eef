#include "harness/bisect/bisect_summary.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "harness/bisect/bisect_state.h"
#include "harness/bisect/bisect_summary_report.h"

namespace gh {

namespace {

// Table cells: pipes escaped, newlines folded (GFM).
std::string Cell(const std::string& text) {
  return absl::StrReplaceAll(text, {{"|", "\\|"}, {"\n", " "}, {"\r", " "}});
}

std::string Code(const std::string& text) { return absl::StrCat("`", absl::StrReplaceAll(text, {{"`", "'"}}), "`"); }

// "fail: wrong data ×2; crash: SIGSEGV ×1", most frequent first.
std::string Signatures(const ProbeTally& tally) {
  std::vector<std::pair<std::string, int>> sorted(tally.signatures.begin(), tally.signatures.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> parts;
  for (const auto& [signature, count] : sorted) parts.push_back(absl::StrCat(signature, " ×", count));
  return absl::StrJoin(parts, "; ");
}

std::string RoundName(int round) { return round == 0 ? "ends" : absl::StrCat(round); }

std::string Verdict(const ProbeTally& tally) {
  std::string v(ProbeVerdictName(tally.verdict));
  if (tally.truncated) absl::StrAppend(&v, " (at the trial cap)");
  return v;
}

std::string LabelOf(const BisectConfig& config, int index) {
  return index >= 0 && index < static_cast<int>(config.versions.size()) ? config.versions[index] : "?";
}

}  // namespace

namespace {

std::string ProbeOutcomeCell(const ProbeRecord& probe) {
  const ProbeTally& t = probe.tally;
  if (std::string unrunnable = t.Unrunnable(); !unrunnable.empty()) return unrunnable;
  if (t.skips > 0) return absl::StrCat("skip: ", probe.trials.empty() ? "" : probe.trials.back().signature);
  const int failed = t.hunted + t.others;
  if (failed == 0) return absl::StrCat(t.trials, "/", t.trials, " passed");
  std::string out = absl::StrCat(failed, "/", t.trials, " failed");
  std::string top;
  int best = 0;
  for (const auto& [signature, count] : t.signatures) {
    if (count > best) best = count, top = signature;
  }
  if (!top.empty()) absl::StrAppend(&out, " (", top, ")");
  return out;
}

}  // namespace

std::string ProbeCell(const ProbeRecord& probe) {
  std::string out = ProbeOutcomeCell(probe);
  const int retried = probe.tally.infra_retried;
  if (retried > 0) absl::StrAppend(&out, "; ", retried, retried == 1 ? " infra attempt" : " infra attempts", " retried");
  return out;
}

void SetSeenFailing(ReproArm& arm, const ProbeTally& tally) {
  arm.seen_failed = tally.hunted + tally.others;
  arm.seen_trials = tally.trials;
}

std::string RenderBisectMarkdown(const BisectConfig& config, const BisectResult& result,
                                 const BisectContext& context) {
  std::string md = RenderBugReport(config, result, context);
  absl::StrAppend(&md, "## Harness details\n\n", "Bisect over ", context.version_axis, ": ",
                  LabelOf(config, config.good), " (good) .. ", LabelOf(config, config.bad), " (bad)\n\n");
  if (result.status == BisectStatus::kFound) {
    const bool fix = result.find == BisectFind::kFix;
    const std::string failing = Code(LabelOf(config, result.answer.first_bad));
    const std::string passing = Code(LabelOf(config, result.answer.last_good));
    if (fix) {
      absl::StrAppend(&md, "**First good (the fix): ", passing, "** · last bad: ", failing);
    } else {
      absl::StrAppend(&md, "**First bad: ", failing, "** · last good: ", passing);
    }
    if (result.answer.unclassified.empty()) {
      absl::StrAppend(&md, " · nothing unclassified between them\n\n");
    } else {
      std::vector<std::string> labels;
      for (int i : result.answer.unclassified) labels.push_back(Code(LabelOf(config, i)));
      absl::StrAppend(&md, " · could not be classified between them: ", absl::StrJoin(labels, ", "),
                      " (the change is in ", fix ? failing : passing, "..", fix ? passing : failing, ")\n\n");
    }
    for (const auto& [good, bad] : result.answer.contradictions) {
      absl::StrAppend(&md, "> Not monotone: ", Code(LabelOf(config, good)), " is good after the first bad ",
                      Code(LabelOf(config, bad)), ".\n\n");
    }
  } else {
    absl::StrAppend(&md, "**No answer: ", Cell(result.message), "**\n\n");
  }
  absl::StrAppend(&md, "- Hunted: ", result.hunt.empty() ? "(unresolved)" : Code(result.hunt), "\n");
  if (!context.perf_hunt.empty()) absl::StrAppend(&md, "- Perf hunt: ", context.perf_hunt, "\n");
  absl::StrAppend(&md, "- Scenario: ", Code(context.scenario),
                  context.points.empty() ? "" : absl::StrCat(", points ", Code(context.points)), "\n");
  absl::StrAppend(&md, "- Matrix: ", Code(context.matrix),
                  context.cell.empty() ? "" : absl::StrCat(", cell ", Code(context.cell)), "\n");
  absl::StrAppend(&md, "- Trials per probe: SPRT ", config.sprt.ToString(), "\n");
  absl::StrAppend(&md, "- Trial economy: ", result.economy.ToString(), "\n");
  const int ends = static_cast<int>(std::count_if(result.probes.begin(), result.probes.end(),
                                                  [](const ProbeRecord& p) { return p.round == 0; }));
  absl::StrAppend(&md, "- Probes: ", result.probes.size(), " (", result.probes.size() - ends,
                  " after the ends) in ", result.rounds, " round", result.rounds == 1 ? "" : "s",
                  " of up to ", config.jobs, " at once; ", result.total_trials, " trials\n");
  if (!context.excluded.empty()) {
    absl::StrAppend(&md, "- Excluded by the matrix for this cell: ", absl::StrJoin(context.excluded, ", "), "\n");
  }
  for (const std::string& script : context.repro_scripts) {
    absl::StrAppend(&md, "- Repro: ", Code(script), "\n");
  }
  absl::StrAppend(&md, "\n### Probes\n\n",
                  "| # | round | version | verdict | trials | pass | hunted | other | skip | signatures |\n",
                  "|---|---|---|---|---|---|---|---|---|---|\n");
  int n = 0;
  for (const ProbeRecord& p : result.probes) {
    const ProbeTally& t = p.tally;
    std::string signatures = t.Unrunnable().empty() ? Signatures(t) : t.Unrunnable();
    absl::StrAppend(&md, "| ", ++n, " | ", RoundName(p.round), " | ", Cell(p.label), " | ", Verdict(t), " | ",
                    t.trials, " | ", t.passes, " | ", t.hunted, " | ", t.others, " | ", t.skips, " | ",
                    Cell(signatures), " |\n");
  }
  absl::StrAppend(&md, "\n### Versions in order\n\n| ", Cell(context.version_axis), " | result | verdict |\n|---|---|---|\n");
  std::map<int, const ProbeRecord*> by_version;
  for (const ProbeRecord& p : result.probes) by_version[p.version] = &p;
  for (const auto& [version, probe] : by_version) {
    std::string verdict = Verdict(probe->tally);
    const bool fix = result.find == BisectFind::kFix;
    if (result.status == BisectStatus::kFound && version == result.answer.first_bad) {
      verdict += fix ? " · last bad" : " · **first bad**";
    }
    if (result.status == BisectStatus::kFound && version == result.answer.last_good) {
      verdict += fix ? " · **first good (the fix)**" : " · last good";
    }
    absl::StrAppend(&md, "| ", Cell(probe->label), " | ", Cell(ProbeCell(*probe)), " | ", verdict, " |\n");
  }
  return md;
}

nlohmann::json BisectSummaryJson(const BisectConfig& config, const BisectResult& result,
                                 const BisectContext& context) {
  nlohmann::json probes = nlohmann::json::array();
  for (const ProbeRecord& p : result.probes) {
    nlohmann::json trials = nlohmann::json::array();
    for (const TrialResult& t : p.trials) trials.push_back(TrialResultToJson(t));
    probes.push_back({{"version", p.label},
                      {"index", p.version},
                      {"round", p.round},
                      {"verdict", std::string(ProbeVerdictName(p.tally.verdict))},
                      {"truncated", p.tally.truncated},
                      {"trials", p.tally.trials},
                      {"passes", p.tally.passes},
                      {"hunted", p.tally.hunted},
                      {"others", p.tally.others},
                      {"skips", p.tally.skips},
                      {"signatures", p.tally.signatures},
                      {"setup_failure", p.tally.setup_failure},
                      {"infra_failure", p.tally.infra_failure},
                      {"infra_retried", p.tally.infra_retried},
                      {"llr", p.tally.llr},
                      {"trial_results", trials}});
  }
  nlohmann::json answer = nullptr;
  if (result.status == BisectStatus::kFound) {
    std::vector<std::string> unclassified;
    for (int i : result.answer.unclassified) unclassified.push_back(LabelOf(config, i));
    nlohmann::json contradictions = nlohmann::json::array();
    for (const auto& [good, bad] : result.answer.contradictions) {
      contradictions.push_back({{"good", LabelOf(config, good)}, {"first_bad", LabelOf(config, bad)}});
    }
    if (result.find == BisectFind::kFix) {
      answer = {{"first_good", LabelOf(config, result.answer.last_good)},
                {"last_bad", LabelOf(config, result.answer.first_bad)}};
    } else {
      answer = {{"first_bad", LabelOf(config, result.answer.first_bad)},
                {"last_good", LabelOf(config, result.answer.last_good)}};
    }
    answer["unclassified"] = unclassified;
    answer["contradictions"] = contradictions;
  }
  const BisectEconomy& e = result.economy;
  nlohmann::json summary = {{"kind", "bisect"},
          {"schema_version", 1},
          {"find", std::string(BisectFindName(result.find))},
          {"economy", {{"text", e.ToString()},
                       {"bad_end_runs", e.bad_end_runs},
                       {"bad_end_hunted", e.bad_end_hunted},
                       {"deterministic", e.deterministic},
                       {"pooled", e.pooled},
                       {"probe_sprt", e.probe_sprt.ToString()},
                       {"confidence", e.confidence}}},
          {"status", std::string(BisectStatusName(result.status))},
          {"message", result.message},
          {"matrix", context.matrix},
          {"scenario", context.scenario},
          {"points", context.points},
          {"cell", context.cell},
          {"version_axis", context.version_axis},
          {"versions", config.versions},
          {"excluded", context.excluded},
          {"good", LabelOf(config, config.good)},
          {"bad", LabelOf(config, config.bad)},
          {"jobs", config.jobs},
          {"hunt", {{"text", result.hunt},
                    {"outcome", std::string(OutcomeName(result.hunt_outcome))},
                    {"signature", result.hunt_signature},
                    {"other_as_bad", config.hunt.other_as_bad}}},
          {"sprt", {{"p_good", config.sprt.p_good}, {"p_bad", config.sprt.p_bad}, {"alpha", config.sprt.alpha},
                    {"beta", config.sprt.beta}, {"min_trials", config.sprt.min_trials},
                    {"max_trials", config.sprt.max_trials}}},
          {"answer", answer},
          {"rounds", result.rounds},
          {"total_trials", result.total_trials},
          {"probes", probes},
          {"repro_scripts", context.repro_scripts}};
  if (!context.perf_hunt.empty()) summary["perf_hunt"] = context.perf_hunt;
  return summary;
}

std::vector<FailureLine> ProbeFailureLines(const std::vector<ProbeRecord>& probes, const std::string& axis,
                                           const Hunt* hunt) {
  std::vector<FailureLine> lines;
  for (const ProbeRecord& probe : probes) {
    const std::string cell = axis.empty() ? probe.label : absl::StrCat(axis, "=", probe.label);
    // (point, outcome, signature) -> trials, in order of first appearance.
    std::vector<std::tuple<std::string, Outcome, std::string>> order;
    std::map<std::tuple<std::string, Outcome, std::string>, std::pair<int, bool>> seen;  // count, hunted
    bool setup_reported = false;
    for (const TrialResult& trial : probe.trials) {
      if (trial.setup_failed) {
        if (setup_reported) continue;
        setup_reported = true;
        lines.push_back({.outcome = Outcome::kError, .infrastructure = true, .cell = cell, .point = "(set-up)",
                         .detail = absl::StrCat("set-up failed: ", trial.detail)});
        continue;
      }
      if (trial.outcome == Outcome::kPass || trial.outcome == Outcome::kSkip) continue;
      auto key = std::make_tuple(trial.point, trial.outcome, trial.signature);
      auto [it, inserted] = seen.try_emplace(key, 0, false);
      if (inserted) order.push_back(key);
      ++it->second.first;
      it->second.second = hunt != nullptr && hunt->Classify(trial) == Hunt::TrialClass::kHunted;
    }
    for (const auto& key : order) {
      const auto& [point, outcome, signature] = key;
      const auto& [count, hunted] = seen[key];
      const std::string what = OutcomeAndSignature(outcome, signature);
      lines.push_back({.outcome = outcome, .cell = cell, .point = point.empty() ? "(no point)" : point,
                       .detail = absl::StrCat(what, " (", count, "/", probe.trials.size(), " trials",
                                              hunted ? "; the hunted failure" : "", ")")});
    }
  }
  return lines;
}

}  // namespace gh
