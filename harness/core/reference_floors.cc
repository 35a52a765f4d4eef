#include "harness/core/reference_floors.h"

#include <cmath>
#include <filesystem>
#include <variant>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/core/file_util.h"
#include "harness/core/glob.h"
#include "harness/core/param.h"
#include "harness/core/point.h"
#include "harness/core/status_macros.h"
#include "harness/core/yaml_fields.h"

namespace gh {
namespace {

constexpr char kDefaultTable[] = "results/reference/collective_busbw.yaml";

absl::StatusOr<double> NumberField(YamlMap& map, const std::string& key, double min, double max) {
  GH_ASSIGN_OR_RETURN(std::string text, map.String(key, /*required=*/true));
  double value = 0;
  if (!absl::SimpleAtod(text, &value) || !std::isfinite(value)) {
    return map.Error(key, absl::StrCat("expected a number, got '", text, "'"));
  }
  if (value < min || value > max) {
    return map.Error(key, absl::StrCat("must be between ", min, " and ", max, ", got ", text));
  }
  return value;
}

absl::StatusOr<ReferenceSource> ReadSource(const YamlDoc& doc, const YAML::Node& node,
                                           const std::string& path) {
  GH_ASSIGN_OR_RETURN(YamlMap map, YamlMap::Of(doc, node, path,
                                               {"kind", "date", "machine", "command", "link", "note"}));
  ReferenceSource source;
  GH_ASSIGN_OR_RETURN(source.kind, map.String("kind", /*required=*/true));
  for (auto [key, field] : {std::pair{"date", &source.date}, std::pair{"machine", &source.machine},
                            std::pair{"command", &source.command}, std::pair{"link", &source.link},
                            std::pair{"note", &source.note}}) {
    GH_ASSIGN_OR_RETURN(*field, map.String(key, /*required=*/false));
  }
  // What each kind must say for a reader to check it.
  std::vector<std::pair<const char*, const std::string*>> needed;
  if (source.kind == "measured") {
    needed = {{"date", &source.date}, {"machine", &source.machine}, {"command", &source.command}};
  } else if (source.kind == "published") {
    needed = {{"link", &source.link}};
  } else if (source.kind == "inferred") {
    needed = {{"note", &source.note}};
  } else {
    return map.Error("kind", absl::StrCat("expected measured, published or inferred, got '",
                                          source.kind, "'"));
  }
  for (const auto& [key, value] : needed) {
    if (value->empty()) {
      return doc.Error(node, path, absl::StrCat("a ", source.kind, " source needs `", key, "`"));
    }
  }
  GH_RETURN_IF_ERROR(map.Finish());
  return source;
}

absl::StatusOr<ReferenceRow> ReadRow(const YamlDoc& doc, const YAML::Node& node, const std::string& path) {
  GH_ASSIGN_OR_RETURN(YamlMap map, YamlMap::Of(doc, node, path,
                                               {"gpu", "interconnect", "ranks", "nodes", "gpu_shared", "op",
                                                "dtype", "bytes", "metric", "env", "value", "tolerance", "source"}));
  ReferenceRow row;
  const SourceLoc loc = map.Loc();
  row.where = absl::StrCat(loc.file, ":", loc.line);
  GH_ASSIGN_OR_RETURN(row.gpu, map.String("gpu", /*required=*/true));
  GH_ASSIGN_OR_RETURN(row.interconnect, map.String("interconnect", /*required=*/true));
  GH_ASSIGN_OR_RETURN(int64_t ranks, map.Int("ranks", 1, 1 << 20));
  row.ranks = static_cast<int>(ranks);
  if (map.Has("nodes")) {
    GH_ASSIGN_OR_RETURN(int64_t nodes, map.Int("nodes", 1, 1 << 20));
    row.nodes = static_cast<int>(nodes);
  }
  if (map.Has("gpu_shared")) { GH_ASSIGN_OR_RETURN(row.gpu_shared, map.Bool("gpu_shared")); }
  GH_ASSIGN_OR_RETURN(row.op, map.String("op", /*required=*/true));
  GH_ASSIGN_OR_RETURN(row.dtype, map.String("dtype", /*required=*/false));
  GH_ASSIGN_OR_RETURN(std::string bytes, map.String("bytes", /*required=*/true));
  absl::StatusOr<int64_t> parsed = ParseBytes(bytes);
  if (!parsed.ok() || *parsed <= 0) return map.Error("bytes", absl::StrCat("expected a size such as 1G, got '", bytes, "'"));
  row.bytes = *parsed;
  if (map.Has("metric")) { GH_ASSIGN_OR_RETURN(row.metric, map.String("metric", /*required=*/true)); }
  GH_ASSIGN_OR_RETURN(row.env, map.StringMap("env"));
  GH_ASSIGN_OR_RETURN(row.value, NumberField(map, "value", 0, 1e6));
  GH_ASSIGN_OR_RETURN(row.tolerance, NumberField(map, "tolerance", 0, 0.99));
  if (!map.Has("source")) return doc.Error(node, path, "missing required key `source`");
  GH_ASSIGN_OR_RETURN(row.source, ReadSource(doc, map.Child("source"), map.Path("source")));
  GH_RETURN_IF_ERROR(map.Finish());
  return row;
}

// The point's parameter `name` as written in point names, or "".
std::string ParamText(const Point& point, const std::string& name) {
  for (const PointParam& p : point.params) {
    if (p.name == name) return FormatParamValue(p.type, p.value);
  }
  return "";
}

int64_t ParamInt(const Point& point, const std::string& name) {
  for (const PointParam& p : point.params) {
    if (p.name == name && std::holds_alternative<int64_t>(p.value)) return std::get<int64_t>(p.value);
  }
  return -1;
}

std::string Fact(const EnvironmentFacts& facts, const std::string& name, const std::string& missing) {
  auto it = facts.values.find(name);
  return it == facts.values.end() ? missing : it->second;
}

}  // namespace

std::string ReferenceSource::ToString() const {
  if (kind == "measured") return absl::StrCat("measured ", date, " on ", machine, ": ", command);
  if (kind == "published") {
    return note.empty() ? absl::StrCat("published: ", link) : absl::StrCat("published: ", link, " (", note, ")");
  }
  return absl::StrCat("inferred: ", note);
}

std::string ReferenceRow::Describe() const {
  std::string who = gpu;
  if (gpu_shared) {
    absl::StrAppend(&who, " (", ranks, " ranks sharing one GPU)");
  } else {
    absl::StrAppend(&who, " x", ranks);
    if (nodes > 1) absl::StrAppend(&who, " on ", nodes, " nodes");
  }
  std::string conditions;
  for (const auto& [name, setting] : env) absl::StrAppend(&conditions, ", ", name, "=", setting);
  return absl::StrFormat("%s (%s%s) %s%s at %s: %.4g GB/s less %g %%, %s", who, interconnect, conditions,
                         op, dtype.empty() ? "" : " " + dtype, FormatBytes(bytes), value,
                         tolerance * 100, source.ToString());
}

absl::StatusOr<ReferenceTable> LoadReferenceTable(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": cannot read the reference table: ",
                                                   text.status().message()));
  }
  GH_ASSIGN_OR_RETURN(std::vector<YAML::Node> docs, ParseYamlDocuments(*text, path));
  YamlDoc doc(path);
  if (docs.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(path, ":1:1: expected one YAML document, got ", docs.size()));
  }
  GH_ASSIGN_OR_RETURN(YamlMap top, YamlMap::Of(doc, docs[0], "", {"references"}));
  if (!top.Has("references")) return doc.Error(docs[0], "references", "missing required key");
  YAML::Node list = top.Child("references");
  if (!list.IsSequence()) {
    return doc.Error(list, "references", absl::StrCat("expected a list of rows, got ", NodeKind(list)));
  }
  ReferenceTable table;
  table.path = path;
  for (size_t i = 0; i < list.size(); ++i) {
    GH_ASSIGN_OR_RETURN(ReferenceRow row, ReadRow(doc, list[i], absl::StrCat("references[", i, "]")));
    table.rows.push_back(std::move(row));
  }
  GH_RETURN_IF_ERROR(top.Finish());
  return table;
}

const ReferenceRow* FindReference(const ReferenceTable& table, const std::string& metric,
                                  const Point& point, const EnvironmentFacts& facts) {
  const std::string op = ParamText(point, "op");
  const std::string dtype = ParamText(point, "dtype");
  const int64_t bytes = ParamInt(point, "bytes");
  const std::string gpu = Fact(facts, "gpu", "");
  const std::string nranks = Fact(facts, "nranks", std::to_string(point.nranks));
  const std::string nodes = Fact(facts, "nodes", "1");
  const bool shared = Fact(facts, "gpu_shared", "false") == "true";
  if (op.empty() || bytes < 0 || gpu.empty()) return nullptr;
  const ReferenceRow* best = nullptr;
  size_t best_named = 0;
  for (const ReferenceRow& row : table.rows) {
    if (row.metric != metric || row.op != op || row.bytes != bytes) continue;
    if (std::to_string(row.ranks) != nranks || std::to_string(row.nodes) != nodes || row.gpu_shared != shared) continue;
    if (!row.dtype.empty() && row.dtype != dtype) continue;
    if (!GlobMatches(row.gpu, gpu)) continue;
    bool env_matches = true;
    for (const auto& [name, value] : row.env) {
      env_matches = env_matches && Fact(facts, "env." + name, "unset") == value;
    }
    if (!env_matches) continue;
    const size_t named = row.env.size() + (row.dtype.empty() ? 0 : 1);
    if (best == nullptr || named > best_named) {
      best = &row;
      best_named = named;
    }
  }
  return best;
}

std::string DefaultReferenceTablePath(const std::string& scenario_file) {
  std::error_code error;
  std::filesystem::path dir = std::filesystem::absolute(scenario_file, error).parent_path();
  for (; !dir.empty(); dir = dir.parent_path()) {
    const std::filesystem::path candidate = dir / kDefaultTable;
    if (std::filesystem::is_regular_file(candidate, error)) return candidate.string();
    // The search ends at the scenario tree's root (a checkout, an installed share/gpuharness or
    // a test's directory), so a table of some enclosing tree never answers for this one.
    if (std::filesystem::is_directory(dir / "scenarios", error) || std::filesystem::exists(dir / ".git", error)) break;
    if (dir == dir.root_path()) break;
  }
  return "";
}

}  // namespace gh
