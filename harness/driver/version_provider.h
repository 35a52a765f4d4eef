// Version providers: `versions: {pip: ...}`, `{git: ...}` or `{container: ...}` in a matrix,
// beside the generic `values`/`list` form. A provider lists the versions (from the package
// index or a wheelhouse, a repository's tags or commits, a directory of images or a tag
// command) and writes each version's set-up command and activation, so no user hand-writes
// venv, build or container plumbing. The set-up then runs as any version's `setup` does
// (version_setup.h: cached in the version's directory, locked, its log named in failures).
// docs/reference/matrix-yaml.md ("Version providers") is the reference.
#ifndef GPUHARNESS_DRIVER_VERSION_PROVIDER_H_
#define GPUHARNESS_DRIVER_VERSION_PROVIDER_H_

#include <string>
#include "absl/strings/string_view.h"
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "harness/core/yaml_fields.h"
#include "harness/driver/matrix.h"

namespace gh::driver {

// The provider keys a `versions:` map may hold (exactly one, instead of `values`/`list`).
const std::vector<std::string>& VersionProviderKeys();

// Placeholders and their values, in the order they are tried ({good} -> "v2.28.3-1").
using Placeholders = std::vector<std::pair<std::string, std::string>>;

// Reads the provider under `versions.<key>` and fills `axis->values` (labels in order, oldest
// first, each with its set-up and activation). `list_runner` runs the listing commands (pip
// index, git ls-remote/rev-list, a tag command) in the matrix's directory `dir`. Bad YAML and a
// failed or empty listing are InvalidArgument "file:line:col: versions.<key>.<field>: ...".
// `placeholders` (a refine level's {good} and {bad}) and {matrix_dir} are filled in every field;
// in the shell ones (git `build`, container `tags_command`) through ShellSubstitute, as the
// version label is in `build` and every value in the set-ups written here.
absl::Status ReadVersionProvider(YamlMap& versions, const std::string& key, const std::string& dir,
                                 const ListCommandRunner& list_runner, MatrixAxis* axis,
                                 const Placeholders& placeholders = {});

// `pip index versions` output -> its versions ("Available versions: 0.4.38, 0.4.36" -> both).
std::vector<std::string> ParsePipIndexVersions(absl::string_view output);
// Versions in a wheelhouse listing (file names, one a line) for `package`: `jax-0.4.36-py3-none-any.whl`
// -> 0.4.36 (names compared as pip does: case, '-', '_' and '.' alike).
std::vector<std::string> ParseWheelhouseVersions(absl::string_view listing, absl::string_view package);
// The dotted-number versions among `versions` that meet `range` (">=0.4.30,<0.5"; "" = all),
// sorted oldest first without duplicates; pre-releases and other non-numeric labels are left out.
absl::StatusOr<std::vector<std::string>> FilterVersionRange(const std::vector<std::string>& versions,
                                                            absl::string_view range);
// Natural order ("v2.28.9-1" < "v2.28.10-1"): digit runs compare as numbers.
bool NaturalLess(absl::string_view a, absl::string_view b);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_VERSION_PROVIDER_H_
