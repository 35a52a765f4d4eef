// A sweep matrix as loaded from matrices/*.yaml: which scenario files (and points) every cell
// runs, the defaults, the flag axes, the optional version axis, and include/exclude rules.
// docs/reference/matrix-yaml.md is the format reference. Errors are InvalidArgument "file:line:col: key: msg".
#ifndef GPUHARNESS_DRIVER_MATRIX_H_
#define GPUHARNESS_DRIVER_MATRIX_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/core/scenario_spec.h"
#include "harness/core/yaml_fields.h"
#include "harness/driver/version_list_command.h"

namespace gh::driver {

// What one axis value (or one version) sets for the cells that take it.
struct CellSettings {
  std::map<std::string, std::string> env;                       // plain variables
  std::map<std::string, std::vector<std::string>> flags;        // VAR -> "--flag=value" strings
  std::map<std::string, std::string> env_prepend;               // PATH-like, ':'-joined
  std::map<std::string, std::string> env_append;
  std::optional<int> ranks;
  std::optional<std::string> launcher;  // a name (launchers/<name>.yaml) or a path
  std::optional<absl::Duration> timeout;
  std::optional<std::string> backend;   // auto, host, cuda
  std::optional<bool> share_gpu;
  std::vector<std::string> args;        // extra `gpuharness run` arguments
  std::vector<std::string> points;      // point filters every scenario of the cell must match
  // Version values only.
  std::string setup;                    // shell command run once per version, cached
  std::vector<std::string> launcher_prefix;
};

struct AxisValue {
  std::string label;
  SourceLoc loc;  // the value's map, for errors naming it
  CellSettings settings;
};

struct MatrixAxis {
  std::string name;
  bool is_version = false;
  SourceLoc loc;
  std::vector<AxisValue> values;
};

struct MatrixScenario {
  std::string path;                  // resolved against the matrix file's directory
  std::string as_written;            // `file:` as written
  std::vector<std::string> points;   // PointNameMatches filters; empty = every point
  SourceLoc loc;
};

// include/exclude entry: axis name -> label.
struct ComboRule {
  std::map<std::string, std::string> labels;
  SourceLoc loc;
};

struct Matrix {
  std::string name;
  std::string description;
  std::string file;  // as given
  std::string dir;   // directory of the file: relative paths resolve against it
  std::vector<MatrixScenario> scenarios;
  CellSettings defaults;            // ranks/launcher/timeout/backend/share_gpu always set
  SourceLoc defaults_loc;           // `defaults:` (the document's start without one)
  std::vector<MatrixAxis> axes;     // flag axes, then the version axis (when present) last
  std::vector<ComboRule> include;
  std::vector<ComboRule> exclude;
  // versions.refine as written: a bisect's finer version axis (bisect_levels.h), read only once
  // the coarse level has answered; undefined without one.
  YAML::Node refine;
  bool has_version_axis() const { return !axes.empty() && axes.back().is_version; }
};

// Runs a version `list.command` (its command, the matrix's directory, `list.timeout`) and
// returns its stdout: RunVersionListCommand. Injected so tests need no shell. A Cancelled error
// (the driver was stopped) is passed on as it is; any other is reported at the command's key.
using ListCommandRunner = std::function<absl::StatusOr<std::string>(const VersionListCommand& request)>;

absl::StatusOr<Matrix> LoadMatrixFile(const std::string& path,
                                      const ListCommandRunner& list_runner = RunVersionListCommand);
// A matrix file already read and parsed (ParseYamlDocuments): one parse per command.
absl::StatusOr<Matrix> LoadMatrixDocuments(const std::vector<YAML::Node>& docs, const std::string& display_name,
                                           const std::string& dir,
                                           const ListCommandRunner& list_runner = RunVersionListCommand);
// The matrix a lone scenario file stands for (a boundary search given a scenario, not a
// matrix): that one scenario, the matrix named after the file, the built-in defaults (1 rank,
// mpirun, 10m, backend auto), no axes.
Matrix MatrixOfScenarioFile(const std::string& path);
absl::StatusOr<Matrix> LoadMatrixText(const std::string& text, const std::string& display_name,
                                      const std::string& dir,
                                      const ListCommandRunner& list_runner = RunVersionListCommand);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_MATRIX_H_
