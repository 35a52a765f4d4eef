// The one toolkit for reading YAML input (scenario, matrix and launcher files) with errors that
// name file:line:column and the key path: InvalidArgument "file:line:col: key: message",
// callers exit 2. yaml-cpp throws; none of these do.
//
// Keys are declared when a map is opened, so a mistyped key is reported before anything it
// hides ("valeus: unknown key; did you mean values?" rather than "values: missing required key").
#ifndef GPUHARNESS_CORE_YAML_FIELDS_H_
#define GPUHARNESS_CORE_YAML_FIELDS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include "absl/strings/string_view.h"
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/core/scenario_spec.h"
#include "yaml-cpp/yaml.h"

namespace gh {

// InvalidArgument "file:line:col: key: message".
absl::Status YamlError(const SourceLoc& loc, absl::string_view key, absl::string_view message);

// The one unknown-key message: "KEY: unknown key; did you mean X?" when a choice is close,
// else "KEY: unknown key (allowed here: a, b, c)". `path` is the key's full path.
absl::Status UnknownKeyError(const SourceLoc& loc, absl::string_view path, absl::string_view key,
                             std::vector<std::string> allowed);

// How a node reads in "expected X, got ...": "a map", "a list", "nothing", "'text'".
std::string NodeKind(const YAML::Node& node);

// Every document of `text`, yaml-cpp's exception turned into "file:line:col: invalid YAML: ...".
absl::StatusOr<std::vector<YAML::Node>> ParseYamlDocuments(const std::string& text,
                                                           const std::string& file);

// One key of a map, with its nodes, in document order.
struct YamlEntry {
  std::string key;
  YAML::Node key_node;
  YAML::Node value;
};

// A file being read: its name and the locations of its nodes. Cheap to copy (copies share
// what they learn about empty values).
class YamlDoc {
 public:
  explicit YamlDoc(std::string file);

  const std::string& file() const { return file_; }
  // 1-based. An empty value is placed at its key (yaml-cpp marks it at the next token, possibly
  // lines later) once Entries() has seen that key; a node without a mark at file:1:1.
  SourceLoc Loc(const YAML::Node& node) const;
  absl::Status Error(const YAML::Node& node, absl::string_view key, absl::string_view message) const;

  // The map's entries; a key that is not a plain name or appears twice is an error.
  absl::StatusOr<std::vector<YamlEntry>> Entries(const YAML::Node& map, absl::string_view path) const;

  // Typed scalars; `path` names the key in errors.
  // "expected WHAT, got a list" unless the node is a scalar.
  absl::StatusOr<std::string> Scalar(const YAML::Node& node, absl::string_view path,
                                     absl::string_view what) const;
  // "expected an integer, got 'x'", "must be between MIN and MAX, got N" ("at least MIN" when
  // MAX is unbounded: INT64_MAX or INT_MAX).
  absl::StatusOr<int64_t> Int(const YAML::Node& node, absl::string_view path, int64_t min,
                              int64_t max) const;
  // true/True/TRUE or false/False/FALSE (YAML 1.2's core schema).
  absl::StatusOr<bool> Bool(const YAML::Node& node, absl::string_view path) const;
  // The grammar of duration_text.h; more than zero and at most `max`.
  absl::StatusOr<absl::Duration> Duration(const YAML::Node& node, absl::string_view path,
                                          absl::Duration max = absl::InfiniteDuration()) const;
  // A scalar is a list of one; null is empty.
  absl::StatusOr<std::vector<std::string>> StringList(const YAML::Node& node,
                                                      absl::string_view path) const;
  // NAME: value pairs; null is empty.
  absl::StatusOr<std::map<std::string, std::string>> StringMap(const YAML::Node& node,
                                                               absl::string_view path) const;

 private:
  std::string file_;
  std::shared_ptr<std::vector<std::pair<YAML::Node, SourceLoc>>> empty_values_;
};

// A map being read field by field, its keys declared when it is opened.
class YamlMap {
 public:
  // Fails unless `node` is a map ("KEY: expected `expected`, got ..."), on a duplicate key, and on
  // the first key not in `allowed` (UnknownKeyError), in document order.
  static absl::StatusOr<YamlMap> Of(const YamlDoc& doc, const YAML::Node& node,
                                    std::string key_path, std::vector<std::string> allowed,
                                    absl::string_view expected = "a map");

  bool Has(const std::string& key) const;
  // The raw child (marks the key read); an undefined node when absent.
  YAML::Node Child(const std::string& key);
  SourceLoc Loc() const { return doc_.Loc(node_); }
  // The value's location (its key's when empty); the map's when absent.
  SourceLoc LocOfKey(const std::string& key) const;
  // The key's own location; the map's when absent.
  SourceLoc LocOfKeyName(const std::string& key) const;
  std::string Path(const std::string& key) const;  // "axes[0].values[1].env"
  absl::Status Error(const std::string& key, absl::string_view message) const;  // at the value

  // Typed fields (YamlDoc's readers on the child, marking it read).
  absl::StatusOr<std::string> String(const std::string& key, bool required);
  absl::StatusOr<int64_t> Int(const std::string& key, int64_t min, int64_t max);
  absl::StatusOr<bool> Bool(const std::string& key);
  absl::StatusOr<absl::Duration> Duration(const std::string& key,
                                          absl::Duration max = absl::InfiniteDuration());
  absl::StatusOr<std::vector<std::string>> StringList(const std::string& key);
  absl::StatusOr<std::map<std::string, std::string>> StringMap(const std::string& key);

  // Rejects the first key nobody read, with the unknown-key message: a key allowed by the
  // declaration but meaningless where it stands.
  absl::Status Finish() const;

  const YamlDoc& doc() const { return doc_; }
  const std::string& file() const { return doc_.file(); }
  const std::string& key_path() const { return key_path_; }
  const YAML::Node& node() const { return node_; }
  const std::vector<YamlEntry>& entries() const { return entries_; }

 private:
  YamlMap(YamlDoc doc, YAML::Node node, std::string key_path, std::vector<std::string> allowed,
          std::vector<YamlEntry> entries)
      : doc_(std::move(doc)),
        node_(std::move(node)),
        key_path_(std::move(key_path)),
        allowed_(std::move(allowed)),
        entries_(std::move(entries)) {}
  const YamlEntry* Find(const std::string& key) const;

  YamlDoc doc_;
  YAML::Node node_;
  std::string key_path_;
  std::vector<std::string> allowed_;
  std::vector<YamlEntry> entries_;
  std::vector<std::string> read_;
};

}  // namespace gh

#endif  // GPUHARNESS_CORE_YAML_FIELDS_H_
