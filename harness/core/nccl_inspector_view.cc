#include "harness/core/nccl_inspector_view.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "harness/core/param.h"
#include "harness/core/perf_statistics.h"
#include "harness/core/state_json.h"
#include "harness/core/status_macros.h"

namespace gh {
namespace {

using nlohmann::json;

struct Samples {
  std::vector<double> exec_us;
  std::vector<double> busbw_gbs;
  std::vector<int> ranks;
  std::set<std::pair<std::string, uint64_t>> collectives;  // (communicator, sequence number)
  uint64_t first_sn = UINT64_MAX;
  uint64_t last_sn = 0;
};

void FillStats(const std::vector<double>& values, double* median, double* min, double* max) {
  if (values.empty()) return;
  *median = MedianOf(values);
  *min = *std::min_element(values.begin(), values.end());
  *max = *std::max_element(values.begin(), values.end());
}

InspectorCollSummary Summarize(const std::string& coll, uint64_t bytes, Samples samples) {
  InspectorCollSummary out;
  out.coll = coll;
  out.bytes = bytes;
  out.count = static_cast<int>(samples.collectives.size());
  std::sort(samples.ranks.begin(), samples.ranks.end());
  samples.ranks.erase(std::unique(samples.ranks.begin(), samples.ranks.end()), samples.ranks.end());
  out.ranks = std::move(samples.ranks);
  out.first_sn = samples.first_sn;
  out.last_sn = samples.last_sn;
  FillStats(samples.exec_us, &out.exec_us_median, &out.exec_us_min, &out.exec_us_max);
  FillStats(samples.busbw_gbs, &out.busbw_gbs_median, &out.busbw_gbs_min, &out.busbw_gbs_max);
  return out;
}

json Stats(double median, double min, double max) {
  return json{{"median", median}, {"min", min}, {"max", max}};
}

absl::Status ReadStats(const StateJson& object, absl::string_view key, double* median,
                       double* min, double* max) {
  GH_ASSIGN_OR_RETURN(StateJson stats, object.Field(key));
  GH_ASSIGN_OR_RETURN(*median, stats.Number("median"));
  GH_ASSIGN_OR_RETURN(*min, stats.Number("min"));
  GH_ASSIGN_OR_RETURN(*max, stats.Number("max"));
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> ReadCount(const StateJson& object, absl::string_view key) {
  GH_ASSIGN_OR_RETURN(int64_t value, object.Int(key));
  if (value < 0) return object.ErrorAt(key, absl::StrCat("expected a count, got ", value));
  return static_cast<uint64_t>(value);
}

absl::StatusOr<InspectorCollSummary> ReadCollective(const StateJson& item) {
  InspectorCollSummary c;
  GH_ASSIGN_OR_RETURN(c.coll, item.String("coll"));
  GH_ASSIGN_OR_RETURN(c.bytes, ReadCount(item, "bytes"));
  GH_ASSIGN_OR_RETURN(uint64_t count, ReadCount(item, "count"));
  c.count = static_cast<int>(count);
  GH_ASSIGN_OR_RETURN(std::vector<StateJson> ranks, item.Array("ranks"));
  for (const StateJson& rank : ranks) {
    GH_ASSIGN_OR_RETURN(int64_t r, rank.AsInt());
    c.ranks.push_back(static_cast<int>(r));
  }
  GH_ASSIGN_OR_RETURN(c.first_sn, ReadCount(item, "first_sn"));
  GH_ASSIGN_OR_RETURN(c.last_sn, ReadCount(item, "last_sn"));
  GH_RETURN_IF_ERROR(ReadStats(item, "exec_us", &c.exec_us_median, &c.exec_us_min, &c.exec_us_max));
  GH_RETURN_IF_ERROR(
      ReadStats(item, "busbw_gbs", &c.busbw_gbs_median, &c.busbw_gbs_min, &c.busbw_gbs_max));
  return c;
}

absl::StatusOr<InspectorLastCompleted> ReadLast(const StateJson& item) {
  InspectorLastCompleted last;
  GH_ASSIGN_OR_RETURN(int64_t rank, item.Int("rank"));
  last.rank = static_cast<int>(rank);
  GH_ASSIGN_OR_RETURN(last.coll, item.String("coll"));
  GH_ASSIGN_OR_RETURN(last.sn, ReadCount(item, "sn"));
  GH_ASSIGN_OR_RETURN(last.bytes, ReadCount(item, "bytes"));
  return last;
}

}  // namespace

NcclInspectorView SummarizeInspectorEntries(const std::vector<InspectorEntry>& entries) {
  std::map<std::pair<std::string, uint64_t>, Samples> groups;
  std::map<int, const InspectorEntry*> last;
  for (const InspectorEntry& e : entries) {
    Samples& s = groups[{e.coll, e.bytes}];
    s.exec_us.push_back(static_cast<double>(e.exec_us));
    if (!std::isnan(e.busbw_gbs)) s.busbw_gbs.push_back(e.busbw_gbs);
    s.ranks.push_back(e.rank);
    s.collectives.insert({e.comm_id, e.sn});
    s.first_sn = std::min(s.first_sn, e.sn);
    s.last_sn = std::max(s.last_sn, e.sn);
    const InspectorEntry*& latest = last[e.rank];
    if (latest == nullptr || std::tie(e.dump_timestamp_us, e.sn) >=
                                 std::tie(latest->dump_timestamp_us, latest->sn)) {
      latest = &e;
    }
  }
  NcclInspectorView view;
  for (auto& [key, samples] : groups) {
    view.collectives.push_back(Summarize(key.first, key.second, std::move(samples)));
  }
  std::stable_sort(view.collectives.begin(), view.collectives.end(),
                   [](const InspectorCollSummary& a, const InspectorCollSummary& b) {
                     return a.count > b.count;
                   });
  if (view.collectives.size() > kMaxInspectorCollectives) {
    view.note = absl::StrCat(view.collectives.size() - kMaxInspectorCollectives,
                             " more collective name x size groups left out");
    view.collectives.resize(kMaxInspectorCollectives);
  }
  for (const auto& [rank, entry] : last) {
    view.last.push_back(InspectorLastCompleted{rank, entry->coll, entry->sn, entry->bytes});
  }
  return view;
}

std::string LastCompletedLine(const std::vector<InspectorLastCompleted>& last, int nranks) {
  if (last.empty()) return "";
  std::vector<std::string> parts;
  size_t next = 0;
  const int ranks = std::max(nranks, last.back().rank + 1);
  for (int r = 0; r < ranks; ++r) {
    if (next < last.size() && last[next].rank == r) {
      const InspectorLastCompleted& l = last[next++];
      parts.push_back(absl::StrCat("rank ", r, ": ", l.coll, " #", l.sn, " (",
                                   FormatBytes(static_cast<int64_t>(l.bytes)), ")"));
    } else {
      parts.push_back(absl::StrCat("rank ", r, ": none seen"));
    }
  }
  return absl::StrJoin(parts, "; ");
}

std::string InspectorCollectivesText(const NcclInspectorView& view, size_t max_groups) {
  if (view.collectives.empty()) return view.note;
  std::vector<std::string> parts;
  for (size_t i = 0; i < view.collectives.size() && i < max_groups; ++i) {
    const InspectorCollSummary& c = view.collectives[i];
    parts.push_back(absl::StrFormat("%s %s x%d: %.0f us (%.0f..%.0f), busbw %.3g GB/s", c.coll,
                                    FormatBytes(static_cast<int64_t>(c.bytes)), c.count,
                                    c.exec_us_median, c.exec_us_min, c.exec_us_max,
                                    c.busbw_gbs_median));
  }
  if (view.collectives.size() > max_groups) {
    parts.push_back(absl::StrCat("+", view.collectives.size() - max_groups, " more"));
  }
  return absl::StrJoin(parts, "; ");
}

json InspectorViewToJson(const NcclInspectorView& view) {
  json out = json::object();
  if (!view.note.empty()) out["note"] = view.note;
  if (!view.collectives.empty()) {
    json list = json::array();
    for (const InspectorCollSummary& c : view.collectives) {
      list.push_back(json{{"coll", c.coll},
                          {"bytes", c.bytes},
                          {"count", c.count},
                          {"ranks", c.ranks},
                          {"first_sn", c.first_sn},
                          {"last_sn", c.last_sn},
                          {"exec_us", Stats(c.exec_us_median, c.exec_us_min, c.exec_us_max)},
                          {"busbw_gbs", Stats(c.busbw_gbs_median, c.busbw_gbs_min, c.busbw_gbs_max)}});
    }
    out["collectives"] = std::move(list);
  }
  if (!view.last.empty()) {
    json list = json::array();
    for (const InspectorLastCompleted& l : view.last) {
      list.push_back(json{{"rank", l.rank}, {"coll", l.coll}, {"sn", l.sn}, {"bytes", l.bytes}});
    }
    out["last_completed"] = std::move(list);
  }
  return out;
}

absl::StatusOr<NcclInspectorView> InspectorViewFromJson(const json& value, const std::string& where) {
  StateJson root(value, where);
  GH_RETURN_IF_ERROR(root.ExpectObject());
  NcclInspectorView view;
  GH_ASSIGN_OR_RETURN(view.note, root.StringOr("note", ""));
  GH_ASSIGN_OR_RETURN(std::vector<StateJson> collectives, root.ArrayOrEmpty("collectives"));
  for (const StateJson& item : collectives) {
    GH_ASSIGN_OR_RETURN(InspectorCollSummary c, ReadCollective(item));
    view.collectives.push_back(std::move(c));
  }
  GH_ASSIGN_OR_RETURN(std::vector<StateJson> last, root.ArrayOrEmpty("last_completed"));
  for (const StateJson& item : last) {
    GH_ASSIGN_OR_RETURN(InspectorLastCompleted l, ReadLast(item));
    view.last.push_back(std::move(l));
  }
  return view;
}

}  // namespace gh
