#include "harness/driver/matrix.h"

#include <cstdio>
#include <filesystem>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "harness/core/file_util.h"
#include "harness/core/name_rules.h"
#include "harness/core/point_filter.h"
#include "harness/core/shell_quote.h"
#include "harness/core/status_macros.h"
#include "harness/core/yaml_fields.h"
#include "harness/driver/version_provider.h"

namespace gh::driver {
namespace {

constexpr int kMaxRanks = 4096;
constexpr size_t kMaxCells = 100000;

// The keys of an axis value, of `defaults` and of a version `list.template`. Version values
// also take setup and launcher_prefix.
std::vector<std::string> SettingKeys(bool version, bool label) {
  std::vector<std::string> keys = {"env",     "flags",   "env_prepend", "env_append",
                                   "ranks",   "launcher", "timeout",    "backend",
                                   "share_gpu", "args",   "points"};
  if (version) keys.insert(keys.end(), {"setup", "launcher_prefix"});
  if (label) keys.push_back("label");
  return keys;
}

absl::Status ReadFlagList(YamlMap& map, const std::string& key, const std::string& var,
                          const YAML::Node& node, std::vector<std::string>* out) {
  std::string path = absl::StrCat(map.Path(key), ".", var);
  std::vector<std::string> tokens;
  if (node.IsScalar()) {
    for (absl::string_view t : absl::StrSplit(node.Scalar(), ' ', absl::SkipWhitespace())) {
      tokens.emplace_back(t);
    }
  } else if (node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i) {
      absl::StatusOr<std::string> item =
          map.doc().Scalar(node[i], absl::StrCat(path, "[", i, "]"), "a flag");
      if (!item.ok()) return item.status();
      tokens.push_back(*item);
    }
  } else {
    return map.doc().Error(node, path, "expected a list of flags");
  }
  for (const std::string& token : tokens) {
    if (absl::Status st = CheckEnvValue(token); !st.ok()) return map.doc().Error(node, path, st.message());
    if (token.size() < 2 || token[0] != '-') {
      return map.doc().Error(node, path,
                       absl::StrCat("'", token, "' is not a flag (flags start with - or --)"));
    }
    out->push_back(token);
  }
  return absl::OkStatus();
}

// Every entry of a `points:` list is a well-formed point filter (core/point_filter.h).
absl::Status CheckPointFilters(YamlMap& map, const std::vector<std::string>& points) {
  for (const std::string& p : points) {
    if (absl::Status bad = CheckPointFilter(p); !bad.ok()) {
      return map.Error("points", absl::StrCat("'", p, "': ", bad.message()));
    }
  }
  return absl::OkStatus();
}

// Every NAME of an env-like map (env, env_prepend, env_append, flags) is an environment variable
// name, and with `values` every VALUE a valid one (core/name_rules): an `A=B` or empty name, or
// a value with NUL, would otherwise reach execve cut or misread.
absl::Status CheckEnvEntries(YamlMap& map, const std::string& key, bool values) {
  YAML::Node node = map.Child(key);
  if (!node.IsMap()) return absl::OkStatus();  // the reader refused any other shape
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string name = it->first.Scalar();
    absl::Status st = CheckEnvName(name);
    if (st.ok() && values && it->second.IsScalar()) st = CheckEnvValue(it->second.Scalar());
    if (!st.ok()) {
      return YamlError(map.doc().Loc(it->first), absl::StrCat(map.Path(key), ".", PrintableText(name)), st.message());
    }
  }
  return absl::OkStatus();
}

// Reads every setting key a value (or `defaults`) may have. `version` admits setup and
// launcher_prefix.
absl::Status ReadSettings(YamlMap& map, bool version, CellSettings* s) {
  absl::StatusOr<std::map<std::string, std::string>> env = map.StringMap("env");
  if (!env.ok()) return env.status();
  s->env = *env;
  GH_RETURN_IF_ERROR(CheckEnvEntries(map, "env", /*values=*/true));
  GH_RETURN_IF_ERROR(CheckEnvEntries(map, "flags", /*values=*/false));
  YAML::Node flags = map.Child("flags");
  if (flags.IsDefined() && !flags.IsNull()) {
    if (!flags.IsMap()) {
      return map.doc().Error(flags, map.Path("flags"),
                       "expected a map VARIABLE: [--flag=value, ...]");
    }
    for (auto it = flags.begin(); it != flags.end(); ++it) {
      std::string var = it->first.Scalar();
      absl::Status st = ReadFlagList(map, "flags", var, it->second, &s->flags[var]);
      if (!st.ok()) return st;
    }
  }
  absl::StatusOr<std::map<std::string, std::string>> prepend = map.StringMap("env_prepend");
  if (!prepend.ok()) return prepend.status();
  s->env_prepend = *prepend;
  GH_RETURN_IF_ERROR(CheckEnvEntries(map, "env_prepend", /*values=*/true));
  absl::StatusOr<std::map<std::string, std::string>> append = map.StringMap("env_append");
  if (!append.ok()) return append.status();
  s->env_append = *append;
  GH_RETURN_IF_ERROR(CheckEnvEntries(map, "env_append", /*values=*/true));
  if (map.Has("ranks")) {
    absl::StatusOr<int64_t> ranks = map.Int("ranks", 1, kMaxRanks);
    if (!ranks.ok()) return ranks.status();
    s->ranks = static_cast<int>(*ranks);
  }
  if (map.Has("launcher")) {
    absl::StatusOr<std::string> launcher = map.String("launcher", true);
    if (!launcher.ok()) return launcher.status();
    s->launcher = *launcher;
  }
  if (map.Has("timeout")) {
    absl::StatusOr<absl::Duration> timeout = map.Duration("timeout");
    if (!timeout.ok()) return timeout.status();
    s->timeout = *timeout;
  }
  if (map.Has("backend")) {
    absl::StatusOr<std::string> backend = map.String("backend", true);
    if (!backend.ok()) return backend.status();
    if (*backend != "auto" && *backend != "host" && *backend != "cuda") {
      return YamlError(map.LocOfKey("backend"), map.Path("backend"),
                       absl::StrCat("expected auto, host or cuda, got '", *backend, "'"));
    }
    s->backend = *backend;
  }
  if (map.Has("share_gpu")) {
    absl::StatusOr<bool> share = map.Bool("share_gpu");
    if (!share.ok()) return share.status();
    s->share_gpu = *share;
  }
  absl::StatusOr<std::vector<std::string>> args = map.StringList("args");
  if (!args.ok()) return args.status();
  s->args = *args;
  absl::StatusOr<std::vector<std::string>> points = map.StringList("points");
  if (!points.ok()) return points.status();
  GH_RETURN_IF_ERROR(CheckPointFilters(map, *points));
  s->points = *points;
  if (version) {
    absl::StatusOr<std::string> setup = map.String("setup", false);
    if (!setup.ok()) return setup.status();
    s->setup = *setup;
    absl::StatusOr<std::vector<std::string>> prefix = map.StringList("launcher_prefix");
    if (!prefix.ok()) return prefix.status();
    s->launcher_prefix = *prefix;
  }
  return absl::OkStatus();
}

absl::StatusOr<AxisValue> ReadValue(const YamlDoc& doc, const YAML::Node& node,
                                    const std::string& path, bool version) {
  AxisValue value;
  value.loc = doc.Loc(node);
  if (node.IsScalar()) {  // `- simple` is a value with a label only
    value.label = node.Scalar();
  } else {
    absl::StatusOr<YamlMap> map = YamlMap::Of(doc, node, path, SettingKeys(version, /*label=*/true));
    if (!map.ok()) return map.status();
    absl::StatusOr<std::string> label = map->String("label", true);
    if (!label.ok()) return label.status();
    value.label = *label;
    absl::Status st = ReadSettings(*map, version, &value.settings);
    if (!st.ok()) return st;
    st = map->Finish();
    if (!st.ok()) return st;
  }
  if (value.label.empty()) return YamlError(value.loc, path + ".label", "must not be empty");
  if (absl::Status st = CheckLabel(value.label); !st.ok()) return YamlError(value.loc, path + ".label", st.message());
  return value;
}

absl::Status CheckUniqueLabels(const MatrixAxis& axis, const std::string& path) {
  std::set<std::string> seen;
  for (const AxisValue& v : axis.values) {
    if (!seen.insert(v.label).second) {
      return YamlError(v.loc, path, absl::StrCat("duplicate label '", v.label, "'"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<AxisValue>> ReadValues(YamlMap& map,
                                                  bool version) {
  YAML::Node values = map.Child("values");
  if (!values.IsSequence() || values.size() == 0) {
    return YamlError(values.IsDefined() ? map.doc().Loc(values) : map.Loc(), map.Path("values"),
                     "expected a non-empty list of values");
  }
  std::vector<AxisValue> out;
  for (size_t i = 0; i < values.size(); ++i) {
    absl::StatusOr<AxisValue> v =
        ReadValue(map.doc(), values[i], absl::StrCat(map.Path("values"), "[", i, "]"), version);
    if (!v.ok()) return v.status();
    out.push_back(*std::move(v));
  }
  return out;
}

void SubstituteAll(std::string* s, const std::string& version) {
  *s = absl::StrReplaceAll(*s, {{"{version}", version}});
}

// `{matrix_dir}` (the matrix file's absolute directory) in every string of a version value, so
// a matrix names its own scripts and wheelhouses without hard-coding where it lives.
void SubstituteMatrixDir(CellSettings& s, const std::string& matrix_dir) {
  auto sub = [&](std::string& text) { text = absl::StrReplaceAll(text, {{"{matrix_dir}", matrix_dir}}); };
  for (auto* m : {&s.env, &s.env_prepend, &s.env_append}) {
    for (auto& [k, v] : *m) sub(v);
  }
  for (auto& [k, list] : s.flags) {
    for (auto& f : list) sub(f);
  }
  if (s.launcher) sub(*s.launcher);
  for (auto* list : {&s.args, &s.launcher_prefix, &s.points}) {
    for (auto& a : *list) sub(a);
  }
  s.setup = ShellSubstitute(s.setup, {{"{matrix_dir}", matrix_dir}});  // a path may hold anything
}

CellSettings SubstituteVersion(CellSettings s, const std::string& version) {
  for (auto* m : {&s.env, &s.env_prepend, &s.env_append}) {
    for (auto& [k, v] : *m) SubstituteAll(&v, version);
  }
  for (auto& [k, list] : s.flags) {
    for (auto& f : list) SubstituteAll(&f, version);
  }
  if (s.launcher) SubstituteAll(&*s.launcher, version);
  for (auto& a : s.args) SubstituteAll(&a, version);
  for (auto& a : s.launcher_prefix) SubstituteAll(&a, version);
  for (auto& a : s.points) SubstituteAll(&a, version);
  // The set-up is shell: the label (a listing printed it; it may hold anything) is quoted there.
  s.setup = ShellSubstitute(s.setup, {{"{version}", version}});
  return s;
}

absl::StatusOr<MatrixAxis> ReadVersions(const YamlDoc& doc, const YAML::Node& node,
                                        const std::string& dir,
                                        const ListCommandRunner& list_runner) {
  std::vector<std::string> keys = {"name", "values", "list", "refine"};
  keys.insert(keys.end(), VersionProviderKeys().begin(), VersionProviderKeys().end());
  absl::StatusOr<YamlMap> map = YamlMap::Of(doc, node, "versions", keys);
  if (!map.ok()) return map.status();
  map->Child("refine");  // a bisect's finer axis (--refine, harness/bisect/bisect_levels.h); a sweep runs this one
  const std::string matrix_dir = AbsolutePath(dir);
  MatrixAxis axis;
  axis.is_version = true;
  axis.loc = map->Loc();
  absl::StatusOr<std::string> name = map->String("name", false);
  if (!name.ok()) return name.status();
  axis.name = name->empty() ? "version" : *name;
  std::string provider;
  int sources = map->Has("values") + map->Has("list");
  for (const std::string& key : VersionProviderKeys()) {
    if (map->Has(key)) {
      provider = key;
      ++sources;
    }
  }
  if (sources != 1) {
    return YamlError(map->Loc(), "versions", "needs exactly one of `values`, `list`, `pip`, `git` or `container`");
  }
  if (!provider.empty()) {
    GH_RETURN_IF_ERROR(ReadVersionProvider(*map, provider, matrix_dir, list_runner, &axis));
  } else if (map->Has("values")) {
    absl::StatusOr<std::vector<AxisValue>> values = ReadValues(*map, true);
    if (!values.ok()) return values.status();
    axis.values = *std::move(values);
  } else {
    absl::StatusOr<YamlMap> list =
        YamlMap::Of(doc, map->Child("list"), "versions.list", {"command", "template", "timeout"});
    if (!list.ok()) return list.status();
    absl::StatusOr<std::string> command = list->String("command", true);
    if (!command.ok()) return command.status();
    SourceLoc command_loc = list->LocOfKey("command");
    VersionListCommand request{*command, dir, kDefaultListTimeout};
    if (list->Has("timeout")) {
      GH_ASSIGN_OR_RETURN(request.timeout, list->Duration("timeout"));
    }
    CellSettings tmpl;
    YAML::Node tnode = list->Child("template");
    if (tnode.IsDefined() && !tnode.IsNull()) {
      absl::StatusOr<YamlMap> tmap = YamlMap::Of(doc, tnode, "versions.list.template", SettingKeys(true, /*label=*/false));
      if (!tmap.ok()) return tmap.status();
      absl::Status st = ReadSettings(*tmap, true, &tmpl);
      if (!st.ok()) return st;
      st = tmap->Finish();
      if (!st.ok()) return st;
    }
    absl::Status st = list->Finish();
    if (!st.ok()) return st;
    absl::StatusOr<std::string> output = list_runner(request);
    if (absl::IsCancelled(output.status())) return output.status();  // stopped: not bad input
    if (!output.ok()) {
      return YamlError(command_loc, "versions.list.command",
                       absl::StrCat("failed: ", output.status().message()));
    }
    for (absl::string_view line : absl::StrSplit(*output, '\n', absl::SkipWhitespace())) {
      std::string label(absl::StripAsciiWhitespace(line));
      // The command's labels name cells as a matrix's do: the same rules, refused at the source.
      if (absl::Status st = CheckLabel(label); !st.ok()) {
        return YamlError(command_loc, "versions.list.command", absl::StrCat("printed a bad version: ", st.message()));
      }
      axis.values.push_back(AxisValue{label, command_loc, SubstituteVersion(tmpl, label)});
    }
    if (axis.values.empty()) {
      return YamlError(command_loc, "versions.list.command", "printed no versions");
    }
  }
  for (AxisValue& v : axis.values) SubstituteMatrixDir(v.settings, matrix_dir);
  absl::Status st = map->Finish();
  if (!st.ok()) return st;
  st = CheckUniqueLabels(axis, "versions.values");
  if (!st.ok()) return st;
  return axis;
}

absl::StatusOr<std::vector<ComboRule>> ReadRules(const YamlDoc& doc, YamlMap& top,
                                                 const std::string& key,
                                                 const std::vector<MatrixAxis>& axes) {
  std::vector<ComboRule> rules;
  YAML::Node node = top.Child(key);
  if (!node.IsDefined() || node.IsNull()) return rules;
  if (!node.IsSequence()) {
    return doc.Error(node, key, "expected a list of {axis: label} maps");
  }
  for (size_t i = 0; i < node.size(); ++i) {
    std::string path = absl::StrCat(key, "[", i, "]");
    if (!node[i].IsMap() || node[i].size() == 0) {
      return doc.Error(node[i], path, "expected a non-empty {axis: label} map");
    }
    ComboRule rule;
    rule.loc = doc.Loc(node[i]);
    for (auto it = node[i].begin(); it != node[i].end(); ++it) {
      std::string axis_name = it->first.Scalar();
      absl::StatusOr<std::string> label =
          doc.Scalar(it->second, absl::StrCat(path, ".", axis_name), "a label");
      if (!label.ok()) return label.status();
      const MatrixAxis* axis = nullptr;
      for (const MatrixAxis& a : axes) {
        if (a.name == axis_name) axis = &a;
      }
      if (axis == nullptr) {
        return doc.Error(it->first, absl::StrCat(path, ".", axis_name),
                         "no axis of that name");
      }
      bool known = false;
      for (const AxisValue& v : axis->values) known = known || v.label == *label;
      if (!known) {
        return doc.Error(it->second, absl::StrCat(path, ".", axis_name),
                         absl::StrCat("axis '", axis_name, "' has no label '", *label, "'"));
      }
      rule.labels[axis_name] = *label;
    }
    rules.push_back(std::move(rule));
  }
  return rules;
}

// `scenarios:`: file names, or {file, points} maps; paths resolve against the matrix's dir.
absl::Status ReadScenarios(const YamlDoc& doc, YamlMap& top, const std::string& dir, Matrix& m) {
  YAML::Node scenarios = top.Child("scenarios");
  if (!scenarios.IsSequence() || scenarios.size() == 0) {
    return YamlError(scenarios.IsDefined() ? doc.Loc(scenarios) : top.Loc(), "scenarios",
                     "expected a non-empty list of {file: ..., points: [...]}");
  }
  for (size_t i = 0; i < scenarios.size(); ++i) {
    std::string path = absl::StrCat("scenarios[", i, "]");
    MatrixScenario s;
    s.loc = doc.Loc(scenarios[i]);
    if (scenarios[i].IsScalar()) {
      s.as_written = scenarios[i].Scalar();
    } else {
      absl::StatusOr<YamlMap> map = YamlMap::Of(doc, scenarios[i], path, {"file", "points"});
      if (!map.ok()) return map.status();
      absl::StatusOr<std::string> f = map->String("file", true);
      if (!f.ok()) return f.status();
      s.as_written = *f;
      absl::StatusOr<std::vector<std::string>> points = map->StringList("points");
      if (!points.ok()) return points.status();
      GH_RETURN_IF_ERROR(CheckPointFilters(*map, *points));
      s.points = *points;
      absl::Status st = map->Finish();
      if (!st.ok()) return st;
    }
    s.path = (!s.as_written.empty() && s.as_written[0] == '/') ? s.as_written
                                                                : absl::StrCat(dir, "/", s.as_written);
    m.scenarios.push_back(std::move(s));
  }

  return absl::OkStatus();
}

// The built-in defaults: 1 rank, mpirun, 10m, backend auto, no GPU sharing.
CellSettings BuiltInDefaults() {
  CellSettings d;
  d.ranks = 1;
  d.launcher = "mpirun";
  d.timeout = absl::Minutes(10);
  d.backend = "auto";
  d.share_gpu = false;
  return d;
}

// `defaults:` over the built-in ones.
absl::Status ReadDefaults(const YamlDoc& doc, YamlMap& top, Matrix& m) {
  m.defaults = BuiltInDefaults();
  m.defaults_loc = top.Loc();
  YAML::Node defaults = top.Child("defaults");
  if (defaults.IsDefined() && !defaults.IsNull()) {
    m.defaults_loc = doc.Loc(defaults);
    absl::StatusOr<YamlMap> map = YamlMap::Of(doc, defaults, "defaults", SettingKeys(false, /*label=*/false));
    if (!map.ok()) return map.status();
    CellSettings read;
    absl::Status st = ReadSettings(*map, false, &read);
    if (!st.ok()) return st;
    st = map->Finish();
    if (!st.ok()) return st;
    read.ranks = read.ranks.value_or(*m.defaults.ranks);
    read.launcher = read.launcher.value_or(*m.defaults.launcher);
    read.timeout = read.timeout.value_or(*m.defaults.timeout);
    read.backend = read.backend.value_or(*m.defaults.backend);
    read.share_gpu = read.share_gpu.value_or(*m.defaults.share_gpu);
    m.defaults = std::move(read);
  }

  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Matrix> LoadMatrixText(const std::string& text, const std::string& display_name,
                                      const std::string& dir,
                                      const ListCommandRunner& list_runner) {
  absl::StatusOr<std::vector<YAML::Node>> docs = ParseYamlDocuments(text, display_name);
  if (!docs.ok()) return docs.status();
  return LoadMatrixDocuments(*docs, display_name, dir, list_runner);
}

Matrix MatrixOfScenarioFile(const std::string& path) {
  const std::string absolute = AbsolutePath(path);
  Matrix m;
  m.name = std::filesystem::path(absolute).stem().string();
  m.file = path;
  m.dir = DirectoryOf(absolute);
  m.defaults = BuiltInDefaults();
  m.defaults_loc = SourceLoc{path, 1, 1};
  m.scenarios.push_back(MatrixScenario{absolute, absolute, {}, SourceLoc{path, 1, 1}});
  return m;
}

absl::StatusOr<Matrix> LoadMatrixDocuments(const std::vector<YAML::Node>& docs, const std::string& display_name,
                                           const std::string& dir, const ListCommandRunner& list_runner) {
  if (docs.size() != 1) {
    return YamlError(SourceLoc{display_name, 1, 1}, "(document)",
                     "a matrix file holds exactly one YAML document");
  }
  const YamlDoc doc(display_name);
  absl::StatusOr<YamlMap> top = YamlMap::Of(
      doc, docs[0], "",
      {"name", "description", "scenarios", "defaults", "axes", "versions", "include", "exclude"});
  if (!top.ok()) return top.status();
  Matrix m;
  m.file = display_name;
  m.dir = dir;
  absl::StatusOr<std::string> name = top->String("name", true);
  if (!name.ok()) return name.status();
  m.name = *name;
  absl::StatusOr<std::string> description = top->String("description", false);
  if (!description.ok()) return description.status();
  m.description = *description;

  GH_RETURN_IF_ERROR(ReadScenarios(doc, *top, dir, m));

  GH_RETURN_IF_ERROR(ReadDefaults(doc, *top, m));

  YAML::Node axes = top->Child("axes");
  if (axes.IsDefined() && !axes.IsNull()) {
    if (!axes.IsSequence()) {
      return doc.Error(axes, "axes", "expected a list of {name, values}");
    }
    for (size_t i = 0; i < axes.size(); ++i) {
      std::string path = absl::StrCat("axes[", i, "]");
      absl::StatusOr<YamlMap> map = YamlMap::Of(doc, axes[i], path, {"name", "values"});
      if (!map.ok()) return map.status();
      MatrixAxis axis;
      axis.loc = map->Loc();
      absl::StatusOr<std::string> axis_name = map->String("name", true);
      if (!axis_name.ok()) return axis_name.status();
      axis.name = *axis_name;
      absl::StatusOr<std::vector<AxisValue>> values = ReadValues(*map, false);
      if (!values.ok()) return values.status();
      axis.values = *std::move(values);
      absl::Status st = map->Finish();
      if (!st.ok()) return st;
      st = CheckUniqueLabels(axis, path + ".values");
      if (!st.ok()) return st;
      m.axes.push_back(std::move(axis));
    }
  }
  YAML::Node versions = top->Child("versions");
  if (versions.IsDefined() && !versions.IsNull()) {
    absl::StatusOr<MatrixAxis> axis = ReadVersions(doc, versions, dir, list_runner);
    if (!axis.ok()) return axis.status();
    m.axes.push_back(*std::move(axis));
    if (versions.IsMap()) m.refine = versions["refine"];
  }
  std::set<std::string> axis_names;
  size_t cells = 1;
  for (const MatrixAxis& axis : m.axes) {
    if (axis.name.empty() || axis.name.find_first_of("=,/ ") != std::string::npos) {
      return YamlError(axis.loc, "name",
                       absl::StrCat("axis name '", axis.name, "' must be non-empty without '=', ',', '/' or spaces"));
    }
    if (absl::Status st = CheckLabel(axis.name); !st.ok()) {
      return YamlError(axis.loc, "name", absl::StrCat("axis name: ", st.message()));
    }
    if (!axis_names.insert(axis.name).second) {
      return YamlError(axis.loc, "name", absl::StrCat("duplicate axis name '", axis.name, "'"));
    }
    cells *= axis.values.size();
    if (cells > kMaxCells) {
      return YamlError(axis.loc, "axes",
                       absl::StrCat("the matrix has more than ", kMaxCells, " cells"));
    }
  }
  absl::StatusOr<std::vector<ComboRule>> include = ReadRules(doc, *top, "include", m.axes);
  if (!include.ok()) return include.status();
  m.include = *std::move(include);
  absl::StatusOr<std::vector<ComboRule>> exclude = ReadRules(doc, *top, "exclude", m.axes);
  if (!exclude.ok()) return exclude.status();
  m.exclude = *std::move(exclude);
  absl::Status st = top->Finish();
  if (!st.ok()) return st;
  return m;
}

absl::StatusOr<Matrix> LoadMatrixFile(const std::string& path,
                                      const ListCommandRunner& list_runner) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": cannot read the matrix file: ", text.status().message()));
  }
  return LoadMatrixText(*text, path, DirectoryOf(path), list_runner);
}

}  // namespace gh::driver
