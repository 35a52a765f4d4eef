#include "harness/report/sweep_info.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "harness/core/status_macros.h"

namespace gh {
namespace {

using nlohmann::json;

absl::Status TypeError(const std::string& key, const char* expected) {
  return absl::InvalidArgumentError(absl::StrCat(key, ": expected ", expected));
}

// Reads an optional member that `is_type` accepts ("expected `expected`" where it does not);
// absent leaves `out` as is.
template <typename T>
absl::Status ReadOptional(const json& object, const char* name, const std::string& path,
                          bool (json::*is_type)() const noexcept, const char* expected, T& out) {
  auto it = object.find(name);
  if (it == object.end()) return absl::OkStatus();
  if (!((*it).*is_type)()) return TypeError(absl::StrCat(path, name), expected);
  out = it->get<T>();
  return absl::OkStatus();
}

// Reads an optional string member; absent leaves `out` as is.
absl::Status ReadString(const json& object, const char* name, const std::string& path,
                        std::string& out) {
  return ReadOptional(object, name, path, &json::is_string, "a string", out);
}

// Reads a string member every entry must have.
absl::Status ReadRequiredString(const json& object, const char* name, const std::string& path,
                                std::string& out) {
  if (!object.contains(name)) return absl::InvalidArgumentError(absl::StrCat(path, name, ": missing"));
  return ReadString(object, name, path, out);
}

absl::Status ReadAxis(const json& object, const std::string& path, SweepAxisInfo& axis) {
  if (!object.is_object()) return TypeError(path, "an object");
  const std::string prefix = path + ".";
  GH_RETURN_IF_ERROR(ReadRequiredString(object, "name", prefix, axis.name));
  GH_RETURN_IF_ERROR(ReadOptional(object, "is_version", prefix, &json::is_boolean, "true or false", axis.is_version));
  if (auto it = object.find("labels"); it != object.end()) {
    if (!it->is_array()) return TypeError(prefix + "labels", "a list of strings");
    for (size_t i = 0; i < it->size(); ++i) {
      const json& label = (*it)[i];
      if (!label.is_string()) {
        return TypeError(absl::StrCat(prefix, "labels[", i, "]"), "a string");
      }
      axis.labels.push_back(label.get<std::string>());
    }
  }
  return absl::OkStatus();
}

absl::Status ReadCell(const json& object, const std::string& path, SweepCellInfo& cell) {
  if (!object.is_object()) return TypeError(path, "an object");
  const std::string prefix = path + ".";
  GH_RETURN_IF_ERROR(ReadRequiredString(object, "id", prefix, cell.id));
  if (auto it = object.find("axes"); it != object.end()) {
    if (!it->is_object()) return TypeError(prefix + "axes", "an object of axis name to label");
    for (const auto& [name, label] : it->items()) {
      if (!label.is_string()) return TypeError(absl::StrCat(prefix, "axes.", name), "a string");
      cell.axes[name] = label.get<std::string>();
    }
  }
  GH_RETURN_IF_ERROR(ReadString(object, "status", prefix, cell.status));
  GH_RETURN_IF_ERROR(ReadString(object, "detail", prefix, cell.detail));
  return ReadOptional(object, "wall_s", prefix, &json::is_number, "a number", cell.wall_s);
}

// Reads an optional top-level list, each element by `read_one` (which names it "NAME[i]") into `out`.
template <typename T>
absl::Status ReadList(const json& object, const char* name,
                      absl::Status (*read_one)(const json&, const std::string&, T&), std::vector<T>& out) {
  auto it = object.find(name);
  if (it == object.end()) return absl::OkStatus();
  if (!it->is_array()) return TypeError(name, "a list");
  for (size_t i = 0; i < it->size(); ++i) {
    T item;
    GH_RETURN_IF_ERROR(read_one((*it)[i], absl::StrCat(name, "[", i, "]"), item));
    out.push_back(std::move(item));
  }
  return absl::OkStatus();
}

}  // namespace

nlohmann::json SweepInfo::ToJson() const {
  json axes_json = json::array();
  for (const SweepAxisInfo& axis : axes) {
    axes_json.push_back({{"name", axis.name}, {"is_version", axis.is_version}, {"labels", axis.labels}});
  }
  json cells_json = json::array();
  for (const SweepCellInfo& cell : cells) {
    cells_json.push_back({{"id", cell.id},
                          {"axes", cell.axes},
                          {"status", cell.status},
                          {"detail", cell.detail},
                          {"wall_s", cell.wall_s}});
  }
  return {{"schema_version", kSweepInfoSchemaVersion},
          {"matrix_name", matrix_name},
          {"matrix_file", matrix_file},
          {"axes", std::move(axes_json)},
          {"cells", std::move(cells_json)}};
}

absl::StatusOr<SweepInfo> SweepInfo::FromJson(const nlohmann::json& json_in) {
  if (!json_in.is_object()) return TypeError("(top level)", "an object");
  SweepInfo info;
  if (auto it = json_in.find("schema_version"); it != json_in.end()) {
    if (!it->is_number_integer() || it->get<int>() < 1) return TypeError("schema_version", "a positive integer");
    if (it->get<int>() > kSweepInfoSchemaVersion) {
      return absl::InvalidArgumentError(absl::StrCat("schema_version: ", it->get<int>(),
                                                     " is newer than this gpuharness reads (",
                                                     kSweepInfoSchemaVersion, ")"));
    }
  }
  if (auto s = ReadString(json_in, "matrix_name", "", info.matrix_name); !s.ok()) return s;
  if (auto s = ReadString(json_in, "matrix_file", "", info.matrix_file); !s.ok()) return s;
  GH_RETURN_IF_ERROR(ReadList(json_in, "axes", &ReadAxis, info.axes));
  GH_RETURN_IF_ERROR(ReadList(json_in, "cells", &ReadCell, info.cells));
  return info;
}

}  // namespace gh
