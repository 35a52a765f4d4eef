#include "harness/core/expectation_loader.h"

#include <algorithm>
#include <climits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "harness/core/did_you_mean.h"
#include "harness/core/expectation_conditions.h"
#include "harness/core/regex.h"
#include "harness/core/status_macros.h"
#include "harness/core/yaml_param_value.h"

namespace gh {
namespace {

const std::vector<std::string>& FactNames() {
  static const std::vector<std::string> names = {"backend", "nranks", "nccl", "env", "gpu_shared", "gpu"};
  return names;
}

const ParamDef* FindParam(const KindInfo& kind, const std::string& name) {
  for (const ParamDef& def : kind.params) {
    if (def.name == name) return &def;
  }
  return nullptr;
}

// The items of a condition value: a list, or one scalar standing for a list of one.
absl::StatusOr<std::vector<std::pair<YAML::Node, std::string>>> Items(const YamlDoc& doc,
                                                                      const YAML::Node& value,
                                                                      const std::string& path) {
  std::vector<std::pair<YAML::Node, std::string>> items;  // node, path
  if (!value.IsSequence()) {
    items.emplace_back(value, path);
    return items;
  }
  if (value.size() == 0) return doc.Error(value, path, "expected at least one value, got an empty list");
  for (size_t i = 0; i < value.size(); ++i) {
    items.emplace_back(value[i], absl::StrCat(path, "[", i, "]"));
  }
  return items;
}

// `env: {VAR: value | [values] | null}`: null stands for "unset".
absl::Status WhenEnv(const YamlDoc& doc, const YamlEntry& entry, const std::string& path,
                     ExpectationRule& rule) {
  if (!entry.value.IsMap()) {
    return doc.Error(entry.value, path,
                     absl::StrCat("expected a map of environment variables to values (null: "
                                  "unset), got ", NodeKind(entry.value)));
  }
  GH_ASSIGN_OR_RETURN(std::vector<YamlEntry> vars, doc.Entries(entry.value, path));
  for (const YamlEntry& var : vars) {
    const std::string var_path = absl::StrCat(path, ".", var.key);
    std::vector<YAML::Node> values;
    if (var.value.IsSequence()) {
      if (var.value.size() == 0) {
        return doc.Error(var.value, var_path, "expected at least one value, got an empty list");
      }
      for (size_t i = 0; i < var.value.size(); ++i) values.push_back(var.value[i]);
    } else {
      values.push_back(var.value);
    }
    std::vector<std::optional<std::string>> accepted;
    for (const YAML::Node& value : values) {
      if (value.IsNull()) {
        accepted.push_back(std::nullopt);
        continue;
      }
      GH_ASSIGN_OR_RETURN(std::string text, doc.Scalar(value, var_path, "a value (or null: unset)"));
      accepted.push_back(text);
    }
    rule.when_env[var.key] = accepted;
  }
  return absl::OkStatus();
}

// `nccl: ">=2.28.9"` or `nranks: ">=4"`: a range of dotted versions.
absl::Status WhenRange(const YamlDoc& doc, const YamlEntry& entry, const std::string& path,
                       ExpectationRule& rule) {
  GH_ASSIGN_OR_RETURN(std::string text, doc.Scalar(entry.value, path, "a range such as >=2.28.9"));
  absl::StatusOr<std::vector<RangeClause>> clauses = ParseRange(text);
  if (!clauses.ok()) return doc.Error(entry.value, path, clauses.status().message());
  rule.when_ranges[RangeFactName(entry.key)] = text;
  return absl::OkStatus();
}

// `bytes: ">=1G,<4G"` on an integer or size parameter: clauses that must all hold.
absl::Status WhenParamRange(const YamlDoc& doc, const YamlEntry& entry, const std::string& path,
                            const ParamDef& def, ExpectationRule& rule) {
  GH_ASSIGN_OR_RETURN(std::string text, doc.Scalar(entry.value, path, "a range such as >=1G"));
  std::vector<std::pair<std::string, int64_t>> clauses;
  for (absl::string_view clause : absl::StrSplit(text, ',')) {
    clause = absl::StripAsciiWhitespace(clause);
    std::string op = "==";
    for (const char* candidate : {"==", "!=", "<=", ">=", "<", ">"}) {
      if (absl::StartsWith(clause, candidate)) {
        op = candidate;
        break;
      }
    }
    if (absl::StartsWith(clause, op)) clause.remove_prefix(op.size());
    clause = absl::StripAsciiWhitespace(clause);
    int64_t number = 0;
    absl::StatusOr<int64_t> bytes = ParseBytes(std::string_view(clause.data(), clause.size()));
    if (def.type == ParamType::kBytes && bytes.ok()) {
      number = *bytes;
    } else if (!absl::SimpleAtoi(clause, &number)) {
      return doc.Error(entry.value, path,
                       absl::StrCat("bad range clause '", std::string(clause), "' in '", text,
                                    "': expected an operator (==, !=, <, <=, >, >=) and ",
                                    def.type == ParamType::kBytes ? "a size (1G, 4096)" : "an integer"));
    }
    clauses.emplace_back(op, number);
  }
  rule.when_param_ranges[entry.key] = std::move(clauses);
  return absl::OkStatus();
}

// `gpu: "NVIDIA H200*"` or a list of such globs.
absl::Status WhenGpu(const YamlDoc& doc, const YamlEntry& entry, const std::string& path,
                     ExpectationRule& rule) {
  GH_ASSIGN_OR_RETURN(auto items, Items(doc, entry.value, path));
  for (const auto& [item, item_path] : items) {
    GH_ASSIGN_OR_RETURN(std::string glob, doc.Scalar(item, item_path, "a GPU model glob such as 'NVIDIA H200*'"));
    rule.when_gpu.push_back(glob);
  }
  return absl::OkStatus();
}

// A parameter (its values must be ones its axis takes), `backend` or `nranks`: lists of values.
absl::Status WhenValues(const YamlDoc& doc, const YamlEntry& entry, const std::string& path,
                        const KindInfo& kind, const ScenarioSpec& spec, ExpectationRule& rule) {
  const ParamDef* def = FindParam(kind, entry.key);
  GH_ASSIGN_OR_RETURN(auto items, Items(doc, entry.value, path));
  std::vector<std::string> accepted;
  for (const auto& [item, item_path] : items) {
    if (def != nullptr) {
      GH_ASSIGN_OR_RETURN(ParamValue value, ReadParamValue(doc, *def, item, item_path));
      std::string formatted = FormatParamValue(def->type, value);
      const Axis& axis = spec.axes[static_cast<size_t>(def - kind.params.data())];
      std::vector<std::string> axis_values;
      for (const ParamValue& v : axis.values) axis_values.push_back(FormatParamValue(axis.type, v));
      if (std::find(axis_values.begin(), axis_values.end(), formatted) == axis_values.end()) {
        return doc.Error(item, item_path,
                         absl::StrCat(formatted, " is not a value the ", entry.key,
                                      " axis takes (its values: ", absl::StrJoin(axis_values, ", "),
                                      ")"));
      }
      accepted.push_back(formatted);
    } else if (entry.key == "backend") {
      GH_ASSIGN_OR_RETURN(std::string text, doc.Scalar(item, item_path, "host or cuda"));
      if (text != "host" && text != "cuda") {
        return doc.Error(item, item_path, absl::StrCat("expected host or cuda, got '", text, "'"));
      }
      accepted.push_back(text);
    } else {  // nranks
      GH_ASSIGN_OR_RETURN(int64_t n, doc.Int(item, item_path, 1, INT_MAX));
      accepted.push_back(absl::StrCat(n));
    }
  }
  (def != nullptr ? rule.when_params : rule.when_facts)[entry.key] = accepted;
  return absl::OkStatus();
}

}  // namespace

absl::Status LoadWhenConditions(const YamlDoc& doc, const YAML::Node& node, const std::string& path,
                                const KindInfo& kind, const ScenarioSpec& spec,
                                ExpectationRule& rule) {
  if (!node.IsMap()) {
    return doc.Error(node, path, absl::StrCat("expected a map of parameters (or backend, nranks) "
                                              "to values, got ", NodeKind(node)));
  }
  GH_ASSIGN_OR_RETURN(std::vector<YamlEntry> entries, doc.Entries(node, path));
  for (const YamlEntry& entry : entries) {
    const std::string key_path = absl::StrCat(path, ".", entry.key);
    const bool is_param = FindParam(kind, entry.key) != nullptr;
    const std::vector<std::string>& facts = FactNames();
    if (!is_param && std::find(facts.begin(), facts.end(), entry.key) == facts.end()) {
      std::vector<std::string> names;
      for (const ParamDef& d : kind.params) names.push_back(d.name);
      std::vector<std::string> choices = names;
      choices.insert(choices.end(), facts.begin(), facts.end());
      return doc.Error(entry.key_node, key_path,
                       absl::StrCat("not a parameter of kind '", kind.name, "' nor a fact (parameters: ",
                                    absl::StrJoin(names, ", "), "; facts: ",
                                    absl::StrJoin(facts, ", "), ")",
                                    DidYouMeanSuffix(entry.key, choices)));
    }
    const ParamDef* def = FindParam(kind, entry.key);
    if (def != nullptr && (def->type == ParamType::kInt || def->type == ParamType::kBytes) &&
        entry.value.IsScalar() && LooksLikeRange(entry.value.Scalar())) {
      GH_RETURN_IF_ERROR(WhenParamRange(doc, entry, key_path, *def, rule));
    } else if (!is_param && entry.key == "gpu") {
      GH_RETURN_IF_ERROR(WhenGpu(doc, entry, key_path, rule));
    } else if (!is_param && entry.key == "env") {
      GH_RETURN_IF_ERROR(WhenEnv(doc, entry, key_path, rule));
    } else if (!is_param && (entry.key == "nccl" || (entry.key == "nranks" && entry.value.IsScalar() &&
                                                     LooksLikeRange(entry.value.Scalar())))) {
      GH_RETURN_IF_ERROR(WhenRange(doc, entry, key_path, rule));
    } else if (!is_param && entry.key == "gpu_shared") {
      GH_ASSIGN_OR_RETURN(std::string text, doc.Scalar(entry.value, key_path, "true or false"));
      if (text != "true" && text != "false") {
        return doc.Error(entry.value, key_path,
                         absl::StrCat("expected true or false, got '", text, "'"));
      }
      rule.when_facts["gpu_shared"] = {text};
    } else {
      GH_RETURN_IF_ERROR(WhenValues(doc, entry, key_path, kind, spec, rule));
    }
  }
  return absl::OkStatus();
}

namespace {

absl::Status ReadOutcome(const YamlDoc& doc, const YAML::Node& node, const std::string& path,
                         ExpectationRule& rule) {
  GH_ASSIGN_OR_RETURN(std::string text, doc.Scalar(node, path, "an outcome"));
  absl::StatusOr<Outcome> outcome = ParseExpectableOutcome(text);
  if (!outcome.ok()) return doc.Error(node, path, outcome.status().message());
  rule.expect.outcome = *outcome;
  return absl::OkStatus();
}

// Checks a regex at load time: "invalid regular expression 'x': why" at the value.
absl::StatusOr<std::string> ReadRegex(const YamlDoc& doc, const YAML::Node& value, const std::string& path) {
  GH_ASSIGN_OR_RETURN(std::string regex, doc.Scalar(value, path, "a regular expression"));
  absl::StatusOr<Regex> compiled = Regex::Compile(regex);
  if (!compiled.ok()) {
    return doc.Error(value, path,
                     absl::StrCat("invalid regular expression '", regex, "': ", compiled.status().message()));
  }
  return regex;
}

// `known: {reference: URL, versions: {nccl: ">=2.30.3"}, signature: REGEX}`.
absl::StatusOr<KnownIssue> LoadKnown(const YamlDoc& doc, const YAML::Node& node, const std::string& path) {
  GH_ASSIGN_OR_RETURN(YamlMap map, YamlMap::Of(doc, node, path, {"reference", "versions", "signature"},
                                               "a map with reference, versions and signature"));
  KnownIssue known;
  GH_ASSIGN_OR_RETURN(known.reference, map.String("reference", /*required=*/true));
  if (absl::StripAsciiWhitespace(known.reference).empty()) {
    return map.Error("reference", "expected a public reference (an issue's URL) or who measured it and when");
  }
  if (!map.Has("versions")) return doc.Error(node, map.Path("versions"), "missing required key");
  const YAML::Node versions = map.Child("versions");
  if (!versions.IsMap() || versions.size() == 0) {
    return doc.Error(versions, map.Path("versions"),
                     absl::StrCat("expected a map of libraries to version ranges ({nccl: \">=2.30.3\"}), got ",
                                  NodeKind(versions)));
  }
  GH_ASSIGN_OR_RETURN(std::vector<YamlEntry> entries, doc.Entries(versions, map.Path("versions")));
  for (const YamlEntry& entry : entries) {
    const std::string entry_path = absl::StrCat(map.Path("versions"), ".", entry.key);
    GH_ASSIGN_OR_RETURN(std::string range, doc.Scalar(entry.value, entry_path, "a version range such as >=2.30.3"));
    absl::StatusOr<std::vector<RangeClause>> clauses = ParseRange(range);
    if (!clauses.ok()) return doc.Error(entry.value, entry_path, clauses.status().message());
    known.versions[entry.key] = range;
  }
  if (map.Has("signature")) {
    GH_ASSIGN_OR_RETURN(known.signature_regex, ReadRegex(doc, map.Child("signature"), map.Path("signature")));
  }
  GH_RETURN_IF_ERROR(map.Finish());
  return known;
}

absl::StatusOr<ExpectationRule> LoadRule(const YamlDoc& doc, const YAML::Node& node,
                                         const std::string& path, const KindInfo& kind,
                                         const ScenarioSpec& spec) {
  ExpectationRule rule;
  if (node.IsScalar()) {
    GH_RETURN_IF_ERROR(ReadOutcome(doc, node, path, rule));
    return rule;
  }
  if (!node.IsMap()) {
    return doc.Error(node, path, absl::StrCat("expected an outcome (pass, fail, ...) or a map with "
                                              "outcome, signature, reason, when, known; got ", NodeKind(node)));
  }
  GH_ASSIGN_OR_RETURN(YamlMap map,
                      YamlMap::Of(doc, node, path, {"outcome", "signature", "reason", "when", "known"}));
  if (!map.Has("outcome")) return doc.Error(node, map.Path("outcome"), "missing required key");
  GH_RETURN_IF_ERROR(ReadOutcome(doc, map.Child("outcome"), map.Path("outcome"), rule));
  if (map.Has("signature")) {
    GH_ASSIGN_OR_RETURN(rule.expect.signature_regex,
                        ReadRegex(doc, map.Child("signature"), map.Path("signature")));
  }
  if (map.Has("known")) {
    GH_ASSIGN_OR_RETURN(rule.known, LoadKnown(doc, map.Child("known"), map.Path("known")));
  }
  if (map.Has("reason")) {
    GH_ASSIGN_OR_RETURN(rule.expect.reason, doc.Scalar(map.Child("reason"), map.Path("reason"), "text"));
  }
  if (map.Has("when")) {
    GH_RETURN_IF_ERROR(LoadWhenConditions(doc, map.Child("when"), map.Path("when"), kind, spec, rule));
  }
  GH_RETURN_IF_ERROR(map.Finish());
  return rule;
}

}  // namespace

absl::Status LoadExpectations(const YamlDoc& doc, const YAML::Node& node, const KindInfo& kind,
                              ScenarioSpec& spec) {
  if (!node.IsSequence()) {
    GH_ASSIGN_OR_RETURN(ExpectationRule rule, LoadRule(doc, node, "expect", kind, spec));
    spec.expect.rules.push_back(std::move(rule));
    return absl::OkStatus();
  }
  if (node.size() == 0) return doc.Error(node, "expect", "expected at least one rule, got an empty list");
  for (size_t i = 0; i < node.size(); ++i) {
    GH_ASSIGN_OR_RETURN(ExpectationRule rule,
                        LoadRule(doc, node[i], absl::StrCat("expect[", i, "]"), kind, spec));
    spec.expect.rules.push_back(std::move(rule));
  }
  return absl::OkStatus();
}

absl::Status LoadValidFor(const YamlDoc& doc, const YAML::Node& node, const KindInfo& kind, ScenarioSpec& spec) {
  if (node.IsMap()) {
    GH_ASSIGN_OR_RETURN(std::vector<YamlEntry> entries, doc.Entries(node, "valid_for"));
    for (const YamlEntry& entry : entries) {
      if (FindParam(kind, entry.key) == nullptr) continue;
      return doc.Error(entry.key_node, absl::StrCat("valid_for.", entry.key),
                       absl::StrCat("a parameter cannot bound where expectations hold (list the values it "
                                    "should take in params.", entry.key, "); valid_for takes facts: ",
                                    absl::StrJoin(FactNames(), ", ")));
    }
  } else {
    return doc.Error(node, "valid_for",
                     absl::StrCat("expected a map of facts (", absl::StrJoin(FactNames(), ", "),
                                  ") to values, got ", NodeKind(node)));
  }
  ExpectationRule range;
  GH_RETURN_IF_ERROR(LoadWhenConditions(doc, node, "valid_for", kind, spec, range));
  spec.valid_for = std::move(range);
  return absl::OkStatus();
}

}  // namespace gh
