// A bisect in two levels (`--refine`): once the coarse version axis (releases, nightly images)
// has named its first bad version and last good one, the bisect goes on over a finer axis
// between those two (the commits between two tags, the nightlies between two releases), as
// JAX-Toolbox's triage goes from containers to commits and cargo-bisect-rustc from nightlies to
// commits. The finer axis is `versions.refine` of the matrix: a version provider whose range is
// templated by the coarse answer's two ends, `{good}` and `{bad}`:
//
//   versions:
//     name: tag
//     git: {repo: ..., tags: "v*", build: ...}
//     refine:
//       name: commit
//       git: {repo: ..., range: "{good}..{bad}", build: ...}
//
// The finer listing's first and last versions stand for the coarse ends (a git `{good}..{bad}`
// range lists exactly those commits first and last): the finer level takes the coarse ends'
// configurations in their place, so their set-ups and trials are reused, not built or run again.
// docs/reference/bisect.md ("Two levels") is the reference.
#ifndef GPUHARNESS_BISECT_BISECT_LEVELS_H_
#define GPUHARNESS_BISECT_BISECT_LEVELS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/bisect/bisect_plan.h"
#include "harness/bisect/bisect_runner.h"
#include "harness/driver/matrix.h"
#include "nlohmann/json.hpp"

namespace gh {

// `versions.refine` as written: the finer axis's name and provider, checked before anything runs.
struct RefineSpec {
  std::string matrix_path;  // the file it was read from (errors name it)
  std::string matrix_dir;   // its absolute directory: {matrix_dir}
  YAML::Node node;          // versions.refine, from the matrix's one parse
  std::string name;         // the finer axis's name
  std::string provider;     // pip, git or container
};

// Reads and checks `versions.refine` of `matrix` (as loaded: the file is not read again).
// InvalidArgument naming file:line:col and the key when it is missing ("--refine: ... has no
// versions.refine"), has no single provider, or its provider does not name both {good} and {bad}
// (its range would not follow the coarse answer). The provider's own fields are checked by
// ReadRefineAxis with the ends filled in; CheckRefineSpec does that with --good/--bad and a
// listing that runs nothing.
absl::StatusOr<RefineSpec> ReadRefineSpec(const driver::Matrix& matrix);
absl::Status CheckRefineSpec(const RefineSpec& spec, const std::string& good, const std::string& bad);

// The finer version axis between the coarse answer's ends `good` and `bad` (labels): the provider
// of `versions.refine` with {good}, {bad} (and {matrix_dir}) filled in (quoted for the shell in
// its shell fields), listed by `list_runner`.
// InvalidArgument (at versions.refine) when the listing holds fewer than 2 versions: there is
// then no finer level between the ends.
absl::StatusOr<driver::MatrixAxis> ReadRefineAxis(const RefineSpec& spec, const std::string& good,
                                                  const std::string& bad,
                                                  const driver::ListCommandRunner& list_runner);

// The finer level's versions: `coarse_plan` with its version axis replaced by `axis`, planned as
// a sweep would plan it, for the cell `cell`; the first and the last version are then replaced by
// the coarse ends `first_end` and `last_end` (in version order: good first for a bug, bad first
// for a fix), their configs and settings hashes included, so their cached trials serve the
// finer level.
absl::StatusOr<BisectVersions> PlanRefinedVersions(const ProbePlan& coarse_plan, const LabelSet& cell,
                                                   driver::MatrixAxis axis, const BisectVersions& coarse,
                                                   int first_end, int last_end);

// One level's answer, for the summaries: "tag: first bad v1.3 (v1.2 good)", "commit between
// them: first bad abc1234 'planted change' (def5678 good)". `subject` ("" when unknown) is the
// first bad version's description, e.g. a commit's subject line.
struct LevelAnswer {
  std::string axis;
  bool found = false;
  std::string first_bad, last_good;  // labels (kFix: the last bad and the fix)
  BisectFind find = BisectFind::kBug;
  std::string subject;
  std::string message;  // what stopped a level that found nothing
  std::string report;   // where its summary.md is, relative to DIR ("summary.md", "refine/summary.md")
};
LevelAnswer MakeLevelAnswer(const std::string& axis, const BisectConfig& config, const BisectResult& result,
                            std::string report);

// The line naming every level's answer ("tag: first bad v1.3 (v1.2 good); commit between them: ...").
std::string LevelsLine(const std::vector<LevelAnswer>& levels);
// summary.md's section on the levels, and summary.json's "levels" list.
std::string LevelsMarkdown(const std::vector<LevelAnswer>& levels);
nlohmann::json LevelsJson(const std::vector<LevelAnswer>& levels);

// The subject line of the commit checked out at `src` (a git provider's worktree), "" when it is
// not a git worktree.
std::string CommitSubject(const std::string& src);

}  // namespace gh

#endif  // GPUHARNESS_BISECT_BISECT_LEVELS_H_
