#include "harness/driver/yaml_fields.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace gh::driver {

SourceLoc LocOf(const std::string& file, const YAML::Node& node) {
  SourceLoc loc;
  loc.file = file;
  if (node.IsDefined()) {
    YAML::Mark mark = node.Mark();
    if (mark.line >= 0) {
      loc.line = mark.line + 1;
      loc.column = mark.column + 1;
    }
  }
  return loc;
}

absl::Status YamlError(const SourceLoc& loc, const std::string& key, const std::string& message) {
  return absl::InvalidArgumentError(
      absl::StrCat(loc.file, ":", loc.line, ":", loc.column, ": ", key, ": ", message));
}

absl::StatusOr<YamlMap> YamlMap::Of(const std::string& file, const YAML::Node& node,
                                    std::string key_path) {
  if (!node.IsMap()) {
    return YamlError(LocOf(file, node), key_path.empty() ? "(document)" : key_path,
                     "expected a map");
  }
  return YamlMap(file, node, std::move(key_path));
}

bool YamlMap::Has(const std::string& key) const {
  known_.push_back(key);
  // Looked up by iteration: operator[] on a const node may not be used on a missing key.
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) return true;
  }
  return false;
}

YAML::Node YamlMap::Child(const std::string& key) {
  used_.push_back(key);
  return node_[key];
}

SourceLoc YamlMap::LocOfKey(const std::string& key) const {
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) return LocOf(file_, it->second);
  }
  return Loc();
}

std::string YamlMap::Path(const std::string& key) const {
  return key_path_.empty() ? key : absl::StrCat(key_path_, ".", key);
}

absl::StatusOr<std::string> ScalarString(const std::string& file, const YAML::Node& node,
                                         const std::string& key) {
  if (!node.IsScalar()) return YamlError(LocOf(file, node), key, "expected a scalar");
  return node.Scalar();
}

absl::StatusOr<std::string> YamlMap::String(const std::string& key, bool required) {
  YAML::Node child = Child(key);
  if (!child.IsDefined() || child.IsNull()) {
    if (required) return YamlError(Loc(), Path(key), "missing required key");
    return std::string();
  }
  return ScalarString(file_, child, Path(key));
}

absl::StatusOr<int64_t> YamlMap::Int(const std::string& key, int64_t min, int64_t max) {
  YAML::Node child = Child(key);
  absl::StatusOr<std::string> text = ScalarString(file_, child, Path(key));
  if (!text.ok()) return text.status();
  int64_t value = 0;
  if (!absl::SimpleAtoi(*text, &value)) {
    return YamlError(LocOf(file_, child), Path(key),
                     absl::StrCat("expected an integer, got '", *text, "'"));
  }
  if (value < min || value > max) {
    return YamlError(LocOf(file_, child), Path(key),
                     absl::StrCat(value, " is out of range [", min, ", ", max, "]"));
  }
  return value;
}

absl::StatusOr<bool> YamlMap::Bool(const std::string& key) {
  YAML::Node child = Child(key);
  absl::StatusOr<std::string> text = ScalarString(file_, child, Path(key));
  if (!text.ok()) return text.status();
  if (*text == "true" || *text == "True" || *text == "yes") return true;
  if (*text == "false" || *text == "False" || *text == "no") return false;
  return YamlError(LocOf(file_, child), Path(key),
                   absl::StrCat("expected true or false, got '", *text, "'"));
}

absl::StatusOr<absl::Duration> YamlMap::Duration(const std::string& key) {
  YAML::Node child = Child(key);
  absl::StatusOr<std::string> text = ScalarString(file_, child, Path(key));
  if (!text.ok()) return text.status();
  absl::StatusOr<absl::Duration> duration = ParseDurationText(*text);
  if (!duration.ok()) {
    return YamlError(LocOf(file_, child), Path(key), std::string(duration.status().message()));
  }
  return *duration;
}

absl::StatusOr<std::vector<std::string>> YamlMap::StringList(const std::string& key) {
  YAML::Node child = Child(key);
  std::vector<std::string> out;
  if (!child.IsDefined() || child.IsNull()) return out;
  if (child.IsScalar()) {
    out.push_back(child.Scalar());
    return out;
  }
  if (!child.IsSequence()) {
    return YamlError(LocOf(file_, child), Path(key), "expected a list of strings");
  }
  for (size_t i = 0; i < child.size(); ++i) {
    absl::StatusOr<std::string> item =
        ScalarString(file_, child[i], absl::StrCat(Path(key), "[", i, "]"));
    if (!item.ok()) return item.status();
    out.push_back(*item);
  }
  return out;
}

absl::StatusOr<std::map<std::string, std::string>> YamlMap::StringMap(const std::string& key) {
  YAML::Node child = Child(key);
  std::map<std::string, std::string> out;
  if (!child.IsDefined() || child.IsNull()) return out;
  if (!child.IsMap()) {
    return YamlError(LocOf(file_, child), Path(key), "expected a map of NAME: value");
  }
  for (auto it = child.begin(); it != child.end(); ++it) {
    std::string name = it->first.Scalar();
    absl::StatusOr<std::string> value =
        ScalarString(file_, it->second, absl::StrCat(Path(key), ".", name));
    if (!value.ok()) return value.status();
    out[name] = *value;
  }
  return out;
}

absl::Status YamlMap::Finish() const {
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
    if (std::find(used_.begin(), used_.end(), key) == used_.end()) {
      std::vector<std::string> allowed = used_;
      allowed.insert(allowed.end(), known_.begin(), known_.end());
      std::sort(allowed.begin(), allowed.end());
      allowed.erase(std::unique(allowed.begin(), allowed.end()), allowed.end());
      return YamlError(LocOf(file_, it->first), Path(key),
                       absl::StrCat("unknown key (allowed here: ", absl::StrJoin(allowed, ", "),
                                    ")"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<absl::Duration> ParseDurationText(const std::string& text) {
  double seconds = 0;
  if (absl::SimpleAtod(text, &seconds)) {
    if (seconds <= 0) return absl::InvalidArgumentError("a duration must be positive");
    return absl::Seconds(seconds);
  }
  absl::Duration duration;
  if (!absl::ParseDuration(text, &duration)) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a duration such as 90s, 10m or 1h, got '", text, "'"));
  }
  if (duration <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("a duration must be positive");
  }
  return duration;
}

std::string FormatDurationText(absl::Duration duration) { return absl::FormatDuration(duration); }

absl::StatusOr<std::vector<YAML::Node>> ParseYamlDocuments(const std::string& text,
                                                           const std::string& file) {
  try {
    return YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(file, ":", e.mark.line + 1, ":",
                                                   e.mark.column + 1, ": (yaml): ", e.msg));
  }
}

}  // namespace gh::driver
