#include "harness/history/history_queries.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/core/outcome.h"
#include "harness/core/status_macros.h"

namespace gh {
namespace {

int Severity(const std::string& outcome) {
  absl::StatusOr<Outcome> o = ParseOutcome(outcome);
  return o.ok() ? static_cast<int>(*o) : -1;
}

}  // namespace

std::string HistoryPointKey::ToString() const {
  return absl::StrCat(matrix, cell.empty() ? "" : absl::StrCat(" [", cell, "]"), " :: ", point);
}

bool IsFailure(const std::string& outcome) {
  return outcome == "fail" || outcome == "error" || outcome == "timeout" || outcome == "crash";
}

absl::StatusOr<std::vector<std::string>> Nights(const HistoryDb& db) {
  GH_ASSIGN_OR_RETURN(Statement s, Statement::Prepare(db,
      "SELECT DISTINCT night FROM results WHERE kind='sweep' ORDER BY night"));
  std::vector<std::string> nights;
  while (true) {
    GH_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return nights;
    nights.push_back(s.Text(0));
  }
}

absl::StatusOr<std::vector<PointHistory>> LoadHistories(const HistoryDb& db, const std::string& point) {
  GH_ASSIGN_OR_RETURN(Statement s, Statement::Prepare(db,
      "SELECT r.matrix, r.cell, r.point, r.night, r.version, r.outcome, r.signature, r.matched,"
      " m.name, m.value, m.unit, r.id FROM results r LEFT JOIN metrics m ON m.result_id = r.id"
      " WHERE r.kind='sweep' AND (?1 = '' OR r.point = ?1)"
      " ORDER BY r.matrix, r.cell, r.point, r.night, r.trial, r.started_at, r.id, m.name"));
  s.Bind(1, point);
  std::map<HistoryPointKey, std::map<std::string, NightResult>> by_point;
  std::map<std::pair<std::string, std::string>, int> metric_counts;  // (night|key, metric) -> n
  long long last_id = -1;
  while (true) {
    GH_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    HistoryPointKey key{s.Text(0), s.Text(1), s.Text(2)};
    NightResult& n = by_point[key][s.Text(3)];
    const long long id = s.Int(11);
    if (id != last_id) {  // a new trial (the join repeats it once per metric)
      last_id = id;
      n.night = s.Text(3);
      if (n.version.empty()) n.version = s.Text(4);
      const std::string outcome = s.Text(5);
      n.outcomes.push_back(outcome);
      if (n.verdict.empty() || Severity(outcome) > Severity(n.verdict)) n.verdict = outcome;
      if (outcome != "pass" && n.signature.empty()) n.signature = s.Text(6).empty() ? outcome : s.Text(6);
      if (s.Int(7) == 0) n.unmet = true;
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

std::vector<Flip> FindFlips(const std::vector<PointHistory>& histories, const std::string& night) {
  std::vector<Flip> flips;
  for (const PointHistory& h : histories) {
    for (size_t i = 1; i < h.nights.size(); ++i) {
      const NightResult& before = h.nights[i - 1];
      const NightResult& now = h.nights[i];
      if (before.verdict == now.verdict) continue;
      if (!night.empty() && now.night != night) continue;
      flips.push_back({h.key, before.verdict, now.verdict, now.night, now.version, before.night,
                       before.version, now.signature});
    }
  }
  return flips;
}

std::vector<Flaky> FindFlaky(const std::vector<PointHistory>& histories) {
  std::vector<Flaky> flaky;
  for (const PointHistory& h : histories) {
    Flaky f{h.key, 0, {}, ""};
    std::vector<std::string> strip;
    for (size_t i = 0; i < h.nights.size(); ++i) {
      const NightResult& n = h.nights[i];
      strip.push_back(n.verdict);
      if (i > 0 && n.verdict != h.nights[i - 1].verdict) ++f.changes;
      if (std::set<std::string>(n.outcomes.begin(), n.outcomes.end()).size() > 1) f.mixed_nights.push_back(n.night);
    }
    f.strip = absl::StrJoin(strip, " ");
    // One change is a flip (a regression or a fix); back and forth is flaky.
    if (f.changes >= 2 || !f.mixed_nights.empty()) flaky.push_back(std::move(f));
  }
  return flaky;
}

}  // namespace gh
