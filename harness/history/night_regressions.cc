#include "harness/history/night_regressions.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "harness/core/comparison.h"
#include "harness/core/state_json.h"
#include "harness/core/status_macros.h"
#include "harness/history/history_findings.h"
#include "harness/history/history_ingest.h"
#include "harness/history/history_text.h"
#include "harness/history/nightly_json.h"
#include "harness/report/results_dir.h"

namespace gh {
namespace {

// The most severe outcome among trials that ran (infra is no verdict).
std::string WorstJudged(const PointTrials& t) {
  Outcome worst = Outcome::kPass;
  for (const auto& [outcome, count] : t.outcome_counts) {
    if (outcome != Outcome::kInfra && count > 0 && outcome > worst) worst = outcome;
  }
  return std::string(OutcomeName(worst));
}

std::string VersionLabel(const std::map<std::string, std::string>& cell, const std::set<std::string>& axes) {
  for (const auto& [axis, label] : cell) {
    if (axes.count(axis)) return label;
  }
  return "";
}

}  // namespace

nlohmann::json NightRegressions::ToJson() const {
  nlohmann::json list = nlohmann::json::array();
  for (const NightRegression& r : regressions) {
    list.push_back({{"point", r.point},
                    {"cell", r.cell},
                    {"cell_arg", r.cell_arg},
                    {"baseline", "pass"},
                    {"now", r.now},
                    {"failed_trials", r.failed_trials},
                    {"trials", r.trials},
                    {"signature", r.signature},
                    {"version", r.version},
                    {"baseline_version", r.baseline_version},
                    {"new", r.is_new}});
  }
  return {{"schema_version", kRegressionsJsonSchemaVersion},
          {"matrix", matrix},
          {"version_axis", version_axes},
          {"regressions", list}};
}

absl::StatusOr<NightRegressions> NightRegressions::FromJson(const nlohmann::json& json, const std::string& file) {
  const StateJson root(json, file);
  GH_RETURN_IF_ERROR(root.ExpectObject());
  GH_RETURN_IF_ERROR(CheckSchemaVersion(root, kRegressionsJsonSchemaVersion));
  NightRegressions out;
  GH_ASSIGN_OR_RETURN(out.matrix, root.StringOr("matrix", ""));
  GH_ASSIGN_OR_RETURN(out.version_axes, root.StringListOrEmpty("version_axis"));
  GH_ASSIGN_OR_RETURN(std::vector<StateJson> items, root.Array("regressions"));
  for (const StateJson& item : items) {
    NightRegression r;
    GH_RETURN_IF_ERROR(item.ExpectObject());
    GH_ASSIGN_OR_RETURN(r.point, item.String("point"));
    GH_ASSIGN_OR_RETURN(r.cell, item.StringMapOrEmpty("cell"));
    GH_ASSIGN_OR_RETURN(r.cell_arg, item.String("cell_arg"));
    GH_ASSIGN_OR_RETURN(r.now, item.String("now"));
    GH_ASSIGN_OR_RETURN(int64_t failed, item.Int("failed_trials"));
    GH_ASSIGN_OR_RETURN(int64_t trials, item.Int("trials"));
    r.failed_trials = static_cast<int>(failed);
    r.trials = static_cast<int>(trials);
    GH_ASSIGN_OR_RETURN(r.signature, item.StringOr("signature", ""));
    GH_ASSIGN_OR_RETURN(r.version, item.StringOr("version", ""));
    GH_ASSIGN_OR_RETURN(r.baseline_version, item.StringOr("baseline_version", ""));
    GH_ASSIGN_OR_RETURN(r.is_new, item.Bool("new"));
    out.regressions.push_back(std::move(r));
  }
  return out;
}

absl::StatusOr<NightRegressions> FindNightRegressions(const std::string& night_dir, const std::string& baseline_dir,
                                                      const std::vector<PointHistory>& histories,
                                                      const std::string& night) {
  GH_ASSIGN_OR_RETURN(const IngestSource now_source, ReadSweepSource(night_dir));
  GH_ASSIGN_OR_RETURN(const IngestSource base_source, ReadSweepSource(baseline_dir));
  GH_ASSIGN_OR_RETURN(const ResultsDir now, LoadResultsDir(night_dir));
  GH_ASSIGN_OR_RETURN(const ResultsDir base, LoadResultsDir(baseline_dir));
  BaselineMatch match;
  match.ignore_axes = now_source.version_axes;
  match.ignore_axes.insert(base_source.version_axes.begin(), base_source.version_axes.end());
  GH_RETURN_IF_ERROR(CheckBaselineMatch(now.records, match, night_dir + "/records.jsonl"));
  GH_RETURN_IF_ERROR(CheckBaselineMatch(base.records, match, baseline_dir + "/records.jsonl"));
  const Comparison comparison = CompareResults(now.records, &base.records, match);

  std::set<HistoryPointKey> turned;  // series that turned to a failure on `night`
  for (const Flip& f : FindFlips(histories, night)) {
    if (f.key.matrix == now_source.matrix && IsFailure(f.to) && !IsFailure(f.from)) turned.insert(f.key);
  }
  NightRegressions out;
  out.matrix = now_source.matrix;
  out.version_axes.assign(match.ignore_axes.begin(), match.ignore_axes.end());
  for (const ResultsDir* dir : {&now, &base}) {
    if (dir->torn_lines > 0) {
      out.warnings.push_back(TornLinesWarning(dir->path + "/records.jsonl", dir->torn_lines));
    }
  }
  for (const PointComparison& p : comparison.points) {
    if (p.change != BaselineChange::kRegression || !p.now || !p.baseline) continue;
    NightRegression r;
    r.point = p.key.point;
    for (const auto& [axis, label] : p.now->cell) {
      if (!match.ignore_axes.count(axis)) r.cell[axis] = label;
    }
    r.cell_arg = CellKey(r.cell);
    r.now = WorstJudged(*p.now);
    r.failed_trials = p.now->judged_failures();
    r.trials = p.now->trials;
    r.signature = p.now->first_failure_signature;
    r.version = VersionLabel(p.now->cell, match.ignore_axes);
    r.baseline_version = VersionLabel(p.baseline->cell, match.ignore_axes);
    if (!night.empty()) {
      // The series of a version matrix carry their version; the nightly's carry none.
      r.is_new = turned.count({out.matrix, r.cell_arg, r.point, ""}) > 0 ||
                 turned.count({out.matrix, r.cell_arg, r.point, r.version}) > 0;
    }
    out.regressions.push_back(std::move(r));
  }
  return out;
}

}  // namespace gh
