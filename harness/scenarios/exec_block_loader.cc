#include "harness/scenarios/exec_block_loader.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/core/duration_text.h"
#include "harness/scenarios/exec_block.h"
#include "harness/scenarios/exec_template.h"
#include "harness/core/name_rules.h"
#include "harness/core/regex.h"
#include "harness/core/status_macros.h"

namespace gh {
namespace {

// What the rules of one exec block read with: the file and the placeholders it may use.
struct ExecContext {
  const YamlDoc& doc;
  std::set<std::string> placeholders;  // fixed ones and the kind's parameters
};

// A string template (placeholders checked); with `regex`, also a valid RE2 pattern once every
// placeholder stands for plain text.
absl::StatusOr<std::string> Template(const ExecContext& ctx, const YAML::Node& node,
                                     const std::string& path, bool regex) {
  GH_ASSIGN_OR_RETURN(std::string text,
                      ctx.doc.Scalar(node, path, regex ? "a regular expression" : "a string"));
  absl::Status placeholders = CheckExecTemplate(text, ctx.placeholders);
  if (!placeholders.ok()) {
    std::vector<std::string> names(ctx.placeholders.begin(), ctx.placeholders.end());
    return ctx.doc.Error(node, path, absl::StrCat(placeholders.message(), " (known: ",
                                                  absl::StrJoin(names, ", "),
                                                  "; write {{ for a brace)"));
  }
  if (regex) {
    std::map<std::string, std::string> sample;
    for (const std::string& name : ctx.placeholders) sample[name] = "x";
    absl::StatusOr<std::string> expanded = ExpandExecTemplate(text, sample);
    absl::StatusOr<Regex> compiled = Regex::Compile(expanded.ok() ? *expanded : text);
    if (!compiled.ok()) {
      return ctx.doc.Error(node, path, absl::StrCat("invalid regular expression '", text, "': ",
                                                    compiled.status().message()));
    }
  }
  return text;
}

// One template or a list of them.
absl::StatusOr<std::vector<std::string>> TemplateList(const ExecContext& ctx,
                                                      const YAML::Node& node,
                                                      const std::string& path, bool regex) {
  std::vector<std::string> out;
  if (node.IsScalar()) {
    GH_ASSIGN_OR_RETURN(std::string one, Template(ctx, node, path, regex));
    out.push_back(one);
    return out;
  }
  if (!node.IsSequence()) {
    return ctx.doc.Error(node, path, absl::StrCat("expected a list of ",
                                                  regex ? "regular expressions" : "strings",
                                                  ", got ", NodeKind(node)));
  }
  for (size_t i = 0; i < node.size(); ++i) {
    GH_ASSIGN_OR_RETURN(std::string item,
                        Template(ctx, node[i], absl::StrCat(path, "[", i, "]"), regex));
    out.push_back(item);
  }
  return out;
}

absl::Status LoadEnv(const ExecContext& ctx, const YAML::Node& node, const std::string& path,
                     ExecBlock& exec) {
  if (!node.IsMap()) {
    return ctx.doc.Error(node, path, absl::StrCat("expected a map of variable names to values, got ",
                                                  NodeKind(node)));
  }
  GH_ASSIGN_OR_RETURN(std::vector<YamlEntry> vars, ctx.doc.Entries(node, path));
  for (const YamlEntry& var : vars) {
    const std::string var_path = absl::StrCat(path, ".", PrintableText(var.key));
    if (absl::Status st = CheckEnvName(var.key); !st.ok()) return ctx.doc.Error(var.key_node, var_path, st.message());
    std::string text;
    if (!var.value.IsNull()) {
      GH_ASSIGN_OR_RETURN(text, Template(ctx, var.value, var_path, false));
      if (absl::Status st = CheckEnvValue(text); !st.ok()) return ctx.doc.Error(var.value, var_path, st.message());
    }
    exec.env.emplace_back(var.key, text);
  }
  return absl::OkStatus();
}

absl::StatusOr<ExecSignatureRule> LoadSignature(const ExecContext& ctx, const YAML::Node& item,
                                                const std::string& path) {
  if (!item.IsMap()) {
    return ctx.doc.Error(item, path,
                         absl::StrCat("expected {name, regex, outcome}, got ", NodeKind(item)));
  }
  GH_ASSIGN_OR_RETURN(YamlMap map, YamlMap::Of(ctx.doc, item, path, {"name", "regex", "outcome"}));
  ExecSignatureRule rule;
  if (!map.Has("name")) return ctx.doc.Error(item, map.Path("name"), "missing required key");
  if (!map.Has("regex")) return ctx.doc.Error(item, map.Path("regex"), "missing required key");
  const YAML::Node name = map.Child("name");
  GH_ASSIGN_OR_RETURN(rule.name, ctx.doc.Scalar(name, map.Path("name"), "a signature name"));
  if (rule.name.empty()) return ctx.doc.Error(name, map.Path("name"), "must not be empty");
  GH_ASSIGN_OR_RETURN(rule.regex, Template(ctx, map.Child("regex"), map.Path("regex"), true));
  if (map.Has("outcome")) {
    const YAML::Node outcome = map.Child("outcome");
    GH_ASSIGN_OR_RETURN(std::string text,
                        ctx.doc.Scalar(outcome, map.Path("outcome"), "error or fail"));
    if (text != "error" && text != "fail") {
      return ctx.doc.Error(outcome, map.Path("outcome"),
                           absl::StrCat("expected error or fail, got '", text, "'"));
    }
    rule.outcome = text == "error" ? Outcome::kError : Outcome::kFail;
  }
  GH_RETURN_IF_ERROR(map.Finish());
  return rule;
}

absl::StatusOr<ExecSkipRule> LoadSkip(const ExecContext& ctx, const YAML::Node& item,
                                      const std::string& path) {
  ExecSkipRule rule;
  if (item.IsScalar()) {
    GH_ASSIGN_OR_RETURN(rule.regex, Template(ctx, item, path, true));
    return rule;
  }
  if (!item.IsMap()) {
    return ctx.doc.Error(item, path, absl::StrCat("expected a regular expression or {regex, "
                                                  "reason}, got ", NodeKind(item)));
  }
  GH_ASSIGN_OR_RETURN(YamlMap map, YamlMap::Of(ctx.doc, item, path, {"regex", "reason"}));
  if (!map.Has("regex")) return ctx.doc.Error(item, map.Path("regex"), "missing required key");
  GH_ASSIGN_OR_RETURN(rule.regex, Template(ctx, map.Child("regex"), map.Path("regex"), true));
  if (map.Has("reason")) {
    GH_ASSIGN_OR_RETURN(rule.reason, Template(ctx, map.Child("reason"), map.Path("reason"), false));
  }
  GH_RETURN_IF_ERROR(map.Finish());
  return rule;
}

// A list of items read by `load` (LoadSignature, LoadSkip) into `out`.
template <typename Rule, typename Load>
absl::Status LoadRules(const ExecContext& ctx, const YAML::Node& node, const std::string& path,
                       absl::string_view expected, Load load, std::vector<Rule>& out) {
  if (!node.IsSequence()) {
    return ctx.doc.Error(node, path, absl::StrCat("expected ", expected, ", got ", NodeKind(node)));
  }
  for (size_t i = 0; i < node.size(); ++i) {
    GH_ASSIGN_OR_RETURN(Rule rule, load(ctx, node[i], absl::StrCat(path, "[", i, "]")));
    out.push_back(std::move(rule));
  }
  return absl::OkStatus();
}

absl::Status LoadTimeout(const YamlDoc& doc, YamlMap& map, const ScenarioSpec& spec, ExecBlock& exec) {
  const YAML::Node value = map.Child("timeout");
  GH_ASSIGN_OR_RETURN(absl::Duration timeout, doc.Duration(value, map.Path("timeout")));
  if (timeout >= spec.timeout) {
    return doc.Error(value, map.Path("timeout"),
                     absl::StrCat("must be shorter than the scenario's timeout (",
                                  FormatDurationText(spec.timeout),
                                  ") so that the rank records it before the watchdog ends the job"));
  }
  exec.timeout = timeout;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::shared_ptr<const KindBlock>> ReadExecBlock(const YamlDoc& doc, const YAML::Node& node,
                                                               const KindInfo& kind, const ScenarioSpec& spec) {
  if (!node.IsDefined()) {
    return YamlError(spec.loc, "exec",
                     absl::StrCat("missing required key (kind '", kind.name, "' runs the command it names)"));
  }
  GH_ASSIGN_OR_RETURN(
      YamlMap map,
      YamlMap::Of(doc, node, "exec",
                  {"argv", "env", "workdir", "pass", "signatures", "skip", "exit_status",
                   "tail_lines", "timeout"},
                  "a map with argv (and env, workdir, pass, signatures, skip...)"));
  ExecContext ctx{doc, ExecFixedPlaceholders()};
  for (const ParamDef& def : kind.params) ctx.placeholders.insert(def.name);
  auto block = std::make_shared<ExecBlock>();
  ExecBlock& exec = *block;
  if (!map.Has("argv")) return doc.Error(node, "exec.argv", "missing required key");
  const YAML::Node argv = map.Child("argv");
  GH_ASSIGN_OR_RETURN(exec.argv, TemplateList(ctx, argv, map.Path("argv"), false));
  if (exec.argv.empty() || exec.argv[0].empty()) {
    return doc.Error(argv, map.Path("argv"), "needs at least the program to run");
  }
  if (map.Has("env")) GH_RETURN_IF_ERROR(LoadEnv(ctx, map.Child("env"), map.Path("env"), exec));
  if (map.Has("workdir")) {
    GH_ASSIGN_OR_RETURN(exec.workdir, Template(ctx, map.Child("workdir"), map.Path("workdir"), false));
  }
  if (map.Has("pass")) {
    GH_ASSIGN_OR_RETURN(exec.pass, TemplateList(ctx, map.Child("pass"), map.Path("pass"), true));
  }
  if (map.Has("signatures")) {
    GH_RETURN_IF_ERROR(LoadRules(ctx, map.Child("signatures"), map.Path("signatures"),
                                 "a list of {name, regex, outcome}", LoadSignature, exec.signatures));
  }
  if (map.Has("skip")) {
    GH_RETURN_IF_ERROR(LoadRules(ctx, map.Child("skip"), map.Path("skip"),
                                 "a list of regular expressions or {regex, reason}", LoadSkip,
                                 exec.skips));
  }
  if (map.Has("exit_status")) {
    GH_ASSIGN_OR_RETURN(int64_t status, map.Int("exit_status", 0, 255));
    exec.exit_status = static_cast<int>(status);
  }
  if (map.Has("tail_lines")) {
    GH_ASSIGN_OR_RETURN(int64_t lines, map.Int("tail_lines", 0, 10000));
    exec.tail_lines = static_cast<int>(lines);
  }
  if (map.Has("timeout")) GH_RETURN_IF_ERROR(LoadTimeout(doc, map, spec, exec));
  GH_RETURN_IF_ERROR(map.Finish());
  return block;
}

}  // namespace gh
