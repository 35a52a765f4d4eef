#include "harness/core/metric_expectation_loader.h"

#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/core/expectation_loader.h"
#include "harness/core/reference_floors.h"
#include "harness/core/regex.h"
#include "harness/core/status_macros.h"
#include "harness/core/yaml_param_value.h"

namespace gh {
namespace {

absl::StatusOr<double> Number(const YamlDoc& doc, const YAML::Node& node, const std::string& path) {
  GH_ASSIGN_OR_RETURN(std::string text, doc.Scalar(node, path, "a number"));
  double value = 0;
  if (!absl::SimpleAtod(text, &value) || !std::isfinite(value)) {
    return doc.Error(node, path, absl::StrCat("expected a number, got '", text, "'"));
  }
  return value;
}

// `vs: {param: value}`: parameters set in YAML (part of point names), values their axes take.
absl::Status ReadVs(const YamlDoc& doc, const YAML::Node& node, const std::string& path,
                    const KindInfo& kind, const ScenarioSpec& spec, MetricBoundRule& rule) {
  if (!node.IsMap() || node.size() == 0) {
    return doc.Error(node, path, absl::StrCat("expected a map of parameters to the reference "
                                              "point's values, got ", NodeKind(node)));
  }
  GH_ASSIGN_OR_RETURN(std::vector<YamlEntry> entries, doc.Entries(node, path));
  for (const YamlEntry& entry : entries) {
    const std::string key_path = absl::StrCat(path, ".", entry.key);
    size_t index = 0;
    while (index < kind.params.size() && kind.params[index].name != entry.key) ++index;
    std::vector<std::string> named;
    for (const Axis& axis : spec.axes) {
      if (axis.from_yaml) named.push_back(axis.name);
    }
    if (index == kind.params.size() || !spec.axes[index].from_yaml) {
      return doc.Error(entry.key_node, key_path,
                       absl::StrCat("not a parameter set in this scenario's params (those in point "
                                    "names: ", absl::StrJoin(named, ", "), ")"));
    }
    const Axis& axis = spec.axes[index];
    GH_ASSIGN_OR_RETURN(ParamValue value, ReadParamValue(doc, kind.params[index], entry.value, key_path));
    const std::string formatted = FormatParamValue(axis.type, value);
    std::vector<std::string> taken;
    for (const ParamValue& v : axis.values) taken.push_back(FormatParamValue(axis.type, v));
    if (std::find(taken.begin(), taken.end(), formatted) == taken.end()) {
      return doc.Error(entry.value, key_path,
                       absl::StrCat(formatted, " is not a value the ", entry.key,
                                    " axis takes (its values: ", absl::StrJoin(taken, ", "), ")"));
    }
    rule.vs[entry.key] = formatted;
  }
  return absl::OkStatus();
}

// `min: reference`: the reference table named by `table:` (relative to the scenario file), else
// the shipped one found above the scenario file. Each file is read once per process.
absl::StatusOr<std::shared_ptr<const ReferenceTable>> ReferenceTableFor(const YamlDoc& doc, YamlMap& map) {
  std::string path;
  if (map.Has("table")) {
    GH_ASSIGN_OR_RETURN(path, map.String("table", /*required=*/true));
    if (!path.starts_with('/')) {
      path = (std::filesystem::path(doc.file()).parent_path() / path).lexically_normal().string();
    }
  } else {
    path = DefaultReferenceTablePath(doc.file());
    if (path.empty()) {
      return map.Error("min", "`min: reference` found no results/reference/collective_busbw.yaml in or "
                              "above the scenario's directory; name a table with `table:`");
    }
  }
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const ReferenceTable>> loaded;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = loaded.find(path); it != loaded.end()) return it->second;
  absl::StatusOr<ReferenceTable> table = LoadReferenceTable(path);
  if (!table.ok()) {
    return map.Error(map.Has("table") ? "table" : "min",
                     absl::StrCat("reference table: ", table.status().message()));
  }
  auto shared = std::make_shared<const ReferenceTable>(*std::move(table));
  loaded[path] = shared;
  return shared;
}

absl::StatusOr<MetricBoundRule> ReadBound(const YamlDoc& doc, const YAML::Node& node,
                                          const std::string& path, const std::string& metric,
                                          const KindInfo& kind, const ScenarioSpec& spec) {
  GH_ASSIGN_OR_RETURN(YamlMap map, YamlMap::Of(doc, node, path, {"min", "max", "vs", "when", "reason", "table"},
                                               "a map with min and/or max (and vs, when, reason)"));
  MetricBoundRule rule;
  rule.metric = metric;
  const bool reference = map.Has("min") && map.Child("min").IsScalar() && map.Child("min").Scalar() == "reference";
  if (reference) {
    if (map.Has("vs")) return map.Error("vs", "a reference floor is absolute: it takes no `vs`");
    GH_ASSIGN_OR_RETURN(rule.min_reference, ReferenceTableFor(doc, map));
  } else if (map.Has("table")) {
    return map.Error("table", "`table` names the reference table of `min: reference`");
  } else if (map.Has("min")) {
    GH_ASSIGN_OR_RETURN(rule.min, Number(doc, map.Child("min"), map.Path("min")));
  }
  if (map.Has("max")) { GH_ASSIGN_OR_RETURN(rule.max, Number(doc, map.Child("max"), map.Path("max"))); }
  if (!rule.min.has_value() && !rule.max.has_value() && rule.min_reference == nullptr) {
    return doc.Error(node, path, "expected min and/or max, got neither");
  }
  if (rule.min.has_value() && rule.max.has_value() && *rule.min > *rule.max) {
    return doc.Error(map.Child("max"), map.Path("max"),
                     absl::StrCat("max ", *rule.max, " is below min ", *rule.min));
  }
  if (map.Has("vs")) GH_RETURN_IF_ERROR(ReadVs(doc, map.Child("vs"), map.Path("vs"), kind, spec, rule));
  if (map.Has("reason")) {
    GH_ASSIGN_OR_RETURN(rule.reason, doc.Scalar(map.Child("reason"), map.Path("reason"), "text"));
  }
  if (map.Has("when")) {
    GH_RETURN_IF_ERROR(LoadWhenConditions(doc, map.Child("when"), map.Path("when"), kind, spec, rule.when));
  }
  GH_RETURN_IF_ERROR(map.Finish());
  return rule;
}

}  // namespace

absl::Status LoadMetricExpectations(const YamlDoc& doc, const YAML::Node& node,
                                    const KindInfo& kind, ScenarioSpec& spec) {
  if (!node.IsMap()) {
    return doc.Error(node, "expect_metrics",
                     absl::StrCat("expected a map of metric names to bounds, got ", NodeKind(node)));
  }
  static const Regex kMetricName = *Regex::Compile("^[A-Za-z_][A-Za-z0-9_]*$");
  GH_ASSIGN_OR_RETURN(std::vector<YamlEntry> entries, doc.Entries(node, "expect_metrics"));
  for (const YamlEntry& entry : entries) {
    const std::string path = absl::StrCat("expect_metrics.", entry.key);
    if (!kMetricName.Search(entry.key)) {
      return doc.Error(entry.key_node, path, "expected a metric name (letters, digits, _)");
    }
    std::vector<std::pair<YAML::Node, std::string>> bounds;
    if (entry.value.IsSequence()) {
      if (entry.value.size() == 0) return doc.Error(entry.value, path, "expected at least one bound, got an empty list");
      for (size_t i = 0; i < entry.value.size(); ++i) {
        bounds.emplace_back(entry.value[i], absl::StrCat(path, "[", i, "]"));
      }
    } else {
      bounds.emplace_back(entry.value, path);
    }
    for (const auto& [bound, bound_path] : bounds) {
      GH_ASSIGN_OR_RETURN(MetricBoundRule rule, ReadBound(doc, bound, bound_path, entry.key, kind, spec));
      spec.expect_metrics.push_back(std::move(rule));
    }
  }
  return absl::OkStatus();
}

}  // namespace gh
