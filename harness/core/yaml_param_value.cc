#include "harness/core/yaml_param_value.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gh {
namespace {

absl::string_view Expected(ParamType type) {
  switch (type) {
    case ParamType::kInt: return "an integer";
    case ParamType::kFloat: return "a number";
    case ParamType::kBool: return "true or false";
    case ParamType::kString: return "a string";
    case ParamType::kEnum: return "one of the choices";
    case ParamType::kBytes: return "a byte size such as 4K or 1M";
  }
  return "a value";
}

absl::StatusOr<double> ParseFiniteNumber(const std::string& text) {
  double v = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (begin != end && *begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, v);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(v)) {
    return absl::InvalidArgumentError(absl::StrCat("expected a number, got '", text, "'"));
  }
  return v;
}

// The value and its number (for the bounds check) of a scalar of `def`'s type.
absl::StatusOr<std::pair<ParamValue, double>> Parse(const YamlDoc& doc, const ParamDef& def,
                                                    const YAML::Node& node,
                                                    const std::string& path) {
  const std::string& text = node.Scalar();
  switch (def.type) {
    case ParamType::kInt: {
      absl::StatusOr<int64_t> v = doc.Int(node, path, INT64_MIN, INT64_MAX);
      if (!v.ok()) return v.status();
      return std::pair<ParamValue, double>(*v, static_cast<double>(*v));
    }
    case ParamType::kFloat: {
      absl::StatusOr<double> v = ParseFiniteNumber(text);
      if (!v.ok()) return doc.Error(node, path, v.status().message());
      return std::pair<ParamValue, double>(*v, *v);
    }
    case ParamType::kBool: {
      absl::StatusOr<bool> v = doc.Bool(node, path);
      if (!v.ok()) return v.status();
      return std::pair<ParamValue, double>(*v, 0);
    }
    case ParamType::kString:
      return std::pair<ParamValue, double>(text, 0);
    case ParamType::kEnum:
      if (std::find(def.choices.begin(), def.choices.end(), text) == def.choices.end()) {
        return doc.Error(node, path,
                         absl::StrCat("'", text, "' is not one of ", absl::StrJoin(def.choices, ", ")));
      }
      return std::pair<ParamValue, double>(text, 0);
    case ParamType::kBytes: {
      absl::StatusOr<int64_t> v = ParseBytes(text);
      if (!v.ok()) return doc.Error(node, path, v.status().message());
      return std::pair<ParamValue, double>(*v, static_cast<double>(*v));
    }
  }
  return doc.Error(node, path, "unsupported parameter type");
}

}  // namespace

absl::StatusOr<ParamValue> ReadParamValue(const YamlDoc& doc, const ParamDef& def,
                                          const YAML::Node& node, const std::string& path) {
  if (!node.IsScalar()) {
    if (def.type == ParamType::kEnum) {
      return doc.Error(node, path, absl::StrCat("expected one of ", absl::StrJoin(def.choices, ", "),
                                                ", got ", NodeKind(node)));
    }
    return doc.Error(node, path, absl::StrCat("expected ", Expected(def.type), ", got ", NodeKind(node)));
  }
  absl::StatusOr<std::pair<ParamValue, double>> parsed = Parse(doc, def, node, path);
  if (!parsed.ok()) return parsed.status();
  const auto& [value, numeric] = *parsed;
  const bool bounded = def.type == ParamType::kInt || def.type == ParamType::kFloat ||
                       def.type == ParamType::kBytes;
  auto bound_text = [&](double bound) {
    if (def.type == ParamType::kFloat) return FormatParamValue(def.type, bound);
    return FormatParamValue(def.type, static_cast<int64_t>(bound));
  };
  if (bounded && def.min.has_value() && numeric < *def.min) {
    return doc.Error(node, path, absl::StrCat(FormatParamValue(def.type, value),
                                              " is below the minimum ", bound_text(*def.min)));
  }
  if (bounded && def.max.has_value() && numeric > *def.max) {
    return doc.Error(node, path, absl::StrCat(FormatParamValue(def.type, value),
                                              " is above the maximum ", bound_text(*def.max)));
  }
  return value;
}

}  // namespace gh
