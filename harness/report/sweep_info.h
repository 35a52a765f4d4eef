// What a sweep looked like, for reports: its axes in order (flag axes, then the version axis),
// each axis's labels in matrix order, and every cell's labels. The sweep driver writes it as
// DIR/sweep.json; `gpuharness report` reads it back. A plain `gpuharness run` has none.
#ifndef GPUHARNESS_REPORT_SWEEP_INFO_H_
#define GPUHARNESS_REPORT_SWEEP_INFO_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace gh {

// sweep.json's format version: written as "schema_version"; a file without one is version 1
// (written before the field existed); a newer version than this one is refused.
inline constexpr int kSweepInfoSchemaVersion = 1;

struct SweepAxisInfo {
  std::string name;                 // "proto", "nccl"
  bool is_version = false;          // a version axis (rows of summary tables)
  std::vector<std::string> labels;  // in matrix order
};

struct SweepCellInfo {
  std::string id;                            // "proto=ll,nccl=2.28.9": stable, filesystem-safe dir name is derived
  std::map<std::string, std::string> axes;   // axis name -> label
  std::string status;                        // "done", "setup_failed", "pending"
  std::string detail;                        // e.g. the set-up failure
  double wall_s = 0;
};

struct SweepInfo {
  std::string matrix_name;
  std::string matrix_file;
  std::vector<SweepAxisInfo> axes;
  std::vector<SweepCellInfo> cells;
  nlohmann::json ToJson() const;
  static absl::StatusOr<SweepInfo> FromJson(const nlohmann::json& json);
};

}  // namespace gh

#endif  // GPUHARNESS_REPORT_SWEEP_INFO_H_
