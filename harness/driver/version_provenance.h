// What a version's set-up actually installed, checked against what its label asked for. A
// version's set-up writes the pins it asked for (`name==version`, one a line) to
// DIR/versions/<label>/provenance.expected, and what it found it made to provenance.observed (same
// form): a pip set-up pins its packages, and the check reads the versions its venv holds (the
// .dist-info directories pip writes); a git set-up pins `commit==<the label's commit>` and
// observes the HEAD of the checkout it built; a container set-up observes `image==sha256:...`,
// the digest of the image file it runs (recorded, nothing to check it against). The check
// records all of it in provenance.json. A version whose
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
  // Every package of the venv, name -> version, and what provenance.observed says (`commit`,
  // `image`), which wins.
  std::map<std::string, std::string> installed;
  // "asked jax 3.0, the set-up installed jax 2.0; asked jaxlib 3.0, jaxlib is not installed";
  // "asked commit 1a2b..., the set-up built commit 3c4d..."; "" when every pin holds (or nothing
  // was checked).
  std::string mismatch;
  // "jax 3.0, jaxlib 3.0": the asked packages as installed ("" when nothing was checked).
  std::string CheckedText() const;
};

// The package name as pip compares it: lower case, runs of '-', '_' and '.' as one '-'.
std::string NormalizePackageName(const std::string& name);

// Reads `version_dir`'s provenance.expected, provenance.observed and its venv; writes
// provenance.json there (best effort: the check stands without it).
VersionProvenance CheckVersionProvenance(const std::string& version_dir);

// The pins of a pip requirement list ("jax==0.7.0 jaxlib==0.7.0 numpy<2" -> jax==0.7.0, jaxlib==0.7.0),
// one a line, for provenance.expected.
std::string ProvenancePins(const std::vector<std::string>& requirements);

// Shell lines for a set-up run in the version's directory: the git checkout `src` (made from the
// label's revision, resolved in `mirror`) pins `commit==<that commit>` in provenance.expected
// (ResolveLine, before the build) and observes the commit the build left checked out in
// provenance.observed (ObserveLine, after it).
std::string GitProvenanceResolveLine(const std::string& quoted_mirror, const std::string& quoted_revision);
std::string GitProvenanceObserveLine();
// A shell line observing `image==sha256:<digest>` of the image file at `quoted_path`.
std::string ImageProvenanceObserveLine(const std::string& quoted_path);
// A shell line observing `image==<id>` of the image `runtime` (docker, podman) pulled as `quoted_ref`.
std::string PulledImageProvenanceObserveLine(const std::string& runtime, const std::string& quoted_ref);

}  // namespace gh::driver

#endif  // GPUHARNESS_DRIVER_VERSION_PROVENANCE_H_
