#include "harness/bisect/repro_finder.h"

#include <filesystem>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/core/file_util.h"
#include "harness/core/point.h"
#include "harness/core/records_file.h"
#include "harness/driver/cell_plan.h"
#include "harness/report/sweep_info.h"
#include "nlohmann/json.hpp"

namespace gh {

namespace {

namespace fs = std::filesystem;

absl::StatusOr<nlohmann::json> ReadJson(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return absl::InvalidArgumentError(text.status().message());
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded()) return absl::InvalidArgumentError(absl::StrCat(path, ": not valid JSON"));
  return j;
}

std::string Observed(const nlohmann::json& trial) {
  const std::string outcome = trial.value("outcome", "");
  return outcome == "pass" ? "pass" : absl::StrCat(outcome, ": ", trial.value("signature", ""));
}

// The arm of one probe trial recorded in a bisect's or minimize's summary.json.
absl::StatusOr<ReproArm> ArmOfTrial(const nlohmann::json& trial, const std::string& name, const std::string& title) {
  const std::string job_path = trial.value("detail", "") + "/job.json";
  absl::StatusOr<nlohmann::json> job = ReadJson(job_path);
  if (!job.ok()) return job.status();
  absl::StatusOr<ReproArm> arm = ReproArmFromJobJson(*job, job_path);
  if (!arm.ok()) return arm.status();
  arm->name = name;
  arm->title = title;
  arm->observed = Observed(trial);
  return arm;
}

// The first trial of `probe` that ran `point` (or any point) and passed / did not pass.
const nlohmann::json* TrialOf(const nlohmann::json& probe, const std::string& point, bool passed) {
  if (!probe.contains("trial_results")) return nullptr;
  for (const nlohmann::json& t : probe["trial_results"]) {
    if (t.value("setup_failed", false)) continue;
    const std::string p = t.value("point", "");
    if (!p.empty() && p != point) continue;
    if ((t.value("outcome", "") == "pass") == passed) return &t;
  }
  return nullptr;
}

const nlohmann::json* ProbeWhere(const nlohmann::json& summary, const char* key, const std::string& value) {
  for (const nlohmann::json& p : summary["probes"]) {
    if (p.value(key, "") == value) return &p;
  }
  return nullptr;
}

absl::StatusOr<ReproArms> FromBisect(const std::string& dir, const nlohmann::json& summary, const std::string& point) {
  if (summary.value("status", "") != "found" || !summary["answer"].is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(dir, ": the bisect found no first bad version: ",
                                                   summary.value("message", "")));
  }
  const std::string axis = summary.value("version_axis", "version");
  const std::string bad = summary["answer"].value("first_bad", "");
  const std::string good = summary["answer"].value("last_good", "");
  const nlohmann::json* bad_probe = ProbeWhere(summary, "version", bad);
  const nlohmann::json* good_probe = ProbeWhere(summary, "version", good);
  const nlohmann::json* bad_trial = bad_probe ? TrialOf(*bad_probe, point, false) : nullptr;
  if (bad_trial == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("POINT: no failing trial of '", point, "' on the first bad version ",
                                                   bad, " in ", dir, "/summary.json"));
  }
  ReproArms arms;
  arms.kind = "bisect";
  arms.source = absl::StrCat("the bisect in ", dir);
  absl::StatusOr<ReproArm> failing = ArmOfTrial(*bad_trial, "failing", absl::StrCat(axis, "=", bad, " (first bad)"));
  if (!failing.ok()) return failing.status();
  arms.failing = *failing;
  if (const nlohmann::json* good_trial = good_probe ? TrialOf(*good_probe, point, true) : nullptr) {
    absl::StatusOr<ReproArm> working =
        ArmOfTrial(*good_trial, "workaround", absl::StrCat(axis, "=", good, " (last good)"));
    if (!working.ok()) return working.status();
    arms.workaround = *working;
  }
  return arms;
}

absl::StatusOr<ReproArms> FromMinimize(const std::string& dir, const nlohmann::json& summary, const std::string& point) {
  const nlohmann::json* failing_probe = ProbeWhere(summary, "configuration", "failing");
  const nlohmann::json* failing_trial = failing_probe ? TrialOf(*failing_probe, point, false) : nullptr;
  if (failing_trial == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("POINT: no failing trial of '", point, "' on the failing cell in ",
                                                   dir, "/summary.json"));
  }
  ReproArms arms;
  arms.kind = "minimize";
  arms.source = absl::StrCat("the minimize in ", dir);
  absl::StatusOr<ReproArm> failing =
      ArmOfTrial(*failing_trial, "failing", absl::StrCat(summary.value("failing", ""), " (failing cell)"));
  if (!failing.ok()) return failing.status();
  arms.failing = *failing;
  if (summary.value("workaround_verified", false)) {
    const nlohmann::json* workaround = nullptr;
    for (const nlohmann::json& p : summary["probes"]) {
      if (p.value("configuration", "").rfind("failing with ", 0) == 0) workaround = &p;
    }
    if (const nlohmann::json* trial = workaround ? TrialOf(*workaround, point, true) : nullptr) {
      absl::StatusOr<ReproArm> arm = ArmOfTrial(
          *trial, "workaround", absl::StrCat(summary.value("failing", ""), " with ", summary.value("workaround", "")));
      if (!arm.ok()) return arm.status();
      arms.workaround = *arm;
    }
  }
  return arms;
}

// A sweep cell's job that ran `point`, as an arm.
absl::StatusOr<ReproArm> ArmOfCell(const std::string& dir, const std::map<std::string, std::string>& labels,
                                   const std::string& version_axis, const std::string& point) {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir + "/cells", ec)) {
    const std::string path = entry.path().string() + "/cell.json";
    absl::StatusOr<nlohmann::json> cell = ReadJson(path);
    if (!cell.ok()) continue;
    std::map<std::string, std::string> have;
    if (cell->contains("labels") && (*cell)["labels"].is_object()) {
      for (const auto& [k, v] : (*cell)["labels"].items()) {
        if (v.is_string()) have[k] = v.get<std::string>();
      }
    }
    if (have != labels || !cell->contains("jobs") || !(*cell)["jobs"].is_array()) continue;
    for (const nlohmann::json& job : (*cell)["jobs"]) {
      // The job whose --filter admits the point (or that has none).
      bool admits = true;
      if (job.contains("argv") && job["argv"].is_array()) {
        for (size_t i = 0; i + 1 < job["argv"].size(); ++i) {
          if (job["argv"][i] == "--filter" && job["argv"][i + 1].is_string()) {
            admits = PointNameMatches(job["argv"][i + 1].get<std::string>(), point);
          }
        }
      }
      if (!admits) continue;
      absl::StatusOr<ReproArm> arm = ReproArmFromJobJson(job, path);
      if (!arm.ok()) return arm.status();
      arm->cwd = entry.path().string();
      if (auto it = labels.find(version_axis); !version_axis.empty() && it != labels.end()) {
        arm->version = it->second;
        arm->version_dir = absl::StrCat(dir, "/versions/", driver::SafeDirName(it->second));
        absl::StatusOr<nlohmann::json> setup = ReadJson(arm->version_dir + "/setup.json");
        if (setup.ok()) arm->setup = setup->value("command", "");
      }
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
  if (absl::StatusOr<nlohmann::json> sweep = ReadJson(dir + "/sweep.json"); sweep.ok()) {
    absl::StatusOr<SweepInfo> info = SweepInfo::FromJson(*sweep);
    if (info.ok()) {
      for (const SweepAxisInfo& axis : info->axes) {
        if (axis.is_version) version_axis = axis.name;
      }
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
    absl::StatusOr<nlohmann::json> summary = ReadJson(dir + "/summary.json");
    if (!summary.ok()) return summary.status();
    const std::string kind = summary->is_object() ? summary->value("kind", "") : "";
    if (kind == "bisect" || kind == "minimize") {
      if (!(*summary)["probes"].is_array()) {
        return absl::InvalidArgumentError(absl::StrCat(dir, "/summary.json: probes: missing or not a list"));
      }
      return kind == "bisect" ? FromBisect(dir, *summary, point) : FromMinimize(dir, *summary, point);
    }
  }
  if (fs::exists(dir + "/records.jsonl", ec)) return FromSweep(dir, point);
  return absl::InvalidArgumentError(absl::StrCat(
      dir, ": not a results directory (no records.jsonl, and no summary.json of a bisect or minimize)"));
}

}  // namespace gh
