#include "harness/history/history_queries.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "harness/core/glob.h"
#include "harness/core/outcome.h"
#include "harness/core/status_macros.h"

namespace gh {
namespace {

int Severity(const std::string& outcome) {
  absl::StatusOr<Outcome> o = ParseOutcome(outcome);
  return o.ok() ? static_cast<int>(*o) : -1;
}

bool MatchesAny(const std::vector<std::string>& globs, const std::string& point) {
  if (globs.empty()) return true;
  for (const std::string& glob : globs) {
    if (GlobMatches(glob, point)) return true;
  }
  return false;
}

// The first column of every row `sql` selects, in order.
absl::StatusOr<std::vector<std::string>> FirstColumn(const HistoryDb& db, const std::string& sql) {
  GH_ASSIGN_OR_RETURN(Statement s, Statement::Prepare(db, sql));
  std::vector<std::string> values;
  while (true) {
    GH_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return values;
    values.push_back(s.Text(0));
  }
}

// Matrices where one night holds several versions of one point: their series split by version.
absl::StatusOr<std::set<std::string>> VersionMatrices(const HistoryDb& db) {
  GH_ASSIGN_OR_RETURN(const std::vector<std::string> matrices, FirstColumn(db,
      "SELECT DISTINCT matrix FROM (SELECT matrix FROM results WHERE kind='sweep'"
      " GROUP BY matrix, night, cell, point HAVING count(DISTINCT version) > 1)"));
  return std::set<std::string>(matrices.begin(), matrices.end());
}

}  // namespace

std::string HistoryPointKey::ToString() const {
  return absl::StrCat(matrix, cell.empty() ? "" : absl::StrCat(" [", cell, "]"), " :: ", point,
                      version.empty() ? "" : absl::StrCat(" @ ", version));
}

std::string NightResult::Described() const {
  if (expected.empty()) return verdict;
  if (!unmet && verdict != "pass" && verdict != "skip") return absl::StrCat(verdict, " (expected)");
  if (unmet && expected != "pass") return absl::StrCat(verdict, " (expected ", expected, ")");
  return verdict;
}

bool IsFailure(const std::string& outcome) {
  return outcome == "fail" || outcome == "error" || outcome == "timeout" || outcome == "crash";
}

absl::StatusOr<std::vector<std::string>> Nights(const HistoryDb& db) {
  return FirstColumn(db, "SELECT DISTINCT night FROM results WHERE kind='sweep' ORDER BY night");
}

absl::StatusOr<std::vector<PointHistory>> LoadHistories(const HistoryDb& db,
                                                        const std::vector<std::string>& point_globs) {
  GH_ASSIGN_OR_RETURN(const std::set<std::string> version_matrices, VersionMatrices(db));
  GH_ASSIGN_OR_RETURN(Statement s, Statement::Prepare(db,
      "SELECT r.matrix, r.cell, r.point, r.night, r.version, r.outcome, r.signature, r.matched,"
      " m.name, m.value, m.unit, r.id, r.expected FROM results r LEFT JOIN metrics m ON m.result_id = r.id"
      " WHERE r.kind='sweep'"
      " ORDER BY r.matrix, r.cell, r.point, r.night, r.version, r.trial, r.started_at, r.id, m.name"));
  std::map<HistoryPointKey, std::map<std::string, NightResult>> by_point;
  std::map<std::pair<std::string, std::string>, int> metric_counts;  // (key|night, metric) -> n
  long long last_id = -1;
  while (true) {
    GH_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    const std::string point = s.Text(2);
    if (!MatchesAny(point_globs, point)) continue;
    const std::string matrix = s.Text(0), version = s.Text(4);
    HistoryPointKey key{matrix, s.Text(1), point, version_matrices.count(matrix) ? version : ""};
    NightResult& n = by_point[key][s.Text(3)];
    const long long id = s.Int(11);
    if (id != last_id) {  // a new trial (the join repeats it once per metric)
      last_id = id;
      n.night = s.Text(3);
      if (n.version.empty()) n.version = version;
      const std::string outcome = s.Text(5);
      n.outcomes.push_back(outcome);
      // The verdict is the most severe outcome of the trials that ran; infra only when none did.
      const bool more_severe = outcome == "infra"
          ? n.verdict.empty()
          : n.verdict.empty() || n.verdict == "infra" || Severity(outcome) > Severity(n.verdict);
      if (more_severe) {
        n.verdict = outcome;
        n.signature = outcome == "pass" ? "" : s.Text(6).empty() ? outcome : s.Text(6);
      }
      if (s.Int(7) == 0) n.unmet = true;
      if (n.expected.empty()) n.expected = s.Text(12);
      if (outcome != "skip" && outcome != "infra") ++n.judged;
      if (IsFailure(outcome)) ++n.failed;
    }
    if (!s.IsNull(8)) {
      const std::string name = s.Text(8);
      int& count = metric_counts[{absl::StrCat(key.ToString(), "|", n.night), name}];
      n.metrics[name] = (n.metrics[name] * count + s.Double(9)) / (count + 1);
      ++count;
      n.units[name] = s.Text(10);
    }
  }
  std::vector<PointHistory> histories;
  for (auto& [key, nights] : by_point) {
    PointHistory h{key, {}};
    for (auto& [night, result] : nights) h.nights.push_back(std::move(result));
    histories.push_back(std::move(h));
  }
  return histories;
}

}  // namespace gh
