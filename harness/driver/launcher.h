// Launchers: how a cell's job is started, as an argv template (launchers/*.yaml), never a
// shell string unless the user writes one. Placeholders: {ranks}, {program}, and two that
// expand to several arguments when they are a whole element: {args} (the `gpuharness run`
// arguments) and {env_flags} (env_flag expanded once per cell variable, with {name}).
#ifndef GPUHARNESS_DRIVER_LAUNCHER_H_
#define GPUHARNESS_DRIVER_LAUNCHER_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/scenario_spec.h"

namespace gh::driver {

struct LauncherSpec {
  std::string name;
  std::string source;                 // file it came from, or "builtin:<name>"
  std::vector<std::string> argv;      // template
  std::vector<std::string> env_flag;  // template per variable, e.g. ["-x", "{name}"]
  std::optional<int> max_ranks;       // `direct`: 1
};

// The launchers shipped in launchers/ (mpirun, srun, direct), also compiled in so a binary
// run from anywhere finds them.
const std::vector<std::string>& BuiltinLauncherNames();
absl::StatusOr<std::string> BuiltinLauncherText(const std::string& name);

absl::StatusOr<LauncherSpec> LoadLauncherText(const std::string& text,
                                              const std::string& display_name);

// Resolves a matrix's `launcher:` value. A value with '/' or ending in .yaml is a path
// relative to `matrix_dir`; a name is looked up as <matrix_dir>/../launchers/<name>.yaml,
// <matrix_dir>/launchers/<name>.yaml, the shipped launchers (core/shipped_data.h), then the
// builtins.
absl::StatusOr<LauncherSpec> ResolveLauncher(const std::string& value,
                                             const std::string& matrix_dir);

struct LaunchInputs {
  int ranks = 1;
  std::string program;                   // the gpuharness binary
  std::vector<std::string> args;         // run <files> --out <dir> ...
  std::vector<std::string> env_names;    // variables the cell sets, for {env_flags}
  std::vector<std::string> prefix;       // the version's launcher_prefix, put in front
  std::vector<std::string> step_args;    // put after the launcher's `srun` (a Slurm step's placement)
};

// The argv to start. Fails when ranks exceed max_ranks, or when step_args are given and the
// launcher does not start with srun.
absl::StatusOr<std::vector<std::string>> ExpandLauncherArgv(const LauncherSpec& launcher,
                                                            const LaunchInputs& inputs);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_LAUNCHER_H_
