#include "harness/history/night_summary.h"

#include <filesystem>
#include <map>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "harness/core/file_util.h"
#include "harness/core/state_json.h"
#include "harness/core/status_macros.h"
#include "harness/history/history_findings.h"
#include "harness/history/history_text.h"
#include "harness/history/night_regressions.h"
#include "harness/history/nightly_json.h"
#include "harness/report/summary_markdown.h"

namespace gh {
namespace {

namespace fs = std::filesystem;

// The lines of a TSV state file the nightly wrote, each exactly `columns.size()` fields.
absl::StatusOr<std::vector<std::vector<std::string>>> ReadTsv(const std::string& path,
                                                             const std::vector<std::string>& columns) {
  GH_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  std::vector<std::vector<std::string>> rows;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    if (line.empty()) continue;
    std::vector<std::string> fields = absl::StrSplit(line, '\t');
    if (fields.size() != columns.size()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ":", line_number, ": expected ", columns.size(),
                                                     " tab-separated fields (", absl::StrJoin(columns, ", "),
                                                     "), got ", fields.size()));
    }
    rows.push_back(std::move(fields));
  }
  return rows;
}

absl::StatusOr<int> ExitField(const std::string& path, int line, const std::string& key, const std::string& text) {
  int value = 0;
  if (!absl::SimpleAtoi(text, &value)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ":", line, ": ", key, ": expected an exit status, got '",
                                                    OneLineText(text), "'"));
  }
  return value;
}

struct SweepRow {
  std::string matrix;
  int exit = 0;
  std::optional<NightRegressions> regressions;  // none: not compared
};

struct BisectRow {
  std::string matrix, point, cell, dir;
  std::optional<int> exit;  // none: not bisected
  std::string note;
  nlohmann::json answer;    // summary.json's answer, null without one
  std::string attached;     // the bisect's summary.md, "" without one
};

absl::StatusOr<std::vector<SweepRow>> ReadSweeps(const std::string& night_dir) {
  const std::string path = absl::StrCat(night_dir, "/", kNightSweepsFile);
  GH_ASSIGN_OR_RETURN(auto rows, ReadTsv(path, {"matrix", "sweep exit"}));
  std::vector<SweepRow> sweeps;
  for (size_t i = 0; i < rows.size(); ++i) {
    SweepRow s;
    s.matrix = rows[i][0];
    GH_ASSIGN_OR_RETURN(s.exit, ExitField(path, static_cast<int>(i + 1), "sweep exit", rows[i][1]));
    const std::string regressions = absl::StrCat(night_dir, "/", s.matrix, "/regressions.json");
    std::error_code ec;
    if (fs::exists(regressions, ec)) {
      GH_ASSIGN_OR_RETURN(nlohmann::json json, ParseStateFile(regressions));
      GH_ASSIGN_OR_RETURN(s.regressions, NightRegressions::FromJson(json, regressions));
    }
    sweeps.push_back(std::move(s));
  }
  return sweeps;
}

absl::StatusOr<std::vector<BisectRow>> ReadBisects(const std::string& night_dir) {
  const std::string path = absl::StrCat(night_dir, "/", kNightBisectsFile);
  GH_ASSIGN_OR_RETURN(auto rows, ReadTsv(path, {"matrix", "point", "cell", "bisect dir", "bisect exit", "note"}));
  std::vector<BisectRow> bisects;
  for (size_t i = 0; i < rows.size(); ++i) {
    BisectRow b{rows[i][0], rows[i][1], rows[i][2], rows[i][3], std::nullopt, rows[i][5], nullptr, ""};
    if (rows[i][4] != "-") {
      GH_ASSIGN_OR_RETURN(b.exit, ExitField(path, static_cast<int>(i + 1), "bisect exit", rows[i][4]));
    }
    const std::string summary_json = b.dir + "/summary.json";
    std::error_code ec;
    if (fs::exists(summary_json, ec)) {
      GH_ASSIGN_OR_RETURN(nlohmann::json json, ParseStateFile(summary_json));
      const StateJson summary(json, summary_json);
      GH_RETURN_IF_ERROR(summary.ExpectObject());
      if (summary.Has("answer")) {
        GH_ASSIGN_OR_RETURN(StateJson answer, summary.Field("answer"));
        GH_RETURN_IF_ERROR(answer.ExpectObject());
        b.answer = answer.raw();
      }
    }
    if (absl::StatusOr<std::string> md = ReadFileToString(b.dir + "/summary.md"); md.ok()) b.attached = *md;
    bisects.push_back(std::move(b));
  }
  return bisects;
}

std::string AnswerText(const nlohmann::json& answer, const std::string& key) {
  return answer.is_object() && answer.contains(key) && answer[key].is_string() ? answer[key].get<std::string>() : "";
}

std::string RelativeTo(const std::string& path, const std::string& base) {
  std::error_code ec;
  const fs::path relative = fs::relative(path, base, ec);
  return ec || relative.empty() ? path : relative.string();
}

std::string Verdict(int status) {
  switch (status) {
    case 0: return "good";
    case 1: return "regressions or unmet expectations";
    case 3: return "infrastructure failure";
    default: return absl::StrCat("exit ", status);
  }
}

// The bisect of `r` in `matrix`, matched by the fields as the nightly wrote them (escaped).
const BisectRow* BisectOf(const std::vector<BisectRow>& bisects, const std::string& matrix, const NightRegression& r) {
  for (const BisectRow& b : bisects) {
    if (b.matrix == matrix && b.point == OneLineText(r.point) && b.cell == OneLineText(r.cell_arg)) return &b;
  }
  return nullptr;
}

std::string FirstBadCell(const BisectRow* b, const NightRegression& r) {
  if (b == nullptr) return r.is_new ? "" : "(bisected on an earlier night)";
  if (!b->note.empty()) return b->note;
  const std::string first_bad = AnswerText(b->answer, "first_bad");
  if (!first_bad.empty()) {
    const std::string last_good = AnswerText(b->answer, "last_good");
    return absl::StrCat("**", first_bad, "** (last good ", last_good.empty() ? "?" : last_good, ")");
  }
  return absl::StrCat("bisect exit ", b->exit ? std::to_string(*b->exit) : "-", ", no answer");
}

void AppendBroken(std::string& md, const NightSummaryInputs& in, const std::vector<SweepRow>& sweeps) {
  if (in.histories.empty()) return;
  std::vector<Broken> broken;
  for (Broken& b : FindBroken(in.histories)) {
    for (const SweepRow& s : sweeps) {
      if (s.matrix == b.key.matrix && b.now.night == in.night) {
        broken.push_back(std::move(b));
        break;
      }
    }
  }
  absl::StrAppend(&md, "## Broken now (", broken.size(), ")\n\n");
  if (broken.empty()) {
    md += "Every point of tonight's matrices met its expectation.\n\n";
    return;
  }
  md += "| point | cell | now | since | last good | signature |\n|---|---|---|---|---|---|\n";
  for (const Broken& b : broken) {
    const std::string point = b.key.version.empty() ? b.key.point : absl::StrCat(b.key.point, " @ ", b.key.version);
    absl::StrAppend(&md, "| ", EscapeMarkdownCell(point), " | ", EscapeMarkdownCell(b.key.cell.empty() ? "all" : b.key.cell),
                    " | ", EscapeMarkdownCell(b.now.Described()), " | ",
                    EscapeMarkdownCell(b.SinceText()), " | ", EscapeMarkdownCell(b.LastGoodText()),
                    " | ", EscapeMarkdownCell(b.now.signature), " |\n");
  }
  md += "\n";
}

}  // namespace

absl::StatusOr<std::vector<std::string>> WriteNightSummary(const NightSummaryInputs& in) {
  GH_ASSIGN_OR_RETURN(const std::vector<SweepRow> sweeps, ReadSweeps(in.night_dir));
  GH_ASSIGN_OR_RETURN(const std::vector<BisectRow> bisects, ReadBisects(in.night_dir));
  std::optional<NightlyHeadline> baseline;
  if (!in.baseline_dir.empty()) {
    GH_ASSIGN_OR_RETURN(baseline, ReadNightlyJson(in.baseline_dir));
  }
  const std::string baseline_night = baseline ? baseline->night : "";

  std::string md = absl::StrCat("# Nightly ", in.cluster, ", night ", in.night, ": version ", in.version, "\n\n");
  absl::StrAppend(&md, "- Verdict: **", Verdict(in.status), "** (exit ", in.status, ")\n");
  if (baseline) {
    absl::StrAppend(&md, "- Baseline: the last good night, ", baseline->night, " (version ", baseline->version, ")\n");
  } else {
    md += "- Baseline: none yet (the first good night becomes it)\n";
  }
  absl::StrAppend(&md, "- Baseline after this night: ",
                  in.good ? "this night" : baseline_night.empty() ? "none" : baseline_night, "\n\n");
  AppendBroken(md, in, sweeps);

  nlohmann::json matrices = nlohmann::json::array(), bisect_list = nlohmann::json::array();
  std::vector<std::pair<const NightRegression*, const BisectRow*>> attached;
  for (const SweepRow& s : sweeps) {
    absl::StrAppend(&md, "## ", s.matrix, ": sweep exit ", s.exit, "\n\nResults: `", s.matrix,
                    "/` (records.jsonl, junit.xml, summary.md, report.html).\n\n");
    matrices.push_back({{"matrix", s.matrix},
                        {"sweep_exit", s.exit},
                        {"regressions", s.regressions ? s.regressions->ToJson()["regressions"] : nlohmann::json::array()}});
    if (!s.regressions) {
      md += baseline ? "Not compared: the baseline night has no results of this matrix.\n\n"
                     : "Not compared: no baseline.\n\n";
      continue;
    }
    if (s.regressions->regressions.empty()) {
      md += "No regression against the baseline.\n\n";
      continue;
    }
    md += "| point | cell | baseline | now | failed trials | signature | new | first bad version |\n"
          "|---|---|---|---|---|---|---|---|\n";
    for (const NightRegression& r : s.regressions->regressions) {
      const BisectRow* b = BisectOf(bisects, s.matrix, r);
      if (b != nullptr) attached.push_back({&r, b});
      absl::StrAppend(&md, "| ", EscapeMarkdownCell(r.point), " | ", EscapeMarkdownCell(r.cell_arg.empty() ? "all" : r.cell_arg),
                      " | pass | ", EscapeMarkdownCell(r.now), " | ", r.failed_trials, "/", r.trials, " | ",
                      EscapeMarkdownCell(r.signature), " | ", r.is_new ? "yes" : "no", " | ", FirstBadCell(b, r), " |\n");
    }
    md += "\n";
  }
  for (const auto& [r, b] : attached) {
    const std::string dir = RelativeTo(b->dir, in.night_dir);
    absl::StrAppend(&md, "## Bisect: ", r->point, " [", r->cell_arg.empty() ? "all" : r->cell_arg, "]\n\n");
    const std::string first_bad = AnswerText(b->answer, "first_bad");
    const std::string exit = b->exit ? std::to_string(*b->exit) : "-";
    if (!b->note.empty()) {
      absl::StrAppend(&md, b->note, "\n\n");
    } else if (!first_bad.empty()) {
      absl::StrAppend(&md, "First bad version **", first_bad, "**, last good ", AnswerText(b->answer, "last_good"),
                      " (bisect exit ", exit, "; `", dir, "/`).\n\n");
    } else {
      absl::StrAppend(&md, "The bisect found no answer (exit ", exit, "); see `", dir, "/`.\n\n");
    }
    if (!b->attached.empty()) {
      absl::StrAppend(&md, "<details><summary>bisect summary.md</summary>\n\n",
                      absl::StripTrailingAsciiWhitespace(b->attached), "\n\n</details>\n\n");
    }
    bisect_list.push_back({{"matrix", b->matrix},
                           {"point", r->point},
                           {"cell", r->cell_arg},
                           {"dir", dir},
                           {"exit", b->exit ? nlohmann::json(*b->exit) : nlohmann::json(nullptr)},
                           {"note", b->note},
                           {"answer", b->answer}});
  }
  const nlohmann::json nightly = {{"schema_version", kNightlyJsonSchemaVersion},
                                  {"night", in.night},
                                  {"cluster", in.cluster},
                                  {"version", in.version},
                                  {"status", in.status},
                                  {"good", in.good},
                                  {"baseline_night", baseline_night},
                                  {"baseline_version", baseline ? baseline->version : ""},
                                  {"matrices", matrices},
                                  {"bisects", bisect_list}};
  const std::string summary_path = absl::StrCat(in.night_dir, "/summary.md");
  const std::string nightly_path = absl::StrCat(in.night_dir, "/", kNightlyJsonFile);
  while (!md.empty() && md.back() == '\n') md.pop_back();
  GH_RETURN_IF_ERROR(WriteFileAtomically(summary_path, md + "\n"));
  GH_RETURN_IF_ERROR(WriteFileAtomically(nightly_path, nightly.dump(2) + "\n"));
  return std::vector<std::string>{summary_path, nightly_path};
}

}  // namespace gh
