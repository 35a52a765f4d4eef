#include "harness/report/evidence.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <system_error>
#include <tuple>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace gh {
namespace {

namespace fs = std::filesystem;

constexpr char kTracebackStart[] = "Traceback (most recent call last):";

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  for (std::string& line : lines) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
  }
  return lines;
}

// The first wrong element's values; the count too unless the signature already says it.
std::string MismatchText(const Mismatch& m, const std::string& signature) {
  const std::string values = absl::StrCat("element ", m.first_index, ": expected ", m.expected, ", got ", m.actual);
  if (absl::StrContains(signature, "elements wrong")) return values;
  return absl::StrCat(m.wrong_elements, " of ", m.checked_elements, " elements wrong; ", values);
}

// "rank 1 on node-a, gpu 3" / "ranks 0,2 on node-a, node-b".
std::string Where(const std::vector<const RankOutcome*>& ranks) {
  std::vector<int> numbers;
  std::vector<std::string> hosts;
  for (const RankOutcome* rank : ranks) {
    numbers.push_back(rank->rank);
    if (!rank->host.empty() && std::find(hosts.begin(), hosts.end(), rank->host) == hosts.end()) {
      hosts.push_back(rank->host);
    }
  }
  std::string where = absl::StrCat(numbers.size() == 1 ? "rank " : "ranks ", absl::StrJoin(numbers, ","));
  if (!hosts.empty()) absl::StrAppend(&where, " on ", absl::StrJoin(hosts, ", "));
  if (ranks.size() == 1 && ranks[0]->device >= 0) absl::StrAppend(&where, ", gpu ", ranks[0]->device);
  return where;
}

}  // namespace

std::string RankEvidence::Headline(bool with_signature) const {
  std::string line = absl::StrCat(where, ": ", std::string(OutcomeName(outcome)));
  const std::string in_step = absl::StrCat("step '", step, "'");
  if (!step.empty() && !(with_signature && absl::StrContains(signature, in_step))) absl::StrAppend(&line, " in ", in_step);
  if (with_signature && !signature.empty()) absl::StrAppend(&line, ": ", signature);
  if (with_signature && !detail.empty()) absl::StrAppend(&line, " (", detail, ")");
  return line;
}

PointEvidence CollectEvidence(const PointTrials& point, const RunLogs* logs) {
  PointEvidence out;
  const TrialEvidence& evidence = point.evidence;
  if (evidence.empty()) return out;
  if (point.trials > 1) {
    out.trial = absl::StrCat(evidence.process ? absl::StrCat("process ", *evidence.process + 1, ", ") : "", "trial ",
                             evidence.trial + 1, " of ", point.trials);
  }
  // Ranks that ended the same way, with the same lines, are one entry.
  using Key = std::tuple<Outcome, std::string, std::string, std::string, std::string, std::vector<std::string>>;
  std::vector<Key> keys;
  std::vector<std::vector<const RankOutcome*>> members;
  for (const RankOutcome& rank : evidence.ranks) {
    std::string kind;
    std::vector<std::string> lines;
    if (!rank.output_tail.empty()) {
      kind = "output";
      lines = Lines(rank.output_tail);
    } else if (!rank.stack.empty()) {
      kind = "stack";
      lines = rank.stack;
    }
    Key key{rank.outcome, rank.step, rank.signature, rank.mismatch ? MismatchText(*rank.mismatch, rank.signature) : "", kind,
            std::move(lines)};
    auto found = std::find(keys.begin(), keys.end(), key);
    if (found == keys.end()) {
      keys.push_back(std::move(key));
      members.push_back({&rank});
    } else {
      members[found - keys.begin()].push_back(&rank);
    }
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    RankEvidence group;
    std::tie(group.outcome, group.step, group.signature, group.detail, group.lines_kind, group.lines) = keys[i];
    group.where = Where(members[i]);
    for (const RankOutcome* rank : members[i]) {
      group.ranks.push_back(rank->rank);
      group.logs.push_back(logs == nullptr ? "" : logs->RankLog(point, rank->rank));
      if (group.lines_kind == "stack" && group.lines_note.empty()) group.lines_note = rank->stack_note;
    }
    out.ranks.push_back(std::move(group));
  }
  // Ranks that left something to read first (a rank that only died with its job says little).
  std::stable_partition(out.ranks.begin(), out.ranks.end(),
                        [](const RankEvidence& r) { return !r.lines.empty() || !r.detail.empty(); });
  if (logs != nullptr) out.job_log = logs->JobLog(point);
  return out;
}

std::string OmittedLinesText(size_t omitted) {
  return absl::StrCat("... ", omitted, omitted == 1 ? " more line" : " more lines", " ...");
}

std::vector<std::string> EvidenceExcerpt(const RankEvidence& evidence, size_t max_lines) {
  max_lines = std::max<size_t>(max_lines, 3);
  std::vector<std::string> lines = evidence.lines;
  if (evidence.lines_kind == "stack") {
    if (lines.size() <= max_lines) return lines;
    const size_t omitted = lines.size() - (max_lines - 1);
    lines.resize(max_lines - 1);
    lines.push_back(OmittedLinesText(omitted));
    return lines;
  }
  // A Python traceback says it all from its first line on; the output before it is context.
  auto traceback = std::find_if(lines.begin(), lines.end(),
                                [](const std::string& line) { return absl::StartsWith(line, kTracebackStart); });
  if (traceback != lines.end()) lines.erase(lines.begin(), traceback);
  if (lines.size() <= max_lines) return lines;
  const size_t head = std::max<size_t>(1, (max_lines - 1) / 3);
  const size_t tail = max_lines - 1 - head;
  std::vector<std::string> kept(lines.begin(), lines.begin() + head);
  kept.push_back(OmittedLinesText(lines.size() - head - tail));
  kept.insert(kept.end(), lines.end() - tail, lines.end());
  return kept;
}

std::string PathFromReports(const std::string& results_dir, const std::string& reports_dir,
                            const std::string& path_in_results) {
  if (path_in_results.empty() || reports_dir.empty()) return path_in_results;
  std::error_code error;
  const fs::path results = fs::weakly_canonical(fs::absolute(results_dir, error), error);
  const fs::path reports = fs::weakly_canonical(fs::absolute(reports_dir, error), error);
  if (results == reports) return path_in_results;
  return (results / path_in_results).lexically_normal().lexically_relative(reports).string();
}

std::string UrlPath(const std::string& path) {
  std::string out;
  for (unsigned char c : path) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
        std::string_view("-._~/=,+").find(static_cast<char>(c)) != std::string_view::npos) {
      out.push_back(static_cast<char>(c));
    } else {
      char escaped[4];
      std::snprintf(escaped, sizeof(escaped), "%%%02X", c);
      out += escaped;
    }
  }
  return out;
}

}  // namespace gh
