#include "harness/core/metric_expectation.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "harness/core/point.h"

namespace gh {
namespace {

std::string Number(double value) { return absl::StrFormat("%.4g", value); }

std::string BoundText(const MetricBound& bound) {
  std::vector<std::string> parts;
  if (bound.min.has_value()) parts.push_back(absl::StrCat(">= ", Number(*bound.min)));
  if (bound.max.has_value()) parts.push_back(absl::StrCat("<= ", Number(*bound.max)));
  return absl::StrJoin(parts, ", ");
}

// The point's name with each `vs` parameter's segment "/name=value" given the new value; ""
// when a parameter is not in the name.
std::string ReferencePointName(const std::string& point_name,
                               const std::map<std::string, std::string>& vs) {
  std::vector<std::string> segments = absl::StrSplit(point_name, '/');
  for (const auto& [param, value] : vs) {
    bool found = false;
    for (size_t i = 1; i < segments.size(); ++i) {
      if (absl::StartsWith(segments[i], param + "=")) {
        segments[i] = absl::StrCat(param, "=", value);
        found = true;
      }
    }
    if (!found) return "";
  }
  return absl::StrJoin(segments, "/");
}

}  // namespace

std::string MetricBound::ToString() const {
  std::string subject = metric;
  if (!reference_point.empty()) absl::StrAppend(&subject, " / ", reference_point);
  return absl::StrCat(subject, " ", BoundText(*this));
}

std::vector<MetricBound> MetricBoundsFor(const std::vector<MetricBoundRule>& rules,
                                         const Point& point, const EnvironmentFacts& facts) {
  std::vector<MetricBound> bounds;
  for (const MetricBoundRule& rule : rules) {
    if (!ConditionsHold(rule.when, point, facts)) continue;
    MetricBound bound{rule.metric, rule.min, rule.max, "", rule.reason};
    if (rule.min_reference != nullptr) {
      const ReferenceRow* row = FindReference(*rule.min_reference, rule.metric, point, facts);
      if (row == nullptr) continue;  // no reference for this machine and point: no bound
      bound.min = row->floor();
      bound.reference = row->Describe();
    }
    if (!rule.vs.empty()) {
      bound.reference_point = ReferencePointName(point.name, rule.vs);
      if (bound.reference_point.empty() || bound.reference_point == point.name) continue;
    }
    bounds.push_back(std::move(bound));
  }
  return bounds;
}

std::vector<std::string> MissedMetricBounds(const std::vector<MetricBound>& bounds,
                                            const std::string& point, const MetricLookup& lookup) {
  std::vector<std::string> missed;
  for (const MetricBound& bound : bounds) {
    const Metric* metric = lookup(point, bound.metric);
    const Metric* reference =
        bound.reference_point.empty() ? nullptr : lookup(bound.reference_point, bound.metric);
    if (metric == nullptr || (!bound.reference_point.empty() && reference == nullptr)) {
      const std::string& who = metric == nullptr ? point : bound.reference_point;
      missed.push_back(absl::StrCat("metric ", bound.metric, " not recorded by ", who,
                                    ", bound ", BoundText(bound)));
      continue;
    }
    double value = metric->value;
    std::string shown = absl::StrCat(Number(value), " ", metric->unit);
    if (reference != nullptr) {
      value = reference->value != 0 ? metric->value / reference->value : std::nan("");
      shown = absl::StrCat(Number(value), " x ", bound.reference_point);
    }
    const bool below = bound.min.has_value() && !(value >= *bound.min);
    const bool above = bound.max.has_value() && !(value <= *bound.max);
    if (!below && !above) continue;
    if (below && !bound.reference.empty()) {
      missed.push_back(absl::StrCat("metric ", bound.metric, " = ", shown, ", below the reference for ",
                                    bound.reference, " (floor ", Number(*bound.min), ")"));
      continue;
    }
    missed.push_back(absl::StrCat("metric ", bound.metric, " = ", shown, ", ",
                                  below ? "below" : "above", " the bound ", BoundText(bound)));
  }
  return missed;
}

nlohmann::json MetricBoundsToJson(const std::vector<MetricBound>& bounds) {
  nlohmann::json out = nlohmann::json::array();
  for (const MetricBound& bound : bounds) {
    nlohmann::json entry = {{"metric", bound.metric}};
    if (bound.min.has_value()) entry["min"] = *bound.min;
    if (bound.max.has_value()) entry["max"] = *bound.max;
    if (!bound.reference_point.empty()) entry["vs"] = bound.reference_point;
    if (!bound.reason.empty()) entry["reason"] = bound.reason;
    if (!bound.reference.empty()) entry["reference"] = bound.reference;
    out.push_back(std::move(entry));
  }
  return out;
}

absl::StatusOr<std::vector<MetricBound>> MetricBoundsFromJson(const nlohmann::json& json,
                                                              const std::string& path) {
  if (!json.is_array()) return absl::InvalidArgumentError(absl::StrCat(path, ": expected an array"));
  std::vector<MetricBound> bounds;
  for (size_t i = 0; i < json.size(); ++i) {
    const nlohmann::json& entry = json[i];
    const std::string where = absl::StrCat(path, "[", i, "]");
    auto wrong = [&](const char* key, const char* what) {
      return absl::InvalidArgumentError(absl::StrCat(where, ".", key, ": expected ", what));
    };
    if (!entry.is_object()) return absl::InvalidArgumentError(absl::StrCat(where, ": expected an object"));
    MetricBound bound;
    if (!entry.contains("metric") || !entry["metric"].is_string()) return wrong("metric", "a string");
    bound.metric = entry["metric"].get<std::string>();
    for (const char* key : {"min", "max"}) {
      if (!entry.contains(key)) continue;
      if (!entry[key].is_number()) return wrong(key, "a number");
      (std::string(key) == "min" ? bound.min : bound.max) = entry[key].get<double>();
    }
    for (auto [key, field] : {std::pair{"vs", &bound.reference_point}, std::pair{"reason", &bound.reason},
                              std::pair{"reference", &bound.reference}}) {
      if (!entry.contains(key)) continue;
      if (!entry[key].is_string()) return wrong(key, "a string");
      *field = entry[key].get<std::string>();
    }
    bounds.push_back(std::move(bound));
  }
  return bounds;
}

}  // namespace gh
