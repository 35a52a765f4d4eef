#include "harness/bisect/repro_finder.h"

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/core/failure_family.h"
#include "harness/core/file_util.h"
#include "harness/core/point.h"
#include "harness/core/path_under.h"
#include "harness/core/point_filter.h"
#include "harness/core/records_file.h"
#include "harness/core/state_json.h"
#include "harness/core/status_macros.h"
#include "harness/report/sweep_info.h"
#include "nlohmann/json.hpp"

namespace gh {

namespace {

namespace fs = std::filesystem;

// A state file, parsed; every failure is bad input (exit 2) naming the file.
absl::StatusOr<nlohmann::json> ReadStateJson(const std::string& path) {
  absl::StatusOr<nlohmann::json> j = ParseStateFile(path);
  if (!j.ok()) return absl::InvalidArgumentError(j.status().message());
  return j;
}

// The script runs from anywhere: a repro of a relative DIR names every place absolutely.
void MakeAbsolute(ReproArm& arm) {
  if (!arm.cwd.empty()) arm.cwd = AbsolutePath(arm.cwd);
  if (!arm.version_dir.empty()) arm.version_dir = AbsolutePath(arm.version_dir);
}

// "outcome: signature" of a probe trial ("pass" alone).
absl::StatusOr<std::string> Observed(const StateJson& trial) {
  GH_ASSIGN_OR_RETURN(std::string outcome, trial.StringOr("outcome", ""));
  GH_ASSIGN_OR_RETURN(std::string signature, trial.StringOr("signature", ""));
  return outcome == "pass" ? outcome : absl::StrCat(outcome, ": ", signature);
}

// The family of a recorded trial's failure (its outcome, signature and "where"); none for a pass.
absl::StatusOr<std::optional<FailureFamily>> FamilyOfTrial(const StateJson& trial) {
  GH_ASSIGN_OR_RETURN(std::string name, trial.StringOr("outcome", ""));
  GH_ASSIGN_OR_RETURN(std::string signature, trial.StringOr("signature", ""));
  GH_ASSIGN_OR_RETURN(std::string where, trial.StringOr("where", ""));
  if (name.empty()) return std::optional<FailureFamily>();
  absl::StatusOr<Outcome> outcome = ParseOutcome(name);
  if (!outcome.ok()) return trial.ErrorAt("outcome", outcome.status().message());
  if (*outcome == Outcome::kPass || *outcome == Outcome::kSkip) return std::optional<FailureFamily>();
  return std::optional<FailureFamily>(FailureFamilyOf(*outcome, signature, where));
}

// The arm of one probe trial recorded in a bisect's or minimize's summary.json.
absl::StatusOr<ReproArm> ArmOfTrial(const StateJson& trial, const std::string& name, const std::string& title) {
  GH_ASSIGN_OR_RETURN(std::string detail, trial.String("detail"));
  const std::string job_path = AbsolutePath(detail + "/job.json");
  GH_ASSIGN_OR_RETURN(nlohmann::json job, ReadStateJson(job_path));
  GH_ASSIGN_OR_RETURN(std::string point, trial.StringOr("point", ""));
  GH_ASSIGN_OR_RETURN(ReproArm arm, ReproArmFromJobJson(StateJson(job, job_path), point));
  arm.name = name;
  arm.title = title;
  GH_ASSIGN_OR_RETURN(arm.observed, Observed(trial));
  GH_ASSIGN_OR_RETURN(arm.family, FamilyOfTrial(trial));
  MakeAbsolute(arm);
  return arm;
}

// The first trial of `probe` that ran `point` (or any point) and passed / did not pass.
absl::StatusOr<std::optional<StateJson>> TrialOf(const StateJson& probe, const std::string& point, bool passed) {
  GH_ASSIGN_OR_RETURN(std::vector<StateJson> trials, probe.ArrayOrEmpty("trial_results"));
  for (const StateJson& t : trials) {
    GH_ASSIGN_OR_RETURN(bool setup_failed, t.BoolOr("setup_failed", false));
    if (setup_failed) continue;
    GH_ASSIGN_OR_RETURN(std::string p, t.StringOr("point", ""));
    if (!p.empty() && p != point) continue;
    GH_ASSIGN_OR_RETURN(std::string outcome, t.StringOr("outcome", ""));
    if ((outcome == "pass") == passed) return std::optional<StateJson>(t);
  }
  return std::optional<StateJson>();
}

// The first probe whose `key` is wanted (with `last`, the last one).
absl::StatusOr<std::optional<StateJson>> ProbeWhere(const std::vector<StateJson>& probes, const char* key,
                                                    const std::function<bool(const std::string&)>& wanted,
                                                    bool last = false) {
  std::optional<StateJson> found;
  for (const StateJson& p : probes) {
    GH_ASSIGN_OR_RETURN(std::string v, p.StringOr(key, ""));
    if (!wanted(v)) continue;
    found = p;
    if (!last) break;
  }
  return found;
}

absl::StatusOr<std::optional<StateJson>> TrialOfProbe(const std::vector<StateJson>& probes, const char* key,
                                                      const std::string& value, const std::string& point,
                                                      bool passed) {
  GH_ASSIGN_OR_RETURN(std::optional<StateJson> probe,
                      ProbeWhere(probes, key, [&](const std::string& v) { return v == value; }));
  if (!probe) return std::optional<StateJson>();
  return TrialOf(*probe, point, passed);
}

absl::StatusOr<ReproArms> FromBisect(const std::string& dir, const StateJson& summary,
                                     const std::vector<StateJson>& probes, const std::string& point) {
  GH_ASSIGN_OR_RETURN(std::string status, summary.StringOr("status", ""));
  if (status != "found" || !summary.Has("answer")) {
    GH_ASSIGN_OR_RETURN(std::string message, summary.StringOr("message", ""));
    return absl::InvalidArgumentError(absl::StrCat(dir, ": the bisect found no first bad version: ", message));
  }
  GH_ASSIGN_OR_RETURN(StateJson answer, summary.Field("answer"));
  GH_ASSIGN_OR_RETURN(std::string axis, summary.StringOr("version_axis", "version"));
  // A fix bisect (--find fix): the failing arm is the last bad version, the workaround the fix.
  const bool fix = answer.Has("first_good");
  GH_ASSIGN_OR_RETURN(std::string bad, answer.StringOr(fix ? "last_bad" : "first_bad", ""));
  GH_ASSIGN_OR_RETURN(std::string good, answer.StringOr(fix ? "first_good" : "last_good", ""));
  const std::string bad_role = fix ? " (last bad)" : " (first bad)";
  const std::string good_role = fix ? " (first good, the fix)" : " (last good)";
  GH_ASSIGN_OR_RETURN(std::optional<StateJson> bad_trial, TrialOfProbe(probes, "version", bad, point, false));
  if (!bad_trial) {
    return absl::InvalidArgumentError(absl::StrCat("POINT: no failing trial of '", point, "' on the first bad version ",
                                                   bad, " in ", dir, "/summary.json"));
  }
  ReproArms arms;
  arms.kind = "bisect";
  // How often the bisect saw each arm's version fail (a probe's "hunted" and "others" counts).
  auto seen = [&](const std::string& version, ReproArm& arm) -> absl::Status {
    GH_ASSIGN_OR_RETURN(std::optional<StateJson> probe,
                        ProbeWhere(probes, "version", [&](const std::string& v) { return v == version; }));
    if (!probe) return absl::OkStatus();
    GH_ASSIGN_OR_RETURN(int64_t hunted, probe->IntOr("hunted", 0));
    GH_ASSIGN_OR_RETURN(int64_t others, probe->IntOr("others", 0));
    GH_ASSIGN_OR_RETURN(int64_t trials, probe->IntOr("trials", 0));
    arm.seen_failed = static_cast<int>(hunted + others);
    arm.seen_trials = static_cast<int>(trials);
    return absl::OkStatus();
  };
  arms.source = absl::StrCat("the bisect in ", dir);
  GH_ASSIGN_OR_RETURN(arms.failing, ArmOfTrial(*bad_trial, "failing", absl::StrCat(axis, "=", bad, bad_role)));
  GH_RETURN_IF_ERROR(seen(bad, arms.failing));
  GH_ASSIGN_OR_RETURN(std::optional<StateJson> good_trial, TrialOfProbe(probes, "version", good, point, true));
  if (good_trial) {
    GH_ASSIGN_OR_RETURN(arms.workaround,
                        ArmOfTrial(*good_trial, "workaround", absl::StrCat(axis, "=", good, good_role)));
    GH_RETURN_IF_ERROR(seen(good, *arms.workaround));
  }
  return arms;
}

absl::StatusOr<ReproArms> FromMinimize(const std::string& dir, const StateJson& summary,
                                       const std::vector<StateJson>& probes, const std::string& point) {
  GH_ASSIGN_OR_RETURN(std::optional<StateJson> failing_trial,
                      TrialOfProbe(probes, "configuration", "failing", point, false));
  if (!failing_trial) {
    return absl::InvalidArgumentError(absl::StrCat("POINT: no failing trial of '", point, "' on the failing cell in ",
                                                   dir, "/summary.json"));
  }
  GH_ASSIGN_OR_RETURN(std::string failing, summary.StringOr("failing", ""));
  ReproArms arms;
  arms.kind = "minimize";
  arms.source = absl::StrCat("the minimize in ", dir);
  GH_ASSIGN_OR_RETURN(arms.failing, ArmOfTrial(*failing_trial, "failing", absl::StrCat(failing, " (failing cell)")));
  GH_ASSIGN_OR_RETURN(bool verified, summary.BoolOr("workaround_verified", false));
  if (!verified) return arms;
  GH_ASSIGN_OR_RETURN(std::optional<StateJson> workaround,
                      ProbeWhere(probes, "configuration",
                                 [](const std::string& v) { return v.rfind("failing with ", 0) == 0; },
                                 /*last=*/true));
  if (!workaround) return arms;
  GH_ASSIGN_OR_RETURN(std::optional<StateJson> trial, TrialOf(*workaround, point, true));
  if (trial) {
    GH_ASSIGN_OR_RETURN(std::string change, summary.StringOr("workaround", ""));
    GH_ASSIGN_OR_RETURN(arms.workaround, ArmOfTrial(*trial, "workaround", absl::StrCat(failing, " with ", change)));
  }
  return arms;
}

// Whether a cell.json job's --filter admits the point (a job without one admits every point).
absl::StatusOr<bool> JobAdmits(const StateJson& job, const std::string& point) {
  GH_ASSIGN_OR_RETURN(std::vector<std::string> argv, job.StringListOrEmpty("argv"));
  bool admits = true;
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == "--filter") admits = PointNameMatches(argv[i + 1], point);
  }
  return admits;
}

// A sweep cell's job that ran `point`, as an arm.
absl::StatusOr<ReproArm> ArmOfCell(const std::string& dir, const std::map<std::string, std::string>& labels,
                                   const std::string& version_axis, const std::string& point) {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir + "/cells", ec)) {
    const std::string path = entry.path().string() + "/cell.json";
    if (!fs::exists(path, ec)) continue;
    GH_ASSIGN_OR_RETURN(nlohmann::json cell_json, ReadStateJson(path));
    const StateJson cell(cell_json, path);
    GH_ASSIGN_OR_RETURN(auto have, cell.StringMapOrEmpty("labels"));
    if (have != labels || !cell.Has("jobs")) continue;
    GH_ASSIGN_OR_RETURN(std::vector<StateJson> jobs, cell.Array("jobs"));
    for (const StateJson& job : jobs) {
      GH_ASSIGN_OR_RETURN(bool admits, JobAdmits(job, point));
      if (!admits) continue;
      GH_ASSIGN_OR_RETURN(ReproArm arm, ReproArmFromJobJson(job));
      arm.cwd = entry.path().string();
      if (auto it = labels.find(version_axis); !version_axis.empty() && it != labels.end()) {
        arm.version = it->second;
        arm.version_dir = absl::StrCat(dir, "/versions/", SafeDirName(it->second));
        const std::string setup_path = arm.version_dir + "/setup.json";
        if (fs::exists(setup_path, ec)) {
          GH_ASSIGN_OR_RETURN(nlohmann::json setup, ReadStateJson(setup_path));
          GH_ASSIGN_OR_RETURN(arm.setup, StateJson(setup, setup_path).StringOr("command", ""));
        }
      }
      MakeAbsolute(arm);
      return arm;
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(dir, "/cells: no cell.json for cell '",
                                                 absl::StrJoin(labels, ",", absl::PairFormatter("=")),
                                                 "' with a job that runs ", point));
}

std::string LabelText(const std::map<std::string, std::string>& labels) {
  return labels.empty() ? std::string("the only cell") : absl::StrJoin(labels, ",", absl::PairFormatter("="));
}

absl::StatusOr<ReproArms> FromSweep(const std::string& dir, const std::string& point) {
  absl::StatusOr<RecordsFileContents> records = ReadRecordsFile(dir + "/records.jsonl");
  if (!records.ok()) return absl::InvalidArgumentError(records.status().message());
  std::string version_axis;
  std::error_code ec;
  if (const std::string path = dir + "/sweep.json"; fs::exists(path, ec)) {
    GH_ASSIGN_OR_RETURN(nlohmann::json sweep, ReadStateJson(path));
    absl::StatusOr<SweepInfo> info = SweepInfo::FromJson(sweep);
    if (!info.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", info.status().message()));
    for (const SweepAxisInfo& axis : info->axes) {
      if (axis.is_version) version_axis = axis.name;
    }
  }
  const Record* failing = nullptr;
  int seen = 0;
  for (const Record& r : records->records) {
    if (r.point != point) continue;
    ++seen;
    const bool failed = r.result.outcome != Outcome::kPass && r.result.outcome != Outcome::kSkip;
    if (failed && (failing == nullptr || (failing->matched && !r.matched))) failing = &r;
  }
  if (failing == nullptr) {
    return absl::InvalidArgumentError(
        seen == 0 ? absl::StrCat("POINT: no record of '", point, "' in ", dir, "/records.jsonl")
                  : absl::StrCat("POINT: '", point, "' never failed in ", dir, "/records.jsonl (", seen, " records)"));
  }
  ReproArms arms;
  arms.kind = "sweep";
  arms.source = absl::StrCat("the sweep in ", dir);
  absl::StatusOr<ReproArm> arm = ArmOfCell(dir, failing->cell, version_axis, point);
  if (!arm.ok()) return arm.status();
  arms.failing = *arm;
  arms.failing.name = "failing";
  arms.failing.title = LabelText(failing->cell);
  arms.failing.observed = absl::StrCat(std::string(OutcomeName(failing->result.outcome)), ": ", failing->result.signature);
  arms.failing.family = FailureFamilyOf(failing->result.outcome, failing->result.signature, FailureWhere(failing->result));
  // The workaround: a cell where every trial of the point passed, fewest differing labels.
  std::map<std::map<std::string, std::string>, bool> all_passed;
  std::map<std::map<std::string, std::string>, Outcome> worst;
  for (const Record& r : records->records) {
    if (r.point != point) continue;
    auto [it, inserted] = all_passed.emplace(r.cell, true);
    it->second = it->second && r.result.outcome == Outcome::kPass;
    auto [w, fresh] = worst.emplace(r.cell, r.result.outcome);
    if (r.result.outcome > w->second) w->second = r.result.outcome;
  }
  for (const auto& [labels, outcome] : worst) {
    if (labels != failing->cell) {
      arms.other_cells.push_back(absl::StrCat(LabelText(labels), " (", std::string(OutcomeName(outcome)), ")"));
    }
  }
  const std::map<std::string, std::string>* best = nullptr;
  int best_distance = 1 << 30;
  for (const auto& [labels, passed] : all_passed) {
    if (!passed || labels == failing->cell) continue;
    int distance = 0;
    for (const auto& [axis, label] : failing->cell) {
      auto it = labels.find(axis);
      distance += it == labels.end() || it->second != label;
    }
    if (distance < best_distance) best_distance = distance, best = &labels;
  }
  if (best != nullptr) {
    absl::StatusOr<ReproArm> working = ArmOfCell(dir, *best, version_axis, point);
    if (!working.ok()) return working.status();
    arms.workaround = *working;
    arms.workaround->name = "workaround";
    arms.workaround->title = LabelText(*best);
    arms.workaround->observed = "pass";
  }
  return arms;
}

}  // namespace

absl::StatusOr<ReproArms> FindReproArms(const std::string& dir, const std::string& point) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return absl::InvalidArgumentError(absl::StrCat(dir, ": not a results directory (no such directory)"));
  }
  if (fs::exists(dir + "/summary.json", ec)) {
    const std::string path = dir + "/summary.json";
    GH_ASSIGN_OR_RETURN(nlohmann::json json, ReadStateJson(path));
    const StateJson summary(json, path);
    GH_RETURN_IF_ERROR(summary.ExpectObject());
    GH_ASSIGN_OR_RETURN(std::string kind, summary.StringOr("kind", ""));
    if (kind == "bisect" || kind == "minimize") {
      GH_ASSIGN_OR_RETURN(std::vector<StateJson> probes, summary.Array("probes"));
      for (const StateJson& probe : probes) GH_RETURN_IF_ERROR(probe.ExpectObject());
      return kind == "bisect" ? FromBisect(dir, summary, probes, point) : FromMinimize(dir, summary, probes, point);
    }
  }
  if (fs::exists(dir + "/records.jsonl", ec)) return FromSweep(dir, point);
  return absl::InvalidArgumentError(absl::StrCat(
      dir, ": not a results directory (no records.jsonl, and no summary.json of a bisect or minimize)"));
}

}  // namespace gh
