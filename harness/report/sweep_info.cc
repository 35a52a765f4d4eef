#include "harness/report/sweep_info.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "harness/core/status_macros.h"

namespace gh {
namespace {

using nlohmann::json;

absl::Status TypeError(const std::string& key, const char* expected) {
  return absl::InvalidArgumentError(absl::StrCat(key, ": expected ", expected));
}

// Reads an optional string member; absent leaves `out` as is.
absl::Status ReadString(const json& object, const char* name, const std::string& path,
                        std::string& out) {
  auto it = object.find(name);
  if (it == object.end()) return absl::OkStatus();
  if (!it->is_string()) return TypeError(absl::StrCat(path, name), "a string");
  out = it->get<std::string>();
  return absl::OkStatus();
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
  if (auto it = object.find("is_version"); it != object.end()) {
    if (!it->is_boolean()) return TypeError(prefix + "is_version", "true or false");
    axis.is_version = it->get<bool>();
  }
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
  if (auto it = object.find("wall_s"); it != object.end()) {
    if (!it->is_number()) return TypeError(prefix + "wall_s", "a number");
    cell.wall_s = it->get<double>();
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
  if (auto it = json_in.find("axes"); it != json_in.end()) {
    if (!it->is_array()) return TypeError("axes", "a list");
    for (size_t i = 0; i < it->size(); ++i) {
      SweepAxisInfo axis;
      if (auto s = ReadAxis((*it)[i], absl::StrCat("axes[", i, "]"), axis); !s.ok()) return s;
      info.axes.push_back(std::move(axis));
    }
  }
  if (auto it = json_in.find("cells"); it != json_in.end()) {
    if (!it->is_array()) return TypeError("cells", "a list");
    for (size_t i = 0; i < it->size(); ++i) {
      SweepCellInfo cell;
      if (auto s = ReadCell((*it)[i], absl::StrCat("cells[", i, "]"), cell); !s.ok()) return s;
      info.cells.push_back(std::move(cell));
    }
  }
  return info;
}

}  // namespace gh
