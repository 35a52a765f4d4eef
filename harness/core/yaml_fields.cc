#include "harness/core/yaml_fields.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdint>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/core/did_you_mean.h"
#include "harness/core/duration_text.h"

namespace gh {

absl::Status YamlError(const SourceLoc& loc, absl::string_view key, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(loc.ToString(), ": ", key, ": ", message));
}

absl::Status UnknownKeyError(const SourceLoc& loc, absl::string_view path, absl::string_view key,
                             std::vector<std::string> allowed) {
  std::string suffix = DidYouMeanSuffix(std::string(key), allowed);
  if (!suffix.empty()) return YamlError(loc, path, absl::StrCat("unknown key", suffix));
  std::sort(allowed.begin(), allowed.end());
  allowed.erase(std::unique(allowed.begin(), allowed.end()), allowed.end());
  return YamlError(loc, path,
                   allowed.empty() ? std::string("unknown key (no keys are allowed here)")
                                   : absl::StrCat("unknown key (allowed here: ",
                                                  absl::StrJoin(allowed, ", "), ")"));
}

std::string NodeKind(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: return absl::StrCat("'", node.Scalar(), "'");
    default: return "nothing";
  }
}

absl::StatusOr<std::vector<YAML::Node>> ParseYamlDocuments(const std::string& text,
                                                           const std::string& file) {
  try {
    return YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    SourceLoc loc{file, e.mark.is_null() ? 1 : e.mark.line + 1,
                  e.mark.is_null() ? 1 : e.mark.column + 1};
    return absl::InvalidArgumentError(absl::StrCat(loc.ToString(), ": invalid YAML: ", e.msg));
  }
}

// ---- YamlDoc

YamlDoc::YamlDoc(std::string file)
    : file_(std::move(file)),
      empty_values_(std::make_shared<std::vector<std::pair<YAML::Node, SourceLoc>>>()) {}

SourceLoc YamlDoc::Loc(const YAML::Node& node) const {
  if (!node.IsDefined()) return SourceLoc{file_, 1, 1};
  if (node.IsNull()) {
    for (const auto& [value, key_loc] : *empty_values_) {
      if (value.is(node)) return key_loc;
    }
  }
  YAML::Mark mark = node.Mark();
  if (mark.is_null() || mark.line < 0) return SourceLoc{file_, 1, 1};
  return SourceLoc{file_, mark.line + 1, mark.column + 1};
}

absl::Status YamlDoc::Error(const YAML::Node& node, absl::string_view key,
                            absl::string_view message) const {
  return YamlError(Loc(node), key, message);
}

absl::StatusOr<std::vector<YamlEntry>> YamlDoc::Entries(const YAML::Node& map,
                                                        absl::string_view path) const {
  std::vector<YamlEntry> entries;
  std::map<std::string, SourceLoc> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    // Copies: it->first lives in a proxy that dies with the expression.
    YAML::Node key = it->first;
    YAML::Node value = it->second;
    if (!key.IsScalar()) return Error(key, path.empty() ? "key" : path, "a key must be a plain name");
    std::string name = key.Scalar();
    std::string key_path = path.empty() ? name : absl::StrCat(path, ".", name);
    auto [prev, inserted] = seen.emplace(name, Loc(key));
    if (!inserted) {
      return Error(key, key_path,
                   absl::StrCat("duplicate key (first at ", prev->second.ToString(), ")"));
    }
    if (value.IsNull()) empty_values_->emplace_back(value, Loc(key));
    entries.push_back({name, key, value});
  }
  return entries;
}

absl::StatusOr<std::string> YamlDoc::Scalar(const YAML::Node& node, absl::string_view path,
                                            absl::string_view what) const {
  if (!node.IsScalar()) {
    return Error(node, path, absl::StrCat("expected ", what, ", got ", NodeKind(node)));
  }
  return node.Scalar();
}

absl::StatusOr<int64_t> YamlDoc::Int(const YAML::Node& node, absl::string_view path, int64_t min,
                                     int64_t max) const {
  absl::StatusOr<std::string> text = Scalar(node, path, "an integer");
  if (!text.ok()) return text.status();
  const char* begin = text->data();
  const char* end = text->data() + text->size();
  if (begin != end && *begin == '+') ++begin;
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (text->empty() || ec != std::errc() || ptr != end) {
    return Error(node, path, absl::StrCat("expected an integer, got '", *text, "'"));
  }
  if (value < min || value > max) {
    if ((max == INT64_MAX || max == INT_MAX) && value < min) {
      return Error(node, path, absl::StrCat("must be at least ", min, ", got ", value));
    }
    return Error(node, path, absl::StrCat("must be between ", min, " and ", max, ", got ", value));
  }
  return value;
}

absl::StatusOr<bool> YamlDoc::Bool(const YAML::Node& node, absl::string_view path) const {
  absl::StatusOr<std::string> text = Scalar(node, path, "true or false");
  if (!text.ok()) return text.status();
  if (*text == "true" || *text == "True" || *text == "TRUE") return true;
  if (*text == "false" || *text == "False" || *text == "FALSE") return false;
  return Error(node, path, absl::StrCat("expected true or false, got '", *text, "'"));
}

absl::StatusOr<absl::Duration> YamlDoc::Duration(const YAML::Node& node, absl::string_view path,
                                                 absl::Duration max) const {
  absl::StatusOr<std::string> text = Scalar(node, path, "a duration such as 90s, 10m or 1h");
  if (!text.ok()) return text.status();
  absl::StatusOr<absl::Duration> duration = ParseDurationValue(*text);
  if (!duration.ok()) return Error(node, path, duration.status().message());
  if (*duration <= absl::ZeroDuration() || *duration > max) {
    return Error(node, path,
                 max == absl::InfiniteDuration()
                     ? absl::StrCat("must be more than 0, got '", *text, "'")
                     : absl::StrCat("must be more than 0 and at most ", FormatDurationText(max),
                                    ", got '", *text, "'"));
  }
  return *duration;
}

absl::StatusOr<std::vector<std::string>> YamlDoc::StringList(const YAML::Node& node,
                                                             absl::string_view path) const {
  std::vector<std::string> out;
  if (!node.IsDefined() || node.IsNull()) return out;
  if (node.IsScalar()) {
    out.push_back(node.Scalar());
    return out;
  }
  if (!node.IsSequence()) {
    return Error(node, path, absl::StrCat("expected a list of strings, got ", NodeKind(node)));
  }
  for (size_t i = 0; i < node.size(); ++i) {
    absl::StatusOr<std::string> item = Scalar(node[i], absl::StrCat(path, "[", i, "]"), "a string");
    if (!item.ok()) return item.status();
    out.push_back(*item);
  }
  return out;
}

absl::StatusOr<std::map<std::string, std::string>> YamlDoc::StringMap(const YAML::Node& node,
                                                                      absl::string_view path) const {
  std::map<std::string, std::string> out;
  if (!node.IsDefined() || node.IsNull()) return out;
  if (!node.IsMap()) {
    return Error(node, path, absl::StrCat("expected a map of NAME: value, got ", NodeKind(node)));
  }
  absl::StatusOr<std::vector<YamlEntry>> entries = Entries(node, path);
  if (!entries.ok()) return entries.status();
  for (const YamlEntry& entry : *entries) {
    absl::StatusOr<std::string> value =
        Scalar(entry.value, absl::StrCat(path, ".", entry.key), "a string");
    if (!value.ok()) return value.status();
    out[entry.key] = *value;
  }
  return out;
}

// ---- YamlMap

absl::StatusOr<YamlMap> YamlMap::Of(const YamlDoc& doc, const YAML::Node& node,
                                    std::string key_path, std::vector<std::string> allowed,
                                    absl::string_view expected) {
  const std::string where = key_path.empty() ? "(document)" : key_path;
  if (!node.IsMap()) {
    return doc.Error(node, where, absl::StrCat("expected ", expected, ", got ", NodeKind(node)));
  }
  absl::StatusOr<std::vector<YamlEntry>> entries = doc.Entries(node, key_path);
  if (!entries.ok()) return entries.status();
  for (const YamlEntry& entry : *entries) {
    if (std::find(allowed.begin(), allowed.end(), entry.key) == allowed.end()) {
      std::string path = key_path.empty() ? entry.key : absl::StrCat(key_path, ".", entry.key);
      return UnknownKeyError(doc.Loc(entry.key_node), path, entry.key, allowed);
    }
  }
  return YamlMap(doc, node, std::move(key_path), std::move(allowed), *std::move(entries));
}

const YamlEntry* YamlMap::Find(const std::string& key) const {
  for (const YamlEntry& entry : entries_) {
    if (entry.key == key) return &entry;
  }
  return nullptr;
}

bool YamlMap::Has(const std::string& key) const { return Find(key) != nullptr; }

YAML::Node YamlMap::Child(const std::string& key) {
  read_.push_back(key);
  const YamlEntry* entry = Find(key);
  return entry == nullptr ? YAML::Node(YAML::NodeType::Undefined) : entry->value;
}

SourceLoc YamlMap::LocOfKey(const std::string& key) const {
  const YamlEntry* entry = Find(key);
  return entry == nullptr ? Loc() : doc_.Loc(entry->value);
}

SourceLoc YamlMap::LocOfKeyName(const std::string& key) const {
  const YamlEntry* entry = Find(key);
  return entry == nullptr ? Loc() : doc_.Loc(entry->key_node);
}

std::string YamlMap::Path(const std::string& key) const {
  return key_path_.empty() ? key : absl::StrCat(key_path_, ".", key);
}

absl::Status YamlMap::Error(const std::string& key, absl::string_view message) const {
  return YamlError(LocOfKey(key), Path(key), message);
}

absl::StatusOr<std::string> YamlMap::String(const std::string& key, bool required) {
  YAML::Node child = Child(key);
  if (!child.IsDefined() || child.IsNull()) {
    if (required) return YamlError(Loc(), Path(key), "missing required key");
    return std::string();
  }
  return doc_.Scalar(child, Path(key), "a string");
}

absl::StatusOr<int64_t> YamlMap::Int(const std::string& key, int64_t min, int64_t max) {
  return doc_.Int(Child(key), Path(key), min, max);
}

absl::StatusOr<bool> YamlMap::Bool(const std::string& key) {
  return doc_.Bool(Child(key), Path(key));
}

absl::StatusOr<absl::Duration> YamlMap::Duration(const std::string& key, absl::Duration max) {
  return doc_.Duration(Child(key), Path(key), max);
}

absl::StatusOr<std::vector<std::string>> YamlMap::StringList(const std::string& key) {
  return doc_.StringList(Child(key), Path(key));
}

absl::StatusOr<std::map<std::string, std::string>> YamlMap::StringMap(const std::string& key) {
  return doc_.StringMap(Child(key), Path(key));
}

absl::Status YamlMap::Finish() const {
  for (const YamlEntry& entry : entries_) {
    if (std::find(read_.begin(), read_.end(), entry.key) == read_.end()) {
      return UnknownKeyError(doc_.Loc(entry.key_node), Path(entry.key), entry.key, read_);
    }
  }
  return absl::OkStatus();
}

}  // namespace gh
