#include "harness/core/scenario_loader.h"

#include <charconv>
#include <cmath>
#include <map>
#include <regex>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "harness/core/exec_template.h"
#include "harness/core/expectation_conditions.h"
#include "harness/core/file_util.h"
#include "harness/core/point.h"
#include "yaml-cpp/yaml.h"

namespace gh {
namespace {

constexpr absl::string_view kTopLevelKeys[] = {"name",   "kind",   "description", "params",
                                              "ranks",  "trials", "timeout",     "warmup",
                                              "iterations", "expect", "verdict", "exec"};
constexpr int kMaxTrials = 10000;
constexpr int kMaxIterations = 1000000;  // warmup and iterations alike
constexpr absl::string_view kFactNames[] = {"backend", "nranks", "nccl", "env", "gpu_shared"};

#define GH_RETURN_IF_ERROR(expr)             \
  do {                                       \
    absl::Status gh_status_ = (expr);        \
    if (!gh_status_.ok()) return gh_status_; \
  } while (false)

std::string NodeKind(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Null: return "nothing";
    case YAML::NodeType::Scalar: return absl::StrCat("'", node.Scalar(), "'");
    default: return "nothing";
  }
}

bool ValidScenarioName(absl::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

absl::StatusOr<int64_t> ParseInt64(absl::string_view text) {
  int64_t value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (begin != end && *begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    return absl::InvalidArgumentError(absl::StrCat("expected an integer, got '", text, "'"));
  }
  return value;
}

// Map entries with their nodes, in document order, duplicates rejected.
struct Entry {
  std::string key;
  YAML::Node key_node;
  YAML::Node value;
};

class DocumentLoader {
 public:
  DocumentLoader(const std::string& file, const ScenarioRegistry& registry)
      : file_(file), registry_(registry) {}

  absl::StatusOr<ScenarioSpec> Load(const YAML::Node& doc);

 private:
  SourceLoc Loc(const YAML::Node& node, const SourceLoc& fallback) const {
    if (node.IsNull()) {
      // yaml-cpp marks an empty value at the next token, possibly lines later: use its key.
      for (const auto& [value, key_loc] : null_value_keys_) {
        if (value.is(node)) return key_loc;
      }
    }
    YAML::Mark mark = node.Mark();
    if (mark.is_null()) return fallback;
    return SourceLoc{file_, mark.line + 1, mark.column + 1};
  }
  absl::Status Error(const SourceLoc& loc, absl::string_view key, absl::string_view message) const {
    return absl::InvalidArgumentError(absl::StrCat(loc.ToString(), ": ", key, ": ", message));
  }
  absl::Status Error(const YAML::Node& node, absl::string_view key,
                     absl::string_view message) const {
    return Error(Loc(node, doc_loc_), key, message);
  }

  absl::StatusOr<std::vector<Entry>> Entries(const YAML::Node& map, absl::string_view path) const;
  absl::StatusOr<std::string> Scalar(const YAML::Node& node, absl::string_view path,
                                     absl::string_view what) const;
  absl::StatusOr<int64_t> IntInRange(const YAML::Node& node, absl::string_view path, int64_t min,
                                     int64_t max) const;
  absl::StatusOr<ParamValue> ParamScalar(const ParamDef& def, const YAML::Node& node,
                                         const std::string& path) const;
  absl::Status LoadParams(const YAML::Node& node, ScenarioSpec& spec);
  absl::Status CheckPointCount(const YAML::Node& params_node, const ScenarioSpec& spec) const;
  absl::Status LoadRanks(const YAML::Node& node, ScenarioSpec& spec) const;
  absl::Status LoadTimeout(const YAML::Node& node, ScenarioSpec& spec) const;
  absl::Status LoadVerdict(const YAML::Node& node, ScenarioSpec& spec) const;
  absl::Status LoadExec(const YAML::Node& node, ScenarioSpec& spec) const;
  absl::StatusOr<std::string> ExecTemplate(const YAML::Node& node, const std::string& path,
                                           const std::set<std::string>& known, bool regex) const;
  absl::StatusOr<std::vector<std::string>> ExecTemplateList(const YAML::Node& node,
                                                            const std::string& path,
                                                            const std::set<std::string>& known,
                                                            bool regex) const;
  absl::Status LoadExpect(const YAML::Node& node, ScenarioSpec& spec) const;
  absl::StatusOr<ExpectationRule> LoadRule(const YAML::Node& node, const std::string& path,
                                           const ScenarioSpec& spec) const;
  absl::Status LoadWhen(const YAML::Node& node, const std::string& path,
                        const ScenarioSpec& spec, ExpectationRule& rule) const;

  const std::string& file_;
  const ScenarioRegistry& registry_;
  const KindInfo* kind_ = nullptr;
  SourceLoc doc_loc_;
  mutable std::vector<std::pair<YAML::Node, SourceLoc>> null_value_keys_;
};

absl::StatusOr<std::vector<Entry>> DocumentLoader::Entries(const YAML::Node& map,
                                                           absl::string_view path) const {
  std::vector<Entry> entries;
  std::map<std::string, SourceLoc> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    // Copies: it->first lives in a proxy that dies with the expression.
    YAML::Node key = it->first;
    YAML::Node value = it->second;
    std::string where = path.empty() ? "key" : std::string(path);
    if (!key.IsScalar()) return Error(key, where, "a key must be a plain name");
    std::string name = key.Scalar();
    std::string key_path = path.empty() ? name : absl::StrCat(path, ".", name);
    auto [prev, inserted] = seen.emplace(name, Loc(key, doc_loc_));
    if (!inserted) {
      return Error(key, key_path, absl::StrCat("duplicate key (first at ", prev->second.ToString(), ")"));
    }
    if (value.IsNull()) null_value_keys_.emplace_back(value, Loc(key, doc_loc_));
    entries.push_back({name, key, value});
  }
  return entries;
}

absl::StatusOr<std::string> DocumentLoader::Scalar(const YAML::Node& node, absl::string_view path,
                                                   absl::string_view what) const {
  if (!node.IsScalar()) return Error(node, path, absl::StrCat("expected ", what, ", got ", NodeKind(node)));
  return node.Scalar();
}

absl::StatusOr<int64_t> DocumentLoader::IntInRange(const YAML::Node& node, absl::string_view path,
                                                   int64_t min, int64_t max) const {
  absl::StatusOr<std::string> text = Scalar(node, path, "an integer");
  if (!text.ok()) return text.status();
  absl::StatusOr<int64_t> value = ParseInt64(*text);
  if (!value.ok()) return Error(node, path, value.status().message());
  if (*value < min || *value > max) {
    if (max >= INT_MAX && *value < min) {
      return Error(node, path, absl::StrCat("must be at least ", min, ", got ", *value));
    }
    return Error(node, path,
                 absl::StrCat("must be between ", min, " and ", max, ", got ", *value));
  }
  return *value;
}

absl::StatusOr<ParamValue> DocumentLoader::ParamScalar(const ParamDef& def, const YAML::Node& node,
                                                       const std::string& path) const {
  absl::string_view what;
  switch (def.type) {
    case ParamType::kInt: what = "an integer"; break;
    case ParamType::kFloat: what = "a number"; break;
    case ParamType::kBool: what = "true or false"; break;
    case ParamType::kString: what = "a string"; break;
    case ParamType::kEnum: what = "one of the choices"; break;
    case ParamType::kBytes: what = "a byte size such as 4K or 1M"; break;
  }
  if (!node.IsScalar()) {
    if (def.type == ParamType::kEnum) {
      return Error(node, path, absl::StrCat("expected one of ", absl::StrJoin(def.choices, ", "),
                                            ", got ", NodeKind(node)));
    }
    return Error(node, path, absl::StrCat("expected ", what, ", got ", NodeKind(node)));
  }
  const std::string& text = node.Scalar();
  ParamValue value;
  double numeric = 0;  // for the bounds check
  switch (def.type) {
    case ParamType::kInt: {
      absl::StatusOr<int64_t> v = ParseInt64(text);
      if (!v.ok()) return Error(node, path, v.status().message());
      value = *v;
      numeric = static_cast<double>(*v);
      break;
    }
    case ParamType::kFloat: {
      double v = 0;
      const char* begin = text.data();
      const char* end = text.data() + text.size();
      if (begin != end && *begin == '+') ++begin;
      auto [ptr, ec] = std::from_chars(begin, end, v);
      if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(v)) {
        return Error(node, path, absl::StrCat("expected a number, got '", text, "'"));
      }
      value = v;
      numeric = v;
      break;
    }
    case ParamType::kBool:
      if (text == "true" || text == "True" || text == "TRUE") {
        value = true;
      } else if (text == "false" || text == "False" || text == "FALSE") {
        value = false;
      } else {
        return Error(node, path, absl::StrCat("expected true or false, got '", text, "'"));
      }
      break;
    case ParamType::kString:
      value = text;
      break;
    case ParamType::kEnum:
      if (std::find(def.choices.begin(), def.choices.end(), text) == def.choices.end()) {
        return Error(node, path, absl::StrCat("'", text, "' is not one of ",
                                              absl::StrJoin(def.choices, ", ")));
      }
      value = text;
      break;
    case ParamType::kBytes: {
      absl::StatusOr<int64_t> v = ParseBytes(text);
      if (!v.ok()) return Error(node, path, v.status().message());
      value = *v;
      numeric = static_cast<double>(*v);
      break;
    }
  }
  bool bounded = def.type == ParamType::kInt || def.type == ParamType::kFloat ||
                 def.type == ParamType::kBytes;
  auto bound_text = [&](double bound) {
    if (def.type == ParamType::kFloat) return FormatParamValue(def.type, bound);
    return FormatParamValue(def.type, static_cast<int64_t>(bound));
  };
  if (bounded && def.min.has_value() && numeric < *def.min) {
    return Error(node, path, absl::StrCat(FormatParamValue(def.type, value),
                                          " is below the minimum ", bound_text(*def.min)));
  }
  if (bounded && def.max.has_value() && numeric > *def.max) {
    return Error(node, path, absl::StrCat(FormatParamValue(def.type, value),
                                          " is above the maximum ", bound_text(*def.max)));
  }
  return value;
}

absl::Status DocumentLoader::LoadParams(const YAML::Node& node, ScenarioSpec& spec) {
  for (const ParamDef& def : kind_->params) {
    spec.axes.push_back({def.name, def.type, {def.default_value}, /*from_yaml=*/false, doc_loc_});
  }
  if (!node.IsDefined() || node.IsNull()) return absl::OkStatus();
  if (!node.IsMap()) {
    return Error(node, "params", absl::StrCat("expected a map of parameter names to values, got ",
                                              NodeKind(node)));
  }
  absl::StatusOr<std::vector<Entry>> entries = Entries(node, "params");
  if (!entries.ok()) return entries.status();
  for (const Entry& entry : *entries) {
    std::string path = absl::StrCat("params.", entry.key);
    auto def = std::find_if(kind_->params.begin(), kind_->params.end(),
                            [&](const ParamDef& d) { return d.name == entry.key; });
    if (def == kind_->params.end()) {
      std::vector<std::string> names;
      for (const ParamDef& d : kind_->params) names.push_back(d.name);
      std::string known = names.empty() ? "it takes no parameters"
                                        : absl::StrCat("its parameters: ", absl::StrJoin(names, ", "));
      return Error(entry.key_node, path, absl::StrCat("unknown parameter of kind '", kind_->name,
                                                      "' (", known, ")"));
    }
    Axis& axis = spec.axes[static_cast<size_t>(def - kind_->params.begin())];
    axis.values.clear();
    axis.from_yaml = true;
    axis.loc = Loc(entry.value, doc_loc_);
    if (entry.value.IsSequence()) {
      if (entry.value.size() == 0) {
        return Error(entry.value, path, "an axis needs at least one value, got an empty list");
      }
      std::map<std::string, size_t> seen;  // formatted value -> index
      for (size_t i = 0; i < entry.value.size(); ++i) {
        std::string item_path = absl::StrCat(path, "[", i, "]");
        absl::StatusOr<ParamValue> value = ParamScalar(*def, entry.value[i], item_path);
        if (!value.ok()) return value.status();
        std::string formatted = FormatParamValue(def->type, *value);
        auto [prev, inserted] = seen.emplace(formatted, i);
        if (!inserted) {
          return Error(entry.value[i], item_path,
                       absl::StrCat("duplicate value ", formatted, " (also at ", path, "[",
                                    prev->second, "])"));
        }
        axis.values.push_back(*std::move(value));
      }
    } else {
      absl::StatusOr<ParamValue> value = ParamScalar(*def, entry.value, path);
      if (!value.ok()) return value.status();
      axis.values.push_back(*std::move(value));
    }
  }
  return CheckPointCount(node, spec);
}

absl::Status DocumentLoader::CheckPointCount(const YAML::Node& params_node,
                                             const ScenarioSpec& spec) const {
  double product = 1;  // a double cannot overflow on a handful of axes
  std::vector<std::string> sizes;
  for (const Axis& axis : spec.axes) {
    product *= static_cast<double>(axis.values.size());
    if (axis.values.size() > 1) sizes.push_back(absl::StrCat(axis.name, " ", axis.values.size()));
  }
  if (product <= static_cast<double>(kMaxPointsPerScenario)) return absl::OkStatus();
  return Error(params_node, "params",
               absl::StrCat("the axes make ", static_cast<int64_t>(std::min(product, 9e18)),
                            " points per rank count (", absl::StrJoin(sizes, " x "),
                            "), more than the limit of ", kMaxPointsPerScenario));
}

absl::Status DocumentLoader::LoadRanks(const YAML::Node& node, ScenarioSpec& spec) const {
  RankRequirement asked;
  if (node.IsDefined()) {
    if (node.IsMap()) {
      absl::StatusOr<std::vector<Entry>> entries = Entries(node, "ranks");
      if (!entries.ok()) return entries.status();
      for (const Entry& entry : *entries) {
        std::string path = absl::StrCat("ranks.", entry.key);
        if (entry.key != "min" && entry.key != "max") {
          return Error(entry.key_node, path, "unknown key (expected min, max)");
        }
        absl::StatusOr<int64_t> value = IntInRange(entry.value, path, 1, INT_MAX);
        if (!value.ok()) return value.status();
        (entry.key == "min" ? asked.min : asked.max) = static_cast<int>(*value);
      }
      if (asked.min > asked.max) {
        return Error(node, "ranks",
                     absl::StrCat("min ", asked.min, " is greater than max ", asked.max));
      }
    } else {
      if (!node.IsScalar()) {
        return Error(node, "ranks", absl::StrCat("expected a rank count or {min: N, max: M}, got ",
                                                 NodeKind(node)));
      }
      absl::StatusOr<int64_t> value = IntInRange(node, "ranks", 1, INT_MAX);
      if (!value.ok()) return value.status();
      asked.min = asked.max = static_cast<int>(*value);
    }
  }
  RankRequirement both{std::max(asked.min, kind_->ranks.min), std::min(asked.max, kind_->ranks.max)};
  if (both.min > both.max) {
    return Error(node.IsDefined() ? Loc(node, doc_loc_) : doc_loc_, "ranks",
                 absl::StrCat("the scenario asks for ", asked.ToString(), " ranks but kind '",
                              kind_->name, "' runs with ", kind_->ranks.ToString()));
  }
  spec.ranks = both;
  return absl::OkStatus();
}

absl::Status DocumentLoader::LoadTimeout(const YAML::Node& node, ScenarioSpec& spec) const {
  absl::StatusOr<std::string> text = Scalar(node, "timeout", "a duration such as 30s");
  if (!text.ok()) return text.status();
  absl::Duration timeout;
  if (!absl::ParseDuration(*text, &timeout)) {
    return Error(node, "timeout", absl::StrCat("expected a duration such as 30s, 500ms or 2m, got '",
                                               *text, "'"));
  }
  if (timeout <= absl::ZeroDuration() || timeout > absl::Hours(24)) {
    return Error(node, "timeout",
                 absl::StrCat("must be more than 0 and at most 24h, got '", *text, "'"));
  }
  spec.timeout = timeout;
  return absl::OkStatus();
}

absl::Status DocumentLoader::LoadWhen(const YAML::Node& node, const std::string& path,
                                      const ScenarioSpec& spec, ExpectationRule& rule) const {
  if (!node.IsMap()) {
    return Error(node, path, absl::StrCat("expected a map of parameters (or backend, nranks) to "
                                          "values, got ", NodeKind(node)));
  }
  absl::StatusOr<std::vector<Entry>> entries = Entries(node, path);
  if (!entries.ok()) return entries.status();
  for (const Entry& entry : *entries) {
    std::string key_path = absl::StrCat(path, ".", entry.key);
    auto def = std::find_if(kind_->params.begin(), kind_->params.end(),
                            [&](const ParamDef& d) { return d.name == entry.key; });
    bool is_fact = std::find(std::begin(kFactNames), std::end(kFactNames), entry.key) !=
                   std::end(kFactNames);
    if (def == kind_->params.end() && !is_fact) {
      std::vector<std::string> names;
      for (const ParamDef& d : kind_->params) names.push_back(d.name);
      return Error(entry.key_node, key_path,
                   absl::StrCat("not a parameter of kind '", kind_->name, "' nor a fact (parameters: ",
                                absl::StrJoin(names, ", "), "; facts: backend, nranks, nccl, env, gpu_shared)"));
    }
    // Environment conditions (expectation_conditions.h): ranges, variables, a shared GPU.
    if (def == kind_->params.end() && entry.key == "env") {
      if (!entry.value.IsMap()) {
        return Error(entry.value, key_path, absl::StrCat("expected a map of environment variables to "
                                                         "values (null: unset), got ", NodeKind(entry.value)));
      }
      absl::StatusOr<std::vector<Entry>> vars = Entries(entry.value, key_path);
      if (!vars.ok()) return vars.status();
      for (const Entry& var : *vars) {
        std::string var_path = absl::StrCat(key_path, ".", var.key);
        std::vector<YAML::Node> values;
        if (var.value.IsSequence()) {
          if (var.value.size() == 0) return Error(var.value, var_path, "expected at least one value, got an empty list");
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
          absl::StatusOr<std::string> text = Scalar(value, var_path, "a value (or null: unset)");
          if (!text.ok()) return text.status();
          accepted.push_back(*text);
        }
        rule.when_env[var.key] = accepted;
      }
      continue;
    }
    if (def == kind_->params.end() &&
        (entry.key == "nccl" ||
         (entry.key == "nranks" && entry.value.IsScalar() && LooksLikeRange(entry.value.Scalar())))) {
      absl::StatusOr<std::string> text = Scalar(entry.value, key_path, "a range such as >=2.28.9");
      if (!text.ok()) return text.status();
      absl::StatusOr<std::vector<RangeClause>> clauses = ParseRange(*text);
      if (!clauses.ok()) return Error(entry.value, key_path, clauses.status().message());
      rule.when_ranges[RangeFactName(entry.key)] = *text;
      continue;
    }
    if (def == kind_->params.end() && entry.key == "gpu_shared") {
      absl::StatusOr<std::string> text = Scalar(entry.value, key_path, "true or false");
      if (!text.ok()) return text.status();
      if (*text != "true" && *text != "false") {
        return Error(entry.value, key_path, absl::StrCat("expected true or false, got '", *text, "'"));
      }
      rule.when_facts["gpu_shared"] = {*text};
      continue;
    }
    std::vector<std::pair<YAML::Node, std::string>> items;  // node, path
    if (entry.value.IsSequence()) {
      if (entry.value.size() == 0) {
        return Error(entry.value, key_path, "expected at least one value, got an empty list");
      }
      for (size_t i = 0; i < entry.value.size(); ++i) {
        items.emplace_back(entry.value[i], absl::StrCat(key_path, "[", i, "]"));
      }
    } else {
      items.emplace_back(entry.value, key_path);
    }
    std::vector<std::string> accepted;
    for (const auto& [item, item_path] : items) {
      if (def != kind_->params.end()) {
        absl::StatusOr<ParamValue> value = ParamScalar(*def, item, item_path);
        if (!value.ok()) return value.status();
        std::string formatted = FormatParamValue(def->type, *value);
        const Axis& axis = spec.axes[static_cast<size_t>(def - kind_->params.begin())];
        std::vector<std::string> axis_values;
        for (const ParamValue& v : axis.values) axis_values.push_back(FormatParamValue(axis.type, v));
        if (std::find(axis_values.begin(), axis_values.end(), formatted) == axis_values.end()) {
          return Error(item, item_path,
                       absl::StrCat(formatted, " is not a value the ", entry.key,
                                    " axis takes (its values: ", absl::StrJoin(axis_values, ", "),
                                    ")"));
        }
        accepted.push_back(formatted);
      } else if (entry.key == "backend") {
        absl::StatusOr<std::string> text = Scalar(item, item_path, "host or cuda");
        if (!text.ok()) return text.status();
        if (*text != "host" && *text != "cuda") {
          return Error(item, item_path, absl::StrCat("expected host or cuda, got '", *text, "'"));
        }
        accepted.push_back(*text);
      } else {  // nranks
        absl::StatusOr<int64_t> n = IntInRange(item, item_path, 1, INT_MAX);
        if (!n.ok()) return n.status();
        accepted.push_back(absl::StrCat(*n));
      }
    }
    (def != kind_->params.end() ? rule.when_params : rule.when_facts)[entry.key] = accepted;
  }
  return absl::OkStatus();
}

absl::StatusOr<ExpectationRule> DocumentLoader::LoadRule(const YAML::Node& node,
                                                         const std::string& path,
                                                         const ScenarioSpec& spec) const {
  ExpectationRule rule;
  auto parse_outcome = [&](const YAML::Node& n, const std::string& p) -> absl::Status {
    absl::StatusOr<std::string> text = Scalar(n, p, "an outcome");
    if (!text.ok()) return text.status();
    absl::StatusOr<Outcome> outcome = ParseOutcome(*text);
    if (!outcome.ok()) return Error(n, p, outcome.status().message());
    rule.expect.outcome = *outcome;
    return absl::OkStatus();
  };
  if (node.IsScalar()) {
    GH_RETURN_IF_ERROR(parse_outcome(node, path));
    return rule;
  }
  if (!node.IsMap()) {
    return Error(node, path, absl::StrCat("expected an outcome (pass, fail, ...) or a map with "
                                          "outcome, signature, reason, when; got ", NodeKind(node)));
  }
  absl::StatusOr<std::vector<Entry>> entries = Entries(node, path);
  if (!entries.ok()) return entries.status();
  bool has_outcome = false;
  for (const Entry& entry : *entries) {
    std::string key_path = absl::StrCat(path, ".", entry.key);
    if (entry.key == "outcome") {
      GH_RETURN_IF_ERROR(parse_outcome(entry.value, key_path));
      has_outcome = true;
    } else if (entry.key == "signature") {
      absl::StatusOr<std::string> regex = Scalar(entry.value, key_path, "a regular expression");
      if (!regex.ok()) return regex.status();
      try {
        std::regex compiled(*regex);
      } catch (const std::regex_error& e) {
        return Error(entry.value, key_path,
                     absl::StrCat("invalid regular expression '", *regex, "': ", e.what()));
      }
      rule.expect.signature_regex = *regex;
    } else if (entry.key == "reason") {
      absl::StatusOr<std::string> reason = Scalar(entry.value, key_path, "text");
      if (!reason.ok()) return reason.status();
      rule.expect.reason = *reason;
    } else if (entry.key == "when") {
      GH_RETURN_IF_ERROR(LoadWhen(entry.value, key_path, spec, rule));
    } else {
      return Error(entry.key_node, key_path, "unknown key (expected outcome, signature, reason, when)");
    }
  }
  if (!has_outcome) return Error(node, absl::StrCat(path, ".outcome"), "missing required key");
  return rule;
}

absl::Status DocumentLoader::LoadExpect(const YAML::Node& node, ScenarioSpec& spec) const {
  if (node.IsSequence()) {
    if (node.size() == 0) {
      return Error(node, "expect", "expected at least one rule, got an empty list");
    }
    for (size_t i = 0; i < node.size(); ++i) {
      absl::StatusOr<ExpectationRule> rule =
          LoadRule(node[i], absl::StrCat("expect[", i, "]"), spec);
      if (!rule.ok()) return rule.status();
      spec.expect.rules.push_back(*std::move(rule));
    }
    return absl::OkStatus();
  }
  absl::StatusOr<ExpectationRule> rule = LoadRule(node, "expect", spec);
  if (!rule.ok()) return rule.status();
  spec.expect.rules.push_back(*std::move(rule));
  return absl::OkStatus();
}

// `verdict: any_failure` or `verdict: {failure_rate_above: 0.2}` (a rate in [0, 1)).
absl::Status DocumentLoader::LoadVerdict(const YAML::Node& node, ScenarioSpec& spec) const {
  constexpr absl::string_view kExpected =
      "expected any_failure or {failure_rate_above: RATE} with RATE in [0, 1)";
  if (node.IsScalar()) {
    if (node.Scalar() != "any_failure") {
      return Error(node, "verdict", absl::StrCat(kExpected, ", got '", node.Scalar(), "'"));
    }
    spec.verdict = TrialVerdictRule{};
    return absl::OkStatus();
  }
  if (!node.IsMap() || node.size() != 1) return Error(node, "verdict", kExpected);
  const auto entry = *node.begin();
  const YAML::Node key = entry.first;
  const YAML::Node value = entry.second;
  if (!key.IsScalar() || key.Scalar() != "failure_rate_above") {
    return Error(key, "verdict", absl::StrCat("unknown key (", kExpected, ")"));
  }
  double rate = -1;
  if (!value.IsScalar() || !absl::SimpleAtod(value.Scalar(), &rate) || !(rate >= 0 && rate < 1)) {
    return Error(value, "verdict.failure_rate_above",
                 absl::StrCat("expected a rate in [0, 1), got '",
                              value.IsScalar() ? value.Scalar() : std::string("a collection"),
                              "'"));
  }
  spec.verdict = TrialVerdictRule{TrialVerdictRule::Kind::kFailureRateAbove, rate};
  return absl::OkStatus();
}

absl::StatusOr<ScenarioSpec> DocumentLoader::Load(const YAML::Node& doc) {
  doc_loc_ = Loc(doc, SourceLoc{file_, 1, 1});
  if (!doc.IsMap()) {
    return Error(doc, "scenario", absl::StrCat("expected a map with name, kind, params, ...; got ",
                                               NodeKind(doc)));
  }
  absl::StatusOr<std::vector<Entry>> entries = Entries(doc, "");
  if (!entries.ok()) return entries.status();
  std::map<std::string, const Entry*> by_key;
  for (const Entry& entry : *entries) {
    if (std::find(std::begin(kTopLevelKeys), std::end(kTopLevelKeys), entry.key) ==
        std::end(kTopLevelKeys)) {
      return Error(entry.key_node, entry.key,
                   absl::StrCat("unknown key (expected one of ", absl::StrJoin(kTopLevelKeys, ", "),
                                ")"));
    }
    by_key[entry.key] = &entry;
  }
  auto find = [&](absl::string_view key) -> const Entry* {
    auto it = by_key.find(std::string(key));
    return it == by_key.end() ? nullptr : it->second;
  };

  ScenarioSpec spec;
  spec.loc = doc_loc_;

  const Entry* name = find("name");
  if (name == nullptr) return Error(doc_loc_, "name", "missing required key");
  absl::StatusOr<std::string> name_text = Scalar(name->value, "name", "a scenario name");
  if (!name_text.ok()) return name_text.status();
  if (!ValidScenarioName(*name_text)) {
    return Error(name->value, "name",
                 absl::StrCat("'", *name_text, "' is not a valid scenario name (use letters, "
                              "digits, '_', '.' and '-')"));
  }
  spec.name = *name_text;

  const Entry* kind = find("kind");
  if (kind == nullptr) return Error(doc_loc_, "kind", "missing required key");
  absl::StatusOr<std::string> kind_text = Scalar(kind->value, "kind", "a scenario kind");
  if (!kind_text.ok()) return kind_text.status();
  kind_ = registry_.Find(*kind_text);
  if (kind_ == nullptr) {
    std::vector<std::string> known;
    for (const KindInfo* k : registry_.All()) known.push_back(k->name);
    return Error(kind->value, "kind",
                 absl::StrCat("unknown scenario kind '", *kind_text, "' (known kinds: ",
                              known.empty() ? "none" : absl::StrJoin(known, ", "), ")"));
  }
  spec.kind = kind_->name;

  if (const Entry* description = find("description")) {
    if (!description->value.IsNull()) {
      absl::StatusOr<std::string> text = Scalar(description->value, "description", "text");
      if (!text.ok()) return text.status();
      spec.description = *text;
    }
  }

  const Entry* params = find("params");
  GH_RETURN_IF_ERROR(LoadParams(params != nullptr ? params->value : YAML::Node(), spec));
  const Entry* ranks = find("ranks");
  GH_RETURN_IF_ERROR(LoadRanks(ranks != nullptr ? ranks->value : YAML::Node(YAML::NodeType::Undefined), spec));
  if (const Entry* trials = find("trials")) {
    absl::StatusOr<int64_t> value = IntInRange(trials->value, "trials", 1, kMaxTrials);
    if (!value.ok()) return value.status();
    spec.trials = static_cast<int>(*value);
  }
  if (const Entry* timeout = find("timeout")) GH_RETURN_IF_ERROR(LoadTimeout(timeout->value, spec));
  if (const Entry* warmup = find("warmup")) {
    absl::StatusOr<int64_t> value = IntInRange(warmup->value, "warmup", 0, kMaxIterations);
    if (!value.ok()) return value.status();
    spec.warmup = static_cast<int>(*value);
  }
  if (const Entry* iterations = find("iterations")) {
    absl::StatusOr<int64_t> value = IntInRange(iterations->value, "iterations", 1, kMaxIterations);
    if (!value.ok()) return value.status();
    spec.iterations = static_cast<int>(*value);
  }
  if (const Entry* expect = find("expect")) GH_RETURN_IF_ERROR(LoadExpect(expect->value, spec));
  if (const Entry* verdict = find("verdict")) GH_RETURN_IF_ERROR(LoadVerdict(verdict->value, spec));
  const Entry* exec = find("exec");
  if (exec != nullptr && !kind_->takes_exec_block) {
    return Error(exec->key_node, "exec",
                 absl::StrCat("kind '", kind_->name, "' takes no exec block (only kind exec does)"));
  }
  if (exec == nullptr && kind_->takes_exec_block) {
    return Error(doc_loc_, "exec",
                 absl::StrCat("missing required key (kind '", kind_->name,
                              "' runs the command it names)"));
  }
  if (exec != nullptr) GH_RETURN_IF_ERROR(LoadExec(exec->value, spec));
  return spec;
}

// ---- the `exec:` block (kind exec; docs/scenarios/exec.md) ----

absl::StatusOr<std::string> DocumentLoader::ExecTemplate(const YAML::Node& node,
                                                         const std::string& path,
                                                         const std::set<std::string>& known,
                                                         bool regex) const {
  absl::StatusOr<std::string> text = Scalar(node, path, regex ? "a regular expression" : "a string");
  if (!text.ok()) return text.status();
  absl::Status placeholders = CheckExecTemplate(*text, known);
  if (!placeholders.ok()) {
    std::vector<std::string> names(known.begin(), known.end());
    return Error(node, path, absl::StrCat(placeholders.message(), " (known: ",
                                          absl::StrJoin(names, ", "), "; write {{ for a brace)"));
  }
  if (regex) {
    // Placeholders stand for plain text here: check the regex with each replaced by "x".
    std::map<std::string, std::string> sample;
    for (const std::string& name : known) sample[name] = "x";
    absl::StatusOr<std::string> expanded = ExpandExecTemplate(*text, sample);
    try {
      std::regex check(expanded.ok() ? *expanded : *text);
    } catch (const std::regex_error& e) {
      return Error(node, path, absl::StrCat("invalid regular expression '", *text, "': ", e.what()));
    }
  }
  return *text;
}

absl::StatusOr<std::vector<std::string>> DocumentLoader::ExecTemplateList(
    const YAML::Node& node, const std::string& path, const std::set<std::string>& known,
    bool regex) const {
  std::vector<std::string> out;
  if (node.IsScalar()) {
    absl::StatusOr<std::string> one = ExecTemplate(node, path, known, regex);
    if (!one.ok()) return one.status();
    out.push_back(*one);
    return out;
  }
  if (!node.IsSequence()) {
    return Error(node, path, absl::StrCat("expected a list of ", regex ? "regular expressions" : "strings",
                                          ", got ", NodeKind(node)));
  }
  for (size_t i = 0; i < node.size(); ++i) {
    absl::StatusOr<std::string> item = ExecTemplate(node[i], absl::StrCat(path, "[", i, "]"), known, regex);
    if (!item.ok()) return item.status();
    out.push_back(*item);
  }
  return out;
}

absl::Status DocumentLoader::LoadExec(const YAML::Node& node, ScenarioSpec& spec) const {
  constexpr absl::string_view kKeys[] = {"argv", "env", "workdir", "pass", "signatures",
                                         "skip", "exit_status", "tail_lines", "timeout"};
  if (!node.IsMap()) {
    return Error(node, "exec", absl::StrCat("expected a map with argv (and env, workdir, pass, "
                                            "signatures, skip...), got ", NodeKind(node)));
  }
  absl::StatusOr<std::vector<Entry>> entries = Entries(node, "exec");
  if (!entries.ok()) return entries.status();
  std::set<std::string> known = ExecFixedPlaceholders();
  for (const ParamDef& def : kind_->params) known.insert(def.name);
  ExecBlock& exec = spec.exec;
  exec.present = true;
  bool has_argv = false;
  for (const Entry& entry : *entries) {
    const std::string path = absl::StrCat("exec.", entry.key);
    if (std::find(std::begin(kKeys), std::end(kKeys), entry.key) == std::end(kKeys)) {
      return Error(entry.key_node, path,
                   absl::StrCat("unknown key (expected one of ", absl::StrJoin(kKeys, ", "), ")"));
    }
    const YAML::Node& value = entry.value;
    if (entry.key == "argv") {
      absl::StatusOr<std::vector<std::string>> argv = ExecTemplateList(value, path, known, false);
      if (!argv.ok()) return argv.status();
      if (argv->empty() || (*argv)[0].empty()) {
        return Error(value, path, "needs at least the program to run");
      }
      exec.argv = *argv;
      has_argv = true;
    } else if (entry.key == "env") {
      if (!value.IsMap()) {
        return Error(value, path, absl::StrCat("expected a map of variable names to values, got ",
                                               NodeKind(value)));
      }
      absl::StatusOr<std::vector<Entry>> vars = Entries(value, path);
      if (!vars.ok()) return vars.status();
      for (const Entry& var : *vars) {
        const std::string var_path = absl::StrCat(path, ".", var.key);
        if (var.key.empty() || var.key.find('=') != std::string::npos) {
          return Error(var.key_node, var_path, "not a valid environment variable name");
        }
        absl::StatusOr<std::string> text =
            var.value.IsNull() ? absl::StatusOr<std::string>("")
                               : ExecTemplate(var.value, var_path, known, false);
        if (!text.ok()) return text.status();
        exec.env.emplace_back(var.key, *text);
      }
    } else if (entry.key == "workdir") {
      absl::StatusOr<std::string> text = ExecTemplate(value, path, known, false);
      if (!text.ok()) return text.status();
      exec.workdir = *text;
    } else if (entry.key == "pass") {
      absl::StatusOr<std::vector<std::string>> pass = ExecTemplateList(value, path, known, true);
      if (!pass.ok()) return pass.status();
      exec.pass = *pass;
    } else if (entry.key == "signatures") {
      if (!value.IsSequence()) {
        return Error(value, path, absl::StrCat("expected a list of {name, regex, outcome}, got ",
                                               NodeKind(value)));
      }
      for (size_t i = 0; i < value.size(); ++i) {
        const std::string item_path = absl::StrCat(path, "[", i, "]");
        const YAML::Node item = value[i];
        if (!item.IsMap()) {
          return Error(item, item_path, absl::StrCat("expected {name, regex, outcome}, got ", NodeKind(item)));
        }
        absl::StatusOr<std::vector<Entry>> fields = Entries(item, item_path);
        if (!fields.ok()) return fields.status();
        ExecSignatureRule rule;
        bool has_name = false, has_regex = false;
        for (const Entry& field : *fields) {
          const std::string field_path = absl::StrCat(item_path, ".", field.key);
          if (field.key == "name") {
            absl::StatusOr<std::string> text = Scalar(field.value, field_path, "a signature name");
            if (!text.ok()) return text.status();
            if (text->empty()) return Error(field.value, field_path, "must not be empty");
            rule.name = *text;
            has_name = true;
          } else if (field.key == "regex") {
            absl::StatusOr<std::string> text = ExecTemplate(field.value, field_path, known, true);
            if (!text.ok()) return text.status();
            rule.regex = *text;
            has_regex = true;
          } else if (field.key == "outcome") {
            absl::StatusOr<std::string> text = Scalar(field.value, field_path, "error or fail");
            if (!text.ok()) return text.status();
            if (*text == "error") {
              rule.outcome = Outcome::kError;
            } else if (*text == "fail") {
              rule.outcome = Outcome::kFail;
            } else {
              return Error(field.value, field_path, absl::StrCat("expected error or fail, got '", *text, "'"));
            }
          } else {
            return Error(field.key_node, field_path, "unknown key (expected one of name, regex, outcome)");
          }
        }
        if (!has_name) return Error(item, absl::StrCat(item_path, ".name"), "missing required key");
        if (!has_regex) return Error(item, absl::StrCat(item_path, ".regex"), "missing required key");
        exec.signatures.push_back(std::move(rule));
      }
    } else if (entry.key == "skip") {
      if (!value.IsSequence()) {
        return Error(value, path, absl::StrCat("expected a list of regular expressions or "
                                               "{regex, reason}, got ", NodeKind(value)));
      }
      for (size_t i = 0; i < value.size(); ++i) {
        const std::string item_path = absl::StrCat(path, "[", i, "]");
        const YAML::Node item = value[i];
        ExecSkipRule rule;
        if (item.IsScalar()) {
          absl::StatusOr<std::string> text = ExecTemplate(item, item_path, known, true);
          if (!text.ok()) return text.status();
          rule.regex = *text;
        } else if (item.IsMap()) {
          absl::StatusOr<std::vector<Entry>> fields = Entries(item, item_path);
          if (!fields.ok()) return fields.status();
          bool has_regex = false;
          for (const Entry& field : *fields) {
            const std::string field_path = absl::StrCat(item_path, ".", field.key);
            if (field.key != "regex" && field.key != "reason") {
              return Error(field.key_node, field_path, "unknown key (expected one of regex, reason)");
            }
            absl::StatusOr<std::string> text =
                ExecTemplate(field.value, field_path, known, field.key == "regex");
            if (!text.ok()) return text.status();
            (field.key == "regex" ? rule.regex : rule.reason) = *text;
            has_regex = has_regex || field.key == "regex";
          }
          if (!has_regex) return Error(item, absl::StrCat(item_path, ".regex"), "missing required key");
        } else {
          return Error(item, item_path, absl::StrCat("expected a regular expression or {regex, reason}, got ",
                                                     NodeKind(item)));
        }
        exec.skips.push_back(std::move(rule));
      }
    } else if (entry.key == "exit_status") {
      absl::StatusOr<int64_t> status = IntInRange(value, path, 0, 255);
      if (!status.ok()) return status.status();
      exec.exit_status = static_cast<int>(*status);
    } else if (entry.key == "tail_lines") {
      absl::StatusOr<int64_t> lines = IntInRange(value, path, 0, 10000);
      if (!lines.ok()) return lines.status();
      exec.tail_lines = static_cast<int>(*lines);
    } else if (entry.key == "timeout") {
      absl::StatusOr<std::string> text = Scalar(value, path, "a duration such as 30s");
      if (!text.ok()) return text.status();
      absl::Duration timeout;
      if (!absl::ParseDuration(*text, &timeout) || timeout <= absl::ZeroDuration()) {
        return Error(value, path, absl::StrCat("expected a duration such as 30s, 500ms or 2m, got '",
                                               *text, "'"));
      }
      if (timeout >= spec.timeout) {
        return Error(value, path,
                     absl::StrCat("must be shorter than the scenario's timeout (",
                                  absl::FormatDuration(spec.timeout),
                                  ") so that the rank records it before the watchdog ends the job"));
      }
      exec.timeout = timeout;
    }
  }
  if (!has_argv) return Error(node, "exec.argv", "missing required key");
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<ScenarioSpec>> LoadScenarioText(const std::string& text,
                                                           const std::string& display_name,
                                                           const ScenarioRegistry& registry) {
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    SourceLoc loc{display_name, e.mark.is_null() ? 1 : e.mark.line + 1,
                  e.mark.is_null() ? 1 : e.mark.column + 1};
    return absl::InvalidArgumentError(absl::StrCat(loc.ToString(), ": invalid YAML: ", e.msg));
  }
  std::vector<ScenarioSpec> specs;
  std::map<std::string, SourceLoc> names;
  for (const YAML::Node& doc : documents) {
    if (doc.IsNull()) continue;  // an empty document, e.g. after a trailing ---
    absl::StatusOr<ScenarioSpec> spec;
    try {
      spec = DocumentLoader(display_name, registry).Load(doc);
    } catch (const YAML::Exception& e) {
      SourceLoc loc{display_name, e.mark.is_null() ? 1 : e.mark.line + 1,
                    e.mark.is_null() ? 1 : e.mark.column + 1};
      return absl::InvalidArgumentError(absl::StrCat(loc.ToString(), ": invalid YAML: ", e.msg));
    }
    if (!spec.ok()) return spec.status();
    auto [prev, inserted] = names.emplace(spec->name, spec->loc);
    if (!inserted) {
      return absl::InvalidArgumentError(
          absl::StrCat(spec->loc.ToString(), ": name: duplicate scenario name '", spec->name,
                       "' (first at ", prev->second.ToString(), ")"));
    }
    specs.push_back(*std::move(spec));
  }
  if (specs.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(display_name, ":1:1: scenario: the file holds no scenario"));
  }
  return specs;
}

absl::StatusOr<std::vector<ScenarioSpec>> LoadScenarioFile(const std::string& path,
                                                           const ScenarioRegistry& registry) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return text.status();
  return LoadScenarioText(*text, path, registry);
}

}  // namespace gh
