// Cells: the matrix's axes multiplied out (first axis slowest, the version axis last), less
// `exclude`, plus `include`, each with its settings merged from the defaults and its values.
#ifndef GPUHARNESS_DRIVER_CELL_PLAN_H_
#define GPUHARNESS_DRIVER_CELL_PLAN_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/core/path_under.h"  // SafeDirName: a cell's dir_name
#include "harness/driver/matrix.h"

namespace gh::driver {

// How one cell changes the environment its job starts with. Values may hold {version_dir},
// which is substituted when the job starts.
struct EnvPlan {
  std::map<std::string, std::string> set;                 // plain variables
  std::map<std::string, std::vector<std::string>> flags;  // merged flag lists, axis order
  std::map<std::string, std::vector<std::string>> prepend;  // in axis order
  std::map<std::string, std::vector<std::string>> append;
  std::vector<std::string> Names() const;                 // every variable touched, sorted
};

struct CellPlan {
  std::string id;        // "proto=ll,np=4,nccl=2.28.9" (axis order); "all" without axes
  std::string dir_name;  // filesystem-safe form of id
  std::vector<std::pair<std::string, std::string>> labels;  // axis -> label, axis order
  std::string version;   // the version axis's label, empty without one
  std::string version_axis;  // the version axis's name ("version" unless the matrix names it)
  int ranks = 1;
  std::string launcher;  // as written (name or path)
  absl::Duration timeout = absl::Minutes(10);
  std::string backend = "auto";
  bool share_gpu = false;
  std::vector<std::string> args;             // extra `gpuharness run` arguments
  std::vector<std::string> points;           // point filters from the values (all must match)
  std::vector<std::string> launcher_prefix;  // from the version
  EnvPlan env;
  std::string settings_hash;  // hex; changes when anything above (but the id) changes

  std::map<std::string, std::string> LabelMap() const;
};

// Every cell of the matrix, in matrix order. Errors (file:line:col) for two axis values that
// set the same plain variable or the same scalar setting differently in one cell.
absl::StatusOr<std::vector<CellPlan>> ExpandCells(const Matrix& matrix);

// Merges flag strings: later flags override earlier ones of the same name (--name=value or
// --name), keeping the first position. `base` is the value already in the environment.
std::string MergeFlags(const std::string& base, const std::vector<std::string>& flags);

// The environment a cell's job starts with: `base` (NAME=VALUE entries) changed by `plan`,
// with {version_dir} replaced. PATH-like values are ':'-joined, empty parts dropped.
std::vector<std::string> ApplyEnvPlan(const std::vector<std::string>& base, const EnvPlan& plan,
                                      const std::map<std::string, std::string>& extra,
                                      const std::string& version_dir);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_CELL_PLAN_H_
