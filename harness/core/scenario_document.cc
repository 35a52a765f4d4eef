#include "harness/core/scenario_document.h"

#include <algorithm>
#include <climits>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/core/did_you_mean.h"
#include "harness/core/expectation_loader.h"
#include "harness/core/metric_expectation_loader.h"
#include "harness/core/point.h"
#include "harness/core/status_macros.h"
#include "harness/core/yaml_param_value.h"

namespace gh {
namespace {

constexpr int kMaxTrials = 10000;
constexpr int kMaxIterations = 1000000;  // warmup and iterations alike
constexpr absl::Duration kMaxTimeout = absl::Hours(24);

// The keys of every scenario, and every registered kind's own block (kind exec's `exec:`).
std::vector<std::string> TopLevelKeys(const ScenarioRegistry& registry) {
  std::vector<std::string> keys = {"name",   "kind",       "description", "params", "ranks",   "trials",
                                   "timeout", "warmup",    "iterations",  "expect", "verdict",
                                   "expect_metrics", "nccl_inspector", "valid_for"};
  for (const KindInfo* kind : registry.All()) {
    if (!kind->block_key.empty() && std::find(keys.begin(), keys.end(), kind->block_key) == keys.end()) {
      keys.push_back(kind->block_key);
    }
  }
  return keys;
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

// One document's reading state: the file, the kind once known, the spec being filled.
class DocumentReader {
 public:
  DocumentReader(const YamlDoc& doc, const ScenarioRegistry& registry)
      : doc_(doc), registry_(registry) {}
  absl::StatusOr<ScenarioSpec> Read(const YAML::Node& node);

 private:
  absl::Status ReadName(YamlMap& top);
  absl::Status ReadKind(YamlMap& top);
  absl::Status ReadParams(const YAML::Node& node);
  absl::Status ReadAxis(const ParamDef& def, const YamlEntry& entry, Axis& axis);
  absl::Status CheckPointCount(const YAML::Node& params_node) const;
  absl::Status ReadRanks(const YAML::Node& node);
  absl::Status ReadVerdict(const YAML::Node& node);
  absl::Status ReadCounts(YamlMap& top);
  absl::Status ReadBlock(YamlMap& top);

  const YamlDoc& doc_;
  const ScenarioRegistry& registry_;
  const KindInfo* kind_ = nullptr;
  ScenarioSpec spec_;
};

absl::Status DocumentReader::ReadName(YamlMap& top) {
  if (!top.Has("name")) return YamlError(spec_.loc, "name", "missing required key");
  const YAML::Node value = top.Child("name");
  GH_ASSIGN_OR_RETURN(std::string name, doc_.Scalar(value, "name", "a scenario name"));
  if (!ValidScenarioName(name)) {
    return doc_.Error(value, "name",
                      absl::StrCat("'", name, "' is not a valid scenario name (use letters, "
                                   "digits, '_', '.' and '-')"));
  }
  spec_.name = name;
  return absl::OkStatus();
}

absl::Status DocumentReader::ReadKind(YamlMap& top) {
  if (!top.Has("kind")) return YamlError(spec_.loc, "kind", "missing required key");
  const YAML::Node value = top.Child("kind");
  GH_ASSIGN_OR_RETURN(std::string kind, doc_.Scalar(value, "kind", "a scenario kind"));
  kind_ = registry_.Find(kind);
  if (kind_ == nullptr) {
    std::vector<std::string> known;
    for (const KindInfo* k : registry_.All()) known.push_back(k->name);
    return doc_.Error(value, "kind",
                      absl::StrCat("unknown scenario kind '", kind, "' (known kinds: ",
                                   known.empty() ? "none" : absl::StrJoin(known, ", "), ")",
                                   DidYouMeanSuffix(kind, known)));
  }
  spec_.kind = kind_->name;
  return absl::OkStatus();
}

absl::Status DocumentReader::ReadAxis(const ParamDef& def, const YamlEntry& entry, Axis& axis) {
  const std::string path = absl::StrCat("params.", entry.key);
  axis.values.clear();
  axis.from_yaml = true;
  axis.loc = doc_.Loc(entry.value);
  if (!entry.value.IsSequence()) {
    GH_ASSIGN_OR_RETURN(ParamValue value, ReadParamValue(doc_, def, entry.value, path));
    axis.values.push_back(std::move(value));
    return absl::OkStatus();
  }
  if (entry.value.size() == 0) {
    return doc_.Error(entry.value, path, "an axis needs at least one value, got an empty list");
  }
  std::map<std::string, size_t> seen;  // formatted value -> index
  for (size_t i = 0; i < entry.value.size(); ++i) {
    const std::string item_path = absl::StrCat(path, "[", i, "]");
    GH_ASSIGN_OR_RETURN(ParamValue value, ReadParamValue(doc_, def, entry.value[i], item_path));
    std::string formatted = FormatParamValue(def.type, value);
    auto [prev, inserted] = seen.emplace(formatted, i);
    if (!inserted) {
      return doc_.Error(entry.value[i], item_path,
                        absl::StrCat("duplicate value ", formatted, " (also at ", path, "[",
                                     prev->second, "])"));
    }
    axis.values.push_back(std::move(value));
  }
  return absl::OkStatus();
}

absl::Status DocumentReader::ReadParams(const YAML::Node& node) {
  for (const ParamDef& def : kind_->params) {
    spec_.axes.push_back({def.name, def.type, {def.default_value}, /*from_yaml=*/false, spec_.loc});
  }
  if (!node.IsDefined() || node.IsNull()) return absl::OkStatus();
  if (!node.IsMap()) {
    return doc_.Error(node, "params", absl::StrCat("expected a map of parameter names to "
                                                   "values, got ", NodeKind(node)));
  }
  GH_ASSIGN_OR_RETURN(std::vector<YamlEntry> entries, doc_.Entries(node, "params"));
  std::vector<std::string> names;
  for (const ParamDef& d : kind_->params) names.push_back(d.name);
  for (const YamlEntry& entry : entries) {
    auto def = std::find(names.begin(), names.end(), entry.key);
    if (def == names.end()) {
      std::string known = names.empty() ? "it takes no parameters"
                                        : absl::StrCat("its parameters: ", absl::StrJoin(names, ", "));
      return doc_.Error(entry.key_node, absl::StrCat("params.", entry.key),
                        absl::StrCat("unknown parameter of kind '", kind_->name, "' (", known, ")",
                                     DidYouMeanSuffix(entry.key, names)));
    }
    const size_t index = static_cast<size_t>(def - names.begin());
    GH_RETURN_IF_ERROR(ReadAxis(kind_->params[index], entry, spec_.axes[index]));
  }
  return CheckPointCount(node);
}

absl::Status DocumentReader::CheckPointCount(const YAML::Node& params_node) const {
  double product = 1;  // a double cannot overflow on a handful of axes
  std::vector<std::string> sizes;
  for (const Axis& axis : spec_.axes) {
    product *= static_cast<double>(axis.values.size());
    if (axis.values.size() > 1) sizes.push_back(absl::StrCat(axis.name, " ", axis.values.size()));
  }
  if (product <= static_cast<double>(kMaxPointsPerScenario)) return absl::OkStatus();
  return doc_.Error(params_node, "params",
                    absl::StrCat("the axes make ", static_cast<int64_t>(std::min(product, 9e18)),
                                 " points per rank count (", absl::StrJoin(sizes, " x "),
                                 "), more than the limit of ", kMaxPointsPerScenario));
}

// `ranks: N` or `ranks: {min: N, max: M}`, met with what the kind can run with.
absl::Status DocumentReader::ReadRanks(const YAML::Node& node) {
  RankRequirement asked;
  if (node.IsDefined() && node.IsMap()) {
    GH_ASSIGN_OR_RETURN(YamlMap map, YamlMap::Of(doc_, node, "ranks", {"min", "max"}));
    if (map.Has("min")) { GH_ASSIGN_OR_RETURN(asked.min, map.Int("min", 1, INT_MAX)); }
    if (map.Has("max")) { GH_ASSIGN_OR_RETURN(asked.max, map.Int("max", 1, INT_MAX)); }
    if (asked.min > asked.max) {
      return doc_.Error(node, "ranks", absl::StrCat("min ", asked.min, " is greater than max ", asked.max));
    }
  } else if (node.IsDefined()) {
    if (!node.IsScalar()) {
      return doc_.Error(node, "ranks", absl::StrCat("expected a rank count or {min: N, max: M}, "
                                                    "got ", NodeKind(node)));
    }
    GH_ASSIGN_OR_RETURN(int64_t n, doc_.Int(node, "ranks", 1, INT_MAX));
    asked.min = asked.max = static_cast<int>(n);
  }
  RankRequirement both{std::max(asked.min, kind_->ranks.min), std::min(asked.max, kind_->ranks.max)};
  if (both.min > both.max) {
    return YamlError(node.IsDefined() ? doc_.Loc(node) : spec_.loc, "ranks",
                     absl::StrCat("the scenario asks for ", asked.ToString(), " ranks but kind '",
                                  kind_->name, "' runs with ", kind_->ranks.ToString()));
  }
  spec_.ranks = both;
  return absl::OkStatus();
}

// `verdict: any_failure` or `verdict: {failure_rate_above: 0.2}` (a rate in [0, 1)).
absl::Status DocumentReader::ReadVerdict(const YAML::Node& node) {
  constexpr absl::string_view kExpected =
      "expected any_failure or {failure_rate_above: RATE} with RATE in [0, 1)";
  if (node.IsScalar()) {
    if (node.Scalar() != "any_failure") {
      return doc_.Error(node, "verdict", absl::StrCat(kExpected, ", got '", node.Scalar(), "'"));
    }
    spec_.verdict = TrialVerdictRule{};
    return absl::OkStatus();
  }
  if (!node.IsMap() || node.size() != 1) return doc_.Error(node, "verdict", kExpected);
  const auto entry = *node.begin();
  const YAML::Node key = entry.first;
  const YAML::Node value = entry.second;
  if (!key.IsScalar() || key.Scalar() != "failure_rate_above") {
    return doc_.Error(key, "verdict", absl::StrCat("unknown key (", kExpected, ")"));
  }
  double rate = -1;
  if (!value.IsScalar() || !absl::SimpleAtod(value.Scalar(), &rate) || !(rate >= 0 && rate < 1)) {
    return doc_.Error(value, "verdict.failure_rate_above",
                      absl::StrCat("expected a rate in [0, 1), got '",
                                   value.IsScalar() ? value.Scalar() : std::string("a collection"),
                                   "'"));
  }
  spec_.verdict = TrialVerdictRule{TrialVerdictRule::Kind::kFailureRateAbove, rate};
  return absl::OkStatus();
}

absl::Status DocumentReader::ReadCounts(YamlMap& top) {
  if (top.Has("trials")) { GH_ASSIGN_OR_RETURN(spec_.trials, top.Int("trials", 1, kMaxTrials)); }
  if (top.Has("timeout")) { GH_ASSIGN_OR_RETURN(spec_.timeout, top.Duration("timeout", kMaxTimeout)); }
  if (top.Has("warmup")) { GH_ASSIGN_OR_RETURN(spec_.warmup, top.Int("warmup", 0, kMaxIterations)); }
  if (top.Has("iterations")) {
    GH_ASSIGN_OR_RETURN(spec_.iterations, top.Int("iterations", 1, kMaxIterations));
  }
  if (top.Has("nccl_inspector")) { GH_ASSIGN_OR_RETURN(spec_.nccl_inspector, top.Bool("nccl_inspector")); }
  return absl::OkStatus();
}

// The kind's own block, read by the kind; another kind's block is refused, naming who takes it.
absl::Status DocumentReader::ReadBlock(YamlMap& top) {
  for (const KindInfo* other : registry_.All()) {
    const std::string& key = other->block_key;
    if (key.empty() || key == kind_->block_key || !top.Has(key)) continue;
    std::vector<std::string> takers;
    for (const KindInfo* k : registry_.All()) {
      if (k->block_key == key) takers.push_back(k->name);
    }
    return YamlError(top.LocOfKeyName(key), key,
                     absl::StrCat("kind '", kind_->name, "' takes no ", key, " block (only kind ",
                                  absl::StrJoin(takers, ", kind "), takers.size() == 1 ? " does)" : " do)"));
  }
  if (kind_->block_key.empty() || !kind_->read_block) return absl::OkStatus();
  const YAML::Node node = top.Has(kind_->block_key) ? top.Child(kind_->block_key) : YAML::Node(YAML::NodeType::Undefined);
  GH_ASSIGN_OR_RETURN(spec_.block, kind_->read_block(doc_, node, *kind_, spec_));
  return absl::OkStatus();
}

absl::StatusOr<ScenarioSpec> DocumentReader::Read(const YAML::Node& node) {
  spec_.loc = doc_.Loc(node);
  if (!node.IsMap()) {
    return doc_.Error(node, "scenario", absl::StrCat("expected a map with name, kind, params, ...; "
                                                     "got ", NodeKind(node)));
  }
  GH_ASSIGN_OR_RETURN(YamlMap top, YamlMap::Of(doc_, node, "", TopLevelKeys(registry_)));
  GH_RETURN_IF_ERROR(ReadName(top));
  GH_RETURN_IF_ERROR(ReadKind(top));
  if (top.Has("description")) {
    const YAML::Node value = top.Child("description");
    if (!value.IsNull()) { GH_ASSIGN_OR_RETURN(spec_.description, doc_.Scalar(value, "description", "text")); }
  }
  GH_RETURN_IF_ERROR(ReadParams(top.Child("params")));
  GH_RETURN_IF_ERROR(ReadRanks(top.Child("ranks")));
  GH_RETURN_IF_ERROR(ReadCounts(top));
  if (top.Has("expect")) GH_RETURN_IF_ERROR(LoadExpectations(doc_, top.Child("expect"), *kind_, spec_));
  if (top.Has("valid_for")) GH_RETURN_IF_ERROR(LoadValidFor(doc_, top.Child("valid_for"), *kind_, spec_));
  if (top.Has("expect_metrics")) {
    GH_RETURN_IF_ERROR(LoadMetricExpectations(doc_, top.Child("expect_metrics"), *kind_, spec_));
  }
  if (top.Has("verdict")) GH_RETURN_IF_ERROR(ReadVerdict(top.Child("verdict")));
  GH_RETURN_IF_ERROR(ReadBlock(top));
  GH_RETURN_IF_ERROR(top.Finish());
  return std::move(spec_);
}

}  // namespace

absl::StatusOr<ScenarioSpec> LoadScenarioDocument(const YamlDoc& doc, const YAML::Node& node,
                                                  const ScenarioRegistry& registry) {
  return DocumentReader(doc, registry).Read(node);
}

}  // namespace gh
