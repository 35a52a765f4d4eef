// Reading typed fields of matrix and launcher YAML with errors that name file:line:column and
// the key, the way the scenario loader reports them. yaml-cpp throws; these helpers never do.
#ifndef GPUHARNESS_DRIVER_YAML_FIELDS_H_
#define GPUHARNESS_DRIVER_YAML_FIELDS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/core/scenario_spec.h"
#include "yaml-cpp/yaml.h"

namespace gh::driver {

// A node's position in `file` (yaml-cpp marks are 0-based; SourceLoc is 1-based).
SourceLoc LocOf(const std::string& file, const YAML::Node& node);

// InvalidArgument "file:line:col: key: message".
absl::Status YamlError(const SourceLoc& loc, const std::string& key, const std::string& message);

// A YAML map being read field by field; Finish() rejects keys nobody asked for.
class YamlMap {
 public:
  // Fails unless `node` is a map.
  static absl::StatusOr<YamlMap> Of(const std::string& file, const YAML::Node& node,
                                    std::string key_path);

  bool Has(const std::string& key) const;
  // The raw child (marks the key used); undefined node when absent.
  YAML::Node Child(const std::string& key);
  SourceLoc Loc() const { return LocOf(file_, node_); }
  SourceLoc LocOfKey(const std::string& key) const;
  std::string Path(const std::string& key) const;  // "axes[0].values[1].env"

  absl::StatusOr<std::string> String(const std::string& key, bool required);
  absl::StatusOr<int64_t> Int(const std::string& key, int64_t min, int64_t max);
  absl::StatusOr<bool> Bool(const std::string& key);
  absl::StatusOr<absl::Duration> Duration(const std::string& key);
  absl::StatusOr<std::vector<std::string>> StringList(const std::string& key);
  absl::StatusOr<std::map<std::string, std::string>> StringMap(const std::string& key);

  // Error on the first key not read (naming the key and the ones allowed).
  absl::Status Finish() const;

  const std::string& file() const { return file_; }
  const std::string& key_path() const { return key_path_; }

 private:
  YamlMap(std::string file, YAML::Node node, std::string key_path)
      : file_(std::move(file)), node_(std::move(node)), key_path_(std::move(key_path)) {}
  std::string file_;
  YAML::Node node_;
  std::string key_path_;
  std::vector<std::string> used_;
  mutable std::vector<std::string> known_;  // keys asked about: the allowed list in errors
};

// A scalar as a string; error when the node is not a scalar.
absl::StatusOr<std::string> ScalarString(const std::string& file, const YAML::Node& node,
                                         const std::string& key);

// "10m", "90s", "1h30m", "500ms", or a plain number of seconds.
absl::StatusOr<absl::Duration> ParseDurationText(const std::string& text);
std::string FormatDurationText(absl::Duration duration);  // "10m", "1m30s", "250ms"

// Parses YAML text, turning yaml-cpp's exception into "file:line:col: message".
absl::StatusOr<std::vector<YAML::Node>> ParseYamlDocuments(const std::string& text,
                                                           const std::string& file);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_YAML_FIELDS_H_
