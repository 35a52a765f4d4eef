// What a version's set-up actually installed, checked against what its label asked for. A pip
// version's set-up writes the pins it asked for (`name==version`, one a line) to
// DIR/versions/<label>/provenance.expected; the check reads the versions its venv holds (the
// .dist-info directories pip writes) and records both in provenance.json. A version whose
// installed packages are not the ones its label names (a stale cache, a resolver that picked
// another release, an index that served another build) must never be tested in the label's name:
// the set-up counts as failed, infrastructure, never a verdict on the code.
#ifndef GPUHARNESS_DRIVER_VERSION_PROVENANCE_H_
#define GPUHARNESS_DRIVER_VERSION_PROVENANCE_H_

#include <map>
#include <string>
#include <vector>

namespace gh::driver {

struct VersionProvenance {
  bool checked = false;  // the set-up named what it asked for (provenance.expected exists)
  std::vector<std::pair<std::string, std::string>> asked;  // name, version, as the set-up pinned them
  std::map<std::string, std::string> installed;            // every package of the venv, name -> version
  // "asked jax 3.0, the set-up installed jax 2.0; asked jaxlib 3.0, jaxlib is not installed"; "" when
  // every pin holds (or nothing was checked).
  std::string mismatch;
  // "jax 3.0, jaxlib 3.0": the asked packages as installed ("" when nothing was checked).
  std::string CheckedText() const;
};

// The package name as pip compares it: lower case, runs of '-', '_' and '.' as one '-'.
std::string NormalizePackageName(const std::string& name);

// Reads `version_dir`'s provenance.expected and its venv; writes provenance.json there (best
// effort: the check stands without it).
VersionProvenance CheckVersionProvenance(const std::string& version_dir);

// The pins of a pip requirement list ("jax==0.7.0 jaxlib==0.7.0 numpy<2" -> jax==0.7.0, jaxlib==0.7.0),
// one a line, for provenance.expected.
std::string ProvenancePins(const std::vector<std::string>& requirements);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_VERSION_PROVENANCE_H_
