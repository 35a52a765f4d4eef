#include "harness/driver/version_provider.h"
#include "harness/driver/version_provenance.h"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "harness/core/stable_hash.h"
#include "harness/core/expectation_conditions.h"
#include "harness/core/name_rules.h"
#include "harness/core/shell_quote.h"
#include "harness/core/status_macros.h"
#include "harness/driver/cell_plan.h"

namespace gh::driver {
namespace {

// Where a version's pieces live, as the set-up (cwd = the version's directory) and the
// activation ({version_dir}, resolved per job) name them.
constexpr char kSrc[] = "\"$GH_VERSION_DIR/src\"";
constexpr char kPrefix[] = "\"$GH_VERSION_DIR/prefix\"";

std::vector<std::string> Lines(absl::string_view text) {
  std::vector<std::string> out;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipWhitespace())) {
    out.emplace_back(absl::StripAsciiWhitespace(line));
  }
  return out;
}

// What every field of a provider is read with: the matrix's absolute directory ({matrix_dir}),
// the placeholders a refine level fills ({good}, {bad}), and the listing commands' runner.
struct ProviderInput {
  const std::string& dir;
  const Placeholders& values;
  const ListCommandRunner& runner;
  // Text fields: the values as they are. Shell fields (build, tags_command): through
  // ShellSubstitute, so a hostile value runs nothing.
  std::string Text(std::string text) const {
    for (const auto& [key, value] : values) text = absl::StrReplaceAll(text, {{key, value}});
    return absl::StrReplaceAll(text, {{"{matrix_dir}", dir}});
  }
  std::string Shell(const std::string& text) const {
    Placeholders all = values;
    all.emplace_back("{matrix_dir}", dir);
    return ShellSubstitute(text, all);
  }
};

// Runs a listing command; its failure is reported at `key` of the provider.
absl::StatusOr<std::string> List(YamlMap& map, const std::string& key, const std::string& command,
                                 const ProviderInput& in) {
  absl::StatusOr<std::string> out = in.runner(VersionListCommand{command, in.dir, kDefaultListTimeout});
  if (absl::IsCancelled(out.status())) return out.status();
  if (!out.ok()) return YamlError(map.LocOfKey(key), map.Path(key), absl::StrCat("listing failed: ", out.status().message()));
  return out;
}

std::string PipName(absl::string_view name) {
  std::string out;
  for (char c : name) out.push_back(c == '-' || c == '.' ? '_' : static_cast<char>(std::tolower(c)));
  return out;
}

// Every label once, each a valid label; `loc`/`path` for the error.
absl::Status AddLabels(const std::vector<std::string>& labels, const SourceLoc& loc, const std::string& path,
                       const std::function<CellSettings(const std::string&)>& settings, MatrixAxis* axis) {
  if (labels.empty()) return YamlError(loc, path, "lists no versions");
  for (const std::string& label : labels) {
    if (absl::Status st = CheckLabel(label); !st.ok()) {
      return YamlError(loc, path, absl::StrCat("bad version '", PrintableText(label), "': ", st.message()));
    }
    axis->values.push_back(AxisValue{label, loc, settings(label)});
  }
  return absl::OkStatus();
}

// A provider field's string (or list of strings) with its placeholders resolved as text; a shell
// field's through ShellSubstitute.
absl::StatusOr<std::string> Field(YamlMap& map, const std::string& key, bool required, const ProviderInput& in) {
  GH_ASSIGN_OR_RETURN(std::string text, map.String(key, required));
  return in.Text(text);
}
absl::StatusOr<std::vector<std::string>> Fields(YamlMap& map, const std::string& key, const ProviderInput& in) {
  GH_ASSIGN_OR_RETURN(std::vector<std::string> list, map.StringList(key));
  for (std::string& text : list) text = in.Text(text);
  return list;
}
absl::StatusOr<std::string> ShellField(YamlMap& map, const std::string& key, const ProviderInput& in) {
  GH_ASSIGN_OR_RETURN(std::string text, map.String(key, false));
  return in.Shell(text);
}

// A path as the set-up (which runs in the version's directory) can use: relative ones resolve
// against the matrix's directory; URLs (`https://`, `git@host:`) stay as written.
std::string PathOrUrl(const std::string& text, const std::string& dir) {
  if (text.empty() || text[0] == '/' || text[0] == '~' || absl::StrContains(text, ":")) return text;
  return absl::StrCat(dir, "/", text);
}

// ---- pip ----

absl::Status ReadPip(YamlMap& versions, const ProviderInput& in, MatrixAxis* axis) {
  const std::string& dir = in.dir;
  GH_ASSIGN_OR_RETURN(YamlMap pip, YamlMap::Of(versions.doc(), versions.Child("pip"), versions.Path("pip"),
                                              {"requirements", "index", "wheelhouse", "range", "versions",
                                               "python", "cache"}));
  GH_ASSIGN_OR_RETURN(std::string requirements, Field(pip, "requirements", true, in));
  if (!absl::StrContains(requirements, "{version}")) {
    return pip.Error("requirements", "must contain {version} (e.g. \"jax=={version} jaxlib=={version}\")");
  }
  GH_ASSIGN_OR_RETURN(std::string index, Field(pip, "index", false, in));
  GH_ASSIGN_OR_RETURN(std::string wheelhouse, Field(pip, "wheelhouse", false, in));
  GH_ASSIGN_OR_RETURN(std::string range, Field(pip, "range", false, in));
  GH_ASSIGN_OR_RETURN(std::vector<std::string> explicit_versions, Fields(pip, "versions", in));
  GH_ASSIGN_OR_RETURN(std::string python, Field(pip, "python", false, in));
  GH_ASSIGN_OR_RETURN(std::string cache, Field(pip, "cache", false, in));
  if (python.empty()) python = "python3";
  wheelhouse = PathOrUrl(wheelhouse, dir);
  cache = PathOrUrl(cache, dir);
  const bool listed = !explicit_versions.empty();
  if (listed == !index.empty()) {
    return YamlError(pip.Loc(), pip.key_path(), "needs exactly one of `versions` (a list) or `index` (a package name)");
  }
  if (!range.empty()) {
    if (absl::StatusOr<std::vector<RangeClause>> r = ParseRange(range); !r.ok()) return pip.Error("range", r.status().message());
  }
  GH_RETURN_IF_ERROR(pip.Finish());
  std::vector<std::string> found = explicit_versions;
  if (!listed) {
    const std::string key = wheelhouse.empty() ? "index" : "wheelhouse";
    const std::string command = wheelhouse.empty()
        ? absl::StrCat(ShellQuote(python), " -m pip index versions --disable-pip-version-check ", ShellQuote(index))
        : absl::StrCat("ls -1 ", ShellQuote(wheelhouse));
    GH_ASSIGN_OR_RETURN(std::string out, List(pip, key, command, in));
    found = wheelhouse.empty() ? ParsePipIndexVersions(out) : ParseWheelhouseVersions(out, index);
    GH_ASSIGN_OR_RETURN(found, FilterVersionRange(found, range));
    if (found.empty()) {
      return pip.Error(key, absl::StrCat("no version of ", index, range.empty() ? "" : " in ", range));
    }
  }
  auto settings = [&](const std::string& version) {
    CellSettings s;
    std::vector<std::string> reqs, raw;
    for (absl::string_view r : absl::StrSplit(absl::StrReplaceAll(requirements, {{"{version}", version}}), ' ', absl::SkipWhitespace())) {
      reqs.push_back(ShellQuote(r));
      raw.emplace_back(r);
    }
    // What the set-up asks for, checked against what it installs (driver/version_provenance.h).
    const std::string pins = ProvenancePins(raw);
    const std::string cache_dir = cache.empty() ? "\"$HOME/.cache/gpuharness-pip\"" : ShellQuote(cache);
    s.setup = absl::StrCat(
        "set -e\nexport PIP_CACHE_DIR=", cache_dir, " PIP_DISABLE_PIP_VERSION_CHECK=1\n",
        pins.empty() ? std::string("rm -f provenance.expected\n")
                     : absl::StrCat("printf '%s' ", ShellQuote(pins), " > provenance.expected\n"),
        "rm -rf venv\n", ShellQuote(python), " -m venv venv\n",
        "venv/bin/python -m pip install --no-input ",
        wheelhouse.empty() ? "" : absl::StrCat("--find-links ", ShellQuote(wheelhouse), " "),
        absl::StrJoin(reqs, " "), "\n");
    s.env_prepend["PATH"] = "{version_dir}/venv/bin";
    s.env["VIRTUAL_ENV"] = "{version_dir}/venv";
    return s;
  };
  return AddLabels(found, pip.Loc(), pip.key_path(), settings, axis);
}

// ---- git ----

absl::StatusOr<std::vector<std::string>> GitRevisions(YamlMap& git, const std::string& repo, const std::string& tags,
                                                      const std::string& range, const ProviderInput& in) {
  std::vector<std::string> labels;
  if (!tags.empty()) {
    GH_ASSIGN_OR_RETURN(std::string out, List(git, "tags", absl::StrCat("git ls-remote --tags --refs ", ShellQuote(repo)), in));
    for (const std::string& line : Lines(out)) {
      size_t at = line.find("refs/tags/");
      if (at == std::string::npos) continue;
      std::string tag = line.substr(at + 10);
      // Globs separated by `|` (v2.2[89].*-1|v2.30.*-1): a tag matching any of them.
      for (absl::string_view glob : absl::StrSplit(tags, '|', absl::SkipEmpty())) {
        if (fnmatch(std::string(glob).c_str(), tag.c_str(), 0) == 0) {
          labels.push_back(tag);
          break;
        }
      }
    }
    std::sort(labels.begin(), labels.end(), [](const std::string& a, const std::string& b) { return NaturalLess(a, b); });
    return labels;
  }
  const size_t dots = range.find("..");
  if (dots == std::string::npos || dots == 0 || dots + 2 >= range.size() || range.find("...") != std::string::npos) {
    return git.Error("range", absl::StrCat("expected OLD..NEW (two revisions), got '", range, "'"));
  }
  const std::string from = range.substr(0, dots), to = range.substr(dots + 2);
  const std::string command = absl::StrCat("git -C ", ShellQuote(repo), " rev-parse --verify ", ShellQuote(from + "^{commit}"),
                                           " && git -C ", ShellQuote(repo), " rev-list --first-parent --reverse ",
                                           ShellQuote(range));
  GH_ASSIGN_OR_RETURN(std::string out, List(git, "range", command, in));
  for (const std::string& line : Lines(out)) labels.push_back(line.substr(0, 12));
  return labels;
}

absl::Status ReadGit(YamlMap& versions, const ProviderInput& in, MatrixAxis* axis) {
  const std::string& dir = in.dir;
  GH_ASSIGN_OR_RETURN(YamlMap git, YamlMap::Of(versions.doc(), versions.Child("git"), versions.Path("git"),
                                              {"repo", "tags", "range", "revisions", "build"}));
  GH_ASSIGN_OR_RETURN(std::string repo, Field(git, "repo", true, in));
  repo = PathOrUrl(repo, dir);
  GH_ASSIGN_OR_RETURN(std::string tags, Field(git, "tags", false, in));
  GH_ASSIGN_OR_RETURN(std::string range, Field(git, "range", false, in));
  GH_ASSIGN_OR_RETURN(std::vector<std::string> revisions, Fields(git, "revisions", in));
  GH_ASSIGN_OR_RETURN(std::string build, ShellField(git, "build", in));
  if ((!tags.empty()) + (!range.empty()) + (!revisions.empty()) != 1) {
    return YamlError(git.Loc(), git.key_path(), "needs exactly one of `tags` (a pattern), `range` (OLD..NEW) or `revisions` (a list)");
  }
  GH_RETURN_IF_ERROR(git.Finish());
  std::vector<std::string> labels = revisions;
  if (labels.empty()) {
    GH_ASSIGN_OR_RETURN(labels, GitRevisions(git, repo, tags, range, in));
  }
  // One mirror of the repository per results directory, shared by the versions' worktrees.
  const std::string mirror = absl::StrCat("\"$GH_VERSION_DIR/../.git-", StableHash(repo), "\"");
  auto settings = [&](const std::string& revision) {
    CellSettings s;
    // The revision is a value (a tag may hold anything): quoted for where it stands; {src} and
    // {prefix} are the harness's own words for the version's directories.
    const std::string build_command =
        absl::StrReplaceAll(ShellSubstitute(build, {{"{version}", revision}}), {{"{src}", kSrc}, {"{prefix}", kPrefix}});
    s.setup = absl::StrCat(
        "set -e\nmirror=", mirror, "\n",
        "(\n  flock 9\n",
        "  if [ ! -d \"$mirror\" ]; then rm -rf \"$mirror.tmp\"; git clone --quiet --mirror ", ShellQuote(repo),
        " \"$mirror.tmp\"; mv \"$mirror.tmp\" \"$mirror\";\n",
        "  elif ! git -C \"$mirror\" rev-parse --verify --quiet ", ShellQuote(revision + "^{commit}"),
        " >/dev/null; then git -C \"$mirror\" fetch --quiet --prune origin; fi\n",
        "  rm -rf src; git -C \"$mirror\" worktree prune\n",
        "  git -C \"$mirror\" worktree add --quiet --detach \"$PWD/src\" ", ShellQuote(revision), "\n",
        ") 9>\"$mirror.lock\"\n",
        // What the label names, checked against what the build leaves checked out.
        GitProvenanceResolveLine("\"$mirror\"", ShellQuote(revision)),
        "rm -rf prefix && mkdir -p prefix\n",
        "if command -v ccache >/dev/null 2>&1; then export CMAKE_C_COMPILER_LAUNCHER=ccache "
        "CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR=\"$GH_VERSION_DIR/src\"; fi\n",
        build_command.empty() ? "" : absl::StrCat("cd src\n", build_command, "\n"),
        GitProvenanceObserveLine());
    s.env_prepend["PATH"] = "{version_dir}/prefix/bin";
    s.env_prepend["LD_LIBRARY_PATH"] = "{version_dir}/prefix/lib";
    s.env_prepend["PYTHONPATH"] = "{version_dir}/prefix/python";
    return s;
  };
  return AddLabels(labels, git.Loc(), git.key_path(), settings, axis);
}

// ---- container ----

absl::StatusOr<std::vector<std::string>> ContainerPrefix(YamlMap& c, const std::string& runtime,
                                                         const std::vector<std::string>& mounts) {
  std::vector<std::string> prefix;
  if (runtime == "docker" || runtime == "podman") {
    prefix = {runtime, "run", "--rm", "--network=host", "--ipc=host", "-v", "{version_dir}:{version_dir}"};
    for (const std::string& m : mounts) prefix.insert(prefix.end(), {"-v", absl::StrCat(m, ":", m)});
  } else if (runtime == "apptainer") {
    prefix = {"apptainer", "exec", "--bind", "{version_dir}"};
    for (const std::string& m : mounts) prefix.insert(prefix.end(), {"--bind", m});
  } else if (runtime == "enroot") {
    prefix = {"enroot", "start", "--mount", "{version_dir}:{version_dir}"};
    for (const std::string& m : mounts) prefix.insert(prefix.end(), {"--mount", absl::StrCat(m, ":", m)});
  } else {
    return c.Error("runtime", absl::StrCat("expected docker, podman, apptainer or enroot, got '", runtime, "'"));
  }
  return prefix;
}

absl::Status ReadContainer(YamlMap& versions, const ProviderInput& in, MatrixAxis* axis) {
  const std::string& dir = in.dir;
  GH_ASSIGN_OR_RETURN(YamlMap c, YamlMap::Of(versions.doc(), versions.Child("container"), versions.Path("container"),
                                            {"runtime", "images", "image", "tags", "tags_command", "mounts"}));
  GH_ASSIGN_OR_RETURN(std::string runtime, Field(c, "runtime", true, in));
  GH_ASSIGN_OR_RETURN(std::string images, Field(c, "images", false, in));
  GH_ASSIGN_OR_RETURN(std::string image, Field(c, "image", false, in));
  GH_ASSIGN_OR_RETURN(std::vector<std::string> tags, Fields(c, "tags", in));
  GH_ASSIGN_OR_RETURN(std::string tags_command, ShellField(c, "tags_command", in));
  GH_ASSIGN_OR_RETURN(std::vector<std::string> mounts, Fields(c, "mounts", in));
  GH_ASSIGN_OR_RETURN(std::vector<std::string> prefix, ContainerPrefix(c, runtime, mounts));
  if ((!images.empty()) + (!tags.empty()) + (!tags_command.empty()) != 1) {
    return YamlError(c.Loc(), c.key_path(),
                     "needs exactly one of `images` (a directory of images), `tags` (a list) or `tags_command`");
  }
  if (images.empty() == image.empty() ) {
    return YamlError(c.Loc(), c.key_path(),
                     images.empty() ? "`tags`/`tags_command` need `image` (e.g. \"nvcr.io/nvidia/jax:{version}\")"
                                    : "`images` (a directory) takes no `image`");
  }
  GH_RETURN_IF_ERROR(c.Finish());
  const std::string suffix = runtime == "apptainer" ? ".sif" : ".sqsh";
  std::vector<std::string> labels = tags;
  if (!images.empty()) {
    GH_ASSIGN_OR_RETURN(std::string out, List(c, "images", absl::StrCat("ls -1 ", ShellQuote(images)), in));
    for (const std::string& name : Lines(out)) {
      if (absl::EndsWith(name, suffix)) labels.push_back(name.substr(0, name.size() - suffix.size()));
    }
    std::sort(labels.begin(), labels.end(), [](const std::string& a, const std::string& b) { return NaturalLess(a, b); });
  } else if (!tags_command.empty()) {
    GH_ASSIGN_OR_RETURN(std::string out, List(c, "tags_command", tags_command, in));
    labels = Lines(out);
  }
  const std::string images_dir = PathOrUrl(images, dir);
  auto settings = [&](const std::string& tag) {
    CellSettings s;
    const std::string ref = images.empty() ? absl::StrReplaceAll(image, {{"{version}", tag}})
                                           : absl::StrCat(images_dir, "/", tag, suffix);
    // Each set-up ends by recording the digest of the image the cells will run (version_provenance.h).
    if (!images.empty()) {
      s.setup = absl::StrCat("set -e\ntest -r ", ShellQuote(ref), " || { ", ShellPrintLine("error: no image " + ref),
                             "; exit 1; }\n", ImageProvenanceObserveLine(ShellQuote(ref)));
    } else if (runtime == "docker" || runtime == "podman") {
      s.setup = absl::StrCat("set -e\n", runtime, " pull ", ShellQuote(ref), "\n",
                             PulledImageProvenanceObserveLine(runtime, ShellQuote(ref)));
    } else {  // enroot, apptainer: a local image file made once in the version's directory
      const std::string file = runtime == "enroot" ? "image.sqsh" : "image.sif";
      s.setup = absl::StrCat("set -e\nrm -f ", file, "\n",
                             runtime == "enroot" ? "enroot import -o image.sqsh " : "apptainer pull image.sif ",
                             ShellQuote("docker://" + ref), "\n", ImageProvenanceObserveLine(file));
    }
    const std::string activated = !images.empty() || runtime == "docker" || runtime == "podman"
        ? ref : absl::StrCat("{version_dir}/image", suffix);
    s.launcher_prefix = prefix;
    s.launcher_prefix.push_back(activated);
    return s;
  };
  return AddLabels(labels, c.Loc(), c.key_path(), settings, axis);
}

}  // namespace

const std::vector<std::string>& VersionProviderKeys() {
  static const std::vector<std::string> keys = {"pip", "git", "container"};
  return keys;
}

absl::Status ReadVersionProvider(YamlMap& versions, const std::string& key, const std::string& dir,
                                 const ListCommandRunner& list_runner, MatrixAxis* axis,
                                 const Placeholders& placeholders) {
  const ProviderInput in{dir, placeholders, list_runner};
  if (key == "pip") return ReadPip(versions, in, axis);
  if (key == "git") return ReadGit(versions, in, axis);
  return ReadContainer(versions, in, axis);
}

std::vector<std::string> ParsePipIndexVersions(absl::string_view output) {
  std::vector<std::string> out;
  for (const std::string& line : Lines(output)) {
    constexpr std::string_view kHead = "Available versions:";
    if (!absl::StartsWith(line, "Available versions:")) continue;
    for (absl::string_view v : absl::StrSplit(line.substr(kHead.size()), ',', absl::SkipWhitespace())) {
      out.emplace_back(absl::StripAsciiWhitespace(v));
    }
  }
  return out;
}

std::vector<std::string> ParseWheelhouseVersions(absl::string_view listing, absl::string_view package) {
  std::vector<std::string> out;
  const std::string want = PipName(package);
  for (const std::string& name : Lines(listing)) {
    if (!absl::EndsWith(name, ".whl")) continue;
    std::vector<std::string> parts = absl::StrSplit(name, '-');
    if (parts.size() >= 3 && PipName(parts[0]) == want) out.push_back(parts[1]);
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> FilterVersionRange(const std::vector<std::string>& versions,
                                                            absl::string_view range) {
  std::vector<RangeClause> clauses;
  if (!range.empty()) {
    GH_ASSIGN_OR_RETURN(clauses, ParseRange(std::string_view(range.data(), range.size())));
  }
  std::vector<std::pair<std::vector<int64_t>, std::string>> kept;
  std::set<std::string> seen;
  for (const std::string& v : versions) {
    absl::StatusOr<std::vector<int64_t>> number = ParseDottedNumber(v);
    if (!number.ok() || !InRange(v, clauses) || !seen.insert(v).second) continue;
    kept.emplace_back(*number, v);
  }
  std::sort(kept.begin(), kept.end());
  std::vector<std::string> out;
  for (auto& [n, v] : kept) out.push_back(v);
  return out;
}

bool NaturalLess(absl::string_view a, absl::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t i2 = i, j2 = j;
      while (i2 < a.size() && std::isdigit(static_cast<unsigned char>(a[i2]))) ++i2;
      while (j2 < b.size() && std::isdigit(static_cast<unsigned char>(b[j2]))) ++j2;
      absl::string_view x = a.substr(i, i2 - i), y = b.substr(j, j2 - j);
      while (x.size() > 1 && x[0] == '0') x.remove_prefix(1);
      while (y.size() > 1 && y[0] == '0') y.remove_prefix(1);
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = i2;
      j = j2;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

}  // namespace gh::driver
