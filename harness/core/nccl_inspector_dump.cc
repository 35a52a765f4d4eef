#include "harness/core/nccl_inspector_dump.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "harness/core/state_json.h"
#include "harness/core/status_macros.h"

namespace gh {
namespace {

absl::StatusOr<uint64_t> Unsigned(const StateJson& object, absl::string_view key) {
  GH_ASSIGN_OR_RETURN(int64_t value, object.Int(key));
  if (value < 0) return object.ErrorAt(key, absl::StrCat("expected a count, got ", value));
  return static_cast<uint64_t>(value);
}

// The plugin prints a NaN bandwidth (a zero execution time) as the string "nan".
absl::StatusOr<double> Bandwidth(const StateJson& object, absl::string_view key) {
  if (object.Has(key) && object.raw()[std::string(key)].is_string()) {
    GH_ASSIGN_OR_RETURN(std::string text, object.String(key));
    if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
    return object.ErrorAt(key, absl::StrCat("expected a number or \"nan\", got '", text, "'"));
  }
  return object.Number(key);
}

absl::StatusOr<InspectorEntry> ParseLine(absl::string_view line, const std::string& where) {
  GH_ASSIGN_OR_RETURN(nlohmann::json json, ParseStateText(line, where));
  StateJson root(json, where);
  GH_RETURN_IF_ERROR(root.ExpectObject());
  InspectorEntry entry;
  GH_ASSIGN_OR_RETURN(StateJson header, root.Field("header"));
  GH_ASSIGN_OR_RETURN(entry.comm_id, header.String("id"));
  GH_ASSIGN_OR_RETURN(int64_t rank, header.Int("rank"));
  GH_ASSIGN_OR_RETURN(int64_t n_ranks, header.Int("n_ranks"));
  if (n_ranks < 1 || rank < 0 || rank >= n_ranks) {
    return header.ErrorAt("rank", absl::StrCat("expected a rank in [0, ", n_ranks, "), got ", rank));
  }
  entry.rank = static_cast<int>(rank);
  entry.n_ranks = static_cast<int>(n_ranks);
  GH_ASSIGN_OR_RETURN(StateJson metadata, root.Field("metadata"));
  GH_ASSIGN_OR_RETURN(entry.dump_timestamp_us, Unsigned(metadata, "dump_timestamp_us"));
  GH_ASSIGN_OR_RETURN(StateJson perf, root.Field("coll_perf"));
  GH_ASSIGN_OR_RETURN(entry.coll, perf.String("coll"));
  GH_ASSIGN_OR_RETURN(entry.sn, Unsigned(perf, "coll_sn"));
  GH_ASSIGN_OR_RETURN(entry.bytes, Unsigned(perf, "coll_msg_size_bytes"));
  GH_ASSIGN_OR_RETURN(entry.exec_us, Unsigned(perf, "coll_exec_time_us"));
  GH_ASSIGN_OR_RETURN(entry.timing_source, perf.StringOr("coll_timing_source", ""));
  GH_ASSIGN_OR_RETURN(entry.algobw_gbs, Bandwidth(perf, "coll_algobw_gbs"));
  GH_ASSIGN_OR_RETURN(entry.busbw_gbs, Bandwidth(perf, "coll_busbw_gbs"));
  return entry;
}

}  // namespace

absl::StatusOr<std::vector<InspectorEntry>> ParseInspectorDump(absl::string_view text,
                                                               const std::string& where,
                                                               int first_line, size_t* consumed) {
  std::vector<InspectorEntry> entries;
  size_t pos = 0;
  int line_number = first_line;
  for (;;) {
    const size_t end = text.find('\n', pos);
    if (end == absl::string_view::npos) break;  // none, or a line still being written
    const absl::string_view line = text.substr(pos, end - pos);
    if (line.find_first_not_of(" \t\r") != absl::string_view::npos) {
      GH_ASSIGN_OR_RETURN(InspectorEntry entry,
                          ParseLine(line, absl::StrCat(where, ":", line_number)));
      entries.push_back(std::move(entry));
    }
    pos = end + 1;
    ++line_number;
  }
  *consumed = pos;
  return entries;
}

}  // namespace gh
