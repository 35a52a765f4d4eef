#include "harness/bisect/repro_bundle.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "harness/bisect/repro_script.h"
#include "harness/core/file_util.h"
#include "harness/core/scenario_loader.h"
#include "harness/core/shell_quote.h"
#include "harness/core/status_macros.h"

namespace gh {

namespace {

namespace fs = std::filesystem;

// Stand-ins written into the arms and replaced in the rendered script: the bundle's directory
// and the gpuharness program. Control bytes: no recorded path or word holds them.
constexpr char kRoot[] = "\x01" "BUNDLE\x01";
constexpr char kProgram[] = "\x01" "GPUHARNESS\x01";
constexpr char kRunnerPath[] = "\x01" "PATH\x01";

// Places a bundle never carries: the system's programs and libraries.
bool IsSystemPath(const std::string& path) {
  for (const char* prefix : {"/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/etc/", "/opt/", "/proc/", "/dev/",
                             "/sys/"}) {
    if (absl::StartsWith(path, prefix)) return true;
  }
  return false;
}

bool IsUnder(const std::string& path, const std::string& dir) {
  return !dir.empty() && (path == dir || absl::StartsWith(path, dir + "/"));
}

// Path prefixes replaced in every word the script runs: a match must be a whole path or a
// leading part of one (followed by '/'), and start a word or follow a separator.
class PathRewrites {
 public:
  void Add(const std::string& from, const std::string& to) {
    if (!from.empty() && from != "/") rules_.emplace_back(from, to);
    std::sort(rules_.begin(), rules_.end(),
              [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  }
  std::string Apply(const std::string& text) const {
    std::string out;
    for (size_t i = 0; i < text.size();) {
      const bool starts = i == 0 || std::strchr(" :=;,'\"(", text[i - 1]) != nullptr;
      bool replaced = false;
      for (const auto& [from, to] : rules_) {
        if (!starts || text.compare(i, from.size(), from) != 0) continue;
        const size_t end = i + from.size();
        if (end < text.size() && std::strchr("/:;,'\" )", text[end]) == nullptr) continue;
        out += to;
        i = end;
        replaced = true;
        break;
      }
      if (!replaced) out += text[i++];
    }
    return out;
  }

 private:
  std::vector<std::pair<std::string, std::string>> rules_;
};

// What the bundle carries: each file's original (canonical) path -> its path in the bundle.
struct Carried {
  std::vector<std::string> scenario_dirs;      // canonical; the k-th is "scenario" / "scenario<k+1>"
  std::map<std::string, std::string> files;    // original -> relative to the bundle
  std::set<std::string> scenario_files;        // originals that are scenario files
  std::set<std::string> used_names;            // the bundle's paths, for unique names under files/

  std::string DirName(size_t k) const { return k == 0 ? "scenario" : absl::StrCat("scenario", k + 1); }

  // The bundle path of a scenario directory's file, or of another one under files/.
  std::string Place(const std::string& path) {
    if (auto it = files.find(path); it != files.end()) return it->second;
    std::string rel;
    for (size_t k = 0; k < scenario_dirs.size() && rel.empty(); ++k) {
      if (IsUnder(path, scenario_dirs[k])) rel = DirName(k) + path.substr(scenario_dirs[k].size());
    }
    if (rel.empty()) {
      const std::string base = fs::path(path).filename().string();
      rel = "files/" + base;
      for (int n = 2; used_names.count(rel) > 0; ++n) rel = absl::StrCat("files/", n, "-", base);
    }
    used_names.insert(rel);
    files[path] = rel;
    return rel;
  }
};

// The index of "run" in the recorded `gpuharness run` job's argv (the program is the word before
// it), nullopt when it has none.
std::optional<size_t> RunWord(const ReproArm& arm) {
  for (size_t i = 1; i < arm.argv.size(); ++i) {
    if (arm.argv[i] == "run") return i;
  }
  return std::nullopt;
}

// The scenario files a job's argv names that define `point` (every one, when none says so).
absl::StatusOr<std::vector<std::string>> ScenarioFilesOf(const ReproArm& arm, size_t run, const std::string& point) {
  std::vector<std::string> all, defining;
  for (size_t i = run + 1; i < arm.argv.size() && !absl::StartsWith(arm.argv[i], "--"); ++i) {
    all.push_back(arm.argv[i]);
  }
  const std::string scenario = point.substr(0, point.find('/'));
  for (const std::string& file : all) {
    absl::StatusOr<std::vector<ScenarioSpec>> specs = LoadScenarioFile(file);
    if (!specs.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("the scenario file the recorded job ran: ",
                                                     specs.status().message()));
    }
    for (const ScenarioSpec& spec : *specs) {
      if (spec.name == scenario) {
        defining.push_back(file);
        break;
      }
    }
  }
  return defining.empty() ? all : defining;
}

// The files the exec command of each rank names (a word, or the value of --flag=VALUE), that
// exist, and that are neither the system's nor under DIR (a version's set-up makes those again).
std::vector<std::string> ProgramFiles(const std::vector<ReproRank>& ranks, const std::string& results_dir) {
  std::vector<std::string> found;
  for (const ReproRank& rank : ranks) {
    for (const std::string& word : rank.argv) {
      for (std::string candidate : {word, word.substr(word.find('=') + 1)}) {
        if (candidate.empty()) continue;
        if (candidate[0] != '/') candidate = rank.workdir + "/" + candidate;
        std::error_code ec;
        if (!fs::is_regular_file(candidate, ec)) continue;
        const std::string path = CanonicalPath(candidate);
        if (IsSystemPath(path) || IsUnder(path, results_dir)) continue;
        found.push_back(path);
      }
    }
  }
  return found;
}

// The files a version's set-up command names by an absolute path (a script beside the matrix):
// the bundle runs the set-up again, so it carries them.
std::vector<std::string> SetupFiles(const ReproArm& arm, const std::string& results_dir) {
  ReproRank words;
  for (absl::string_view word : absl::StrSplit(arm.setup, absl::ByAnyChar(" \t\n;'\"|&()<>"), absl::SkipEmpty())) {
    if (word[0] == '/') words.argv.emplace_back(word);
  }
  return ProgramFiles({words}, results_dir);
}

void RewriteArm(ReproArm& arm, const PathRewrites& rewrites) {
  for (std::string& word : arm.argv) word = rewrites.Apply(word);
  for (auto& [name, value] : arm.env) value = rewrites.Apply(value);
  arm.setup = rewrites.Apply(arm.setup);
  arm.version_dir = rewrites.Apply(arm.version_dir);
  arm.observed = rewrites.Apply(arm.observed);
  for (ReproRank& rank : arm.ranks) {
    for (std::string& word : rank.argv) word = rewrites.Apply(word);
    for (auto& [name, value] : rank.env) value = rewrites.Apply(value);
    rank.workdir = rewrites.Apply(rank.workdir);
  }
}

// PATH as the configuration set it holds the reporter's own PATH after what it prepended: the
// bundle keeps the places it carries (a version's bin/) and then uses the runner's PATH.
void KeepOwnPath(ReproArm& arm) {
  auto rebase = [](std::string& value) {
    std::vector<std::string> kept;
    for (absl::string_view entry : absl::StrSplit(value, ':', absl::SkipEmpty())) {
      if (absl::StartsWith(entry, kRoot)) kept.emplace_back(entry);
    }
    kept.push_back(kRunnerPath);
    value = absl::StrJoin(kept, ":");
  };
  if (auto it = arm.env.find("PATH"); it != arm.env.end()) rebase(it->second);
  for (ReproRank& rank : arm.ranks) {
    for (auto& [name, value] : rank.env) {
      if (name == "PATH") rebase(value);
    }
  }
}

// The arm's `gpuharness run` with the bundle's program and scenario copies (scenario files that
// do not define the point left out), run from the bundle's directory.
void RetargetJobArm(ReproArm& arm, size_t run, const std::map<std::string, std::string>& scenario_places) {
  std::vector<std::string> argv(arm.argv.begin(), arm.argv.begin() + static_cast<std::ptrdiff_t>(run) - 1);
  argv.insert(argv.end(), {kProgram, "run"});
  size_t i = run + 1;
  for (; i < arm.argv.size() && !absl::StartsWith(arm.argv[i], "--"); ++i) {
    if (auto it = scenario_places.find(CanonicalPath(arm.argv[i])); it != scenario_places.end()) {
      argv.push_back(absl::StrCat(kRoot, "/", it->second));
    }
  }
  argv.insert(argv.end(), arm.argv.begin() + static_cast<std::ptrdiff_t>(i), arm.argv.end());
  arm.argv = std::move(argv);
  arm.cwd = kRoot;
}

// The rendered script made to run from its bundle: it finds its directory and gpuharness
// first, and every stand-in becomes the shell variable that holds it.
std::string BundleScript(std::string script, const std::vector<std::string>& contents, bool runs_gpuharness) {
  std::string preamble = absl::StrCat(
      "# A bundle: ", absl::StrJoin(contents, ", "), ".\n",
      "# It runs from any directory, on any machine with the programs its command uses", runs_gpuharness ?
      " and gpuharness\n# (on PATH, or set GPUHARNESS=/path/to/gpuharness)" : "", ".\n",
      "here=$(cd \"$(dirname \"$0\")\" && pwd -P) || exit 3\n",
      "cd \"$here\" || exit 3\n");
  if (runs_gpuharness) {
    absl::StrAppend(&preamble,
                    "GPUHARNESS=\"${GPUHARNESS:-$(command -v gpuharness)}\"\n",
                    "if [ -z \"$GPUHARNESS\" ] || [ ! -x \"$GPUHARNESS\" ]; then\n",
                    "  echo \"$0: gpuharness not found: put it on PATH or set GPUHARNESS=/path/to/gpuharness\" >&2\n",
                    "  exit 3\n",
                    "fi\n");
  }
  const size_t at = script.find("set -u\n");
  script.insert(at == std::string::npos ? 0 : at, preamble);
  // In a single-quoted word, 'x<stand-in>y' becomes 'x'"$here"'y'; in a comment, a name.
  return absl::StrReplaceAll(script, {{kRoot, "'\"$here\"'"},
                                      {kProgram, "'\"$GPUHARNESS\"'"},
                                      {kRunnerPath, "'\"$PATH\"'"},
                                      {"\\x01BUNDLE\\x01", "<bundle>"},
                                      {"\\x01GPUHARNESS\\x01", "gpuharness"}});
}

absl::Status CopyInto(const std::string& from, const std::string& to, const std::string& contents) {
  GH_RETURN_IF_ERROR(MakeDirectories(DirectoryOf(to)));
  GH_RETURN_IF_ERROR(WriteFileAtomically(to, contents));
  struct stat st {};
  if (::stat(from.c_str(), &st) == 0) ::chmod(to.c_str(), st.st_mode & 07777);
  return absl::OkStatus();
}

// Writes the bundle beside `target` and renames it into place when whole (`target` is absent
// or an empty directory): a failure leaves nothing half-written.
absl::Status WriteBundleDirectory(const std::string& target, const std::string& script, const Carried& carried,
                                  const PathRewrites& scenario_text) {
  std::error_code ec;
  std::string staging = absl::StrCat(target, ".partial.XXXXXX");
  GH_RETURN_IF_ERROR(MakeDirectories(DirectoryOf(target)));
  if (::mkdtemp(staging.data()) == nullptr) {
    return absl::UnavailableError(absl::StrCat(target, ": cannot create a directory beside it: ", std::strerror(errno)));
  }
  auto written = [&]() -> absl::Status {
    GH_RETURN_IF_ERROR(WriteFileAtomically(staging + "/run.sh", script));
    ::chmod((staging + "/run.sh").c_str(), 0755);
    for (const auto& [from, to] : carried.files) {
      GH_ASSIGN_OR_RETURN(std::string text, ReadFileToString(from));
      if (carried.scenario_files.count(from) > 0) text = scenario_text.Apply(text);
      GH_RETURN_IF_ERROR(CopyInto(from, staging + "/" + to, text));
    }
    if (fs::exists(target, ec)) fs::remove(target, ec);
    fs::rename(staging, target, ec);
    if (ec) return absl::UnavailableError(absl::StrCat(target, ": ", ec.message()));
    return absl::OkStatus();
  }();
  if (!written.ok()) fs::remove_all(staging, ec);
  return written;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> WriteReproBundle(const std::string& dir, const std::string& point,
                                                          const ReproArms& arms, const std::string& out_dir) {
  std::error_code ec;
  if (fs::exists(out_dir, ec) && !(fs::is_directory(out_dir, ec) && fs::is_empty(out_dir, ec))) {
    return absl::InvalidArgumentError(absl::StrCat("--bundle: ", out_dir, " exists and is not an empty directory"));
  }
  const std::string results_dir = CanonicalPath(dir);
  std::vector<ReproArm*> all;
  ReproArm failing = arms.failing;
  std::optional<ReproArm> workaround = arms.workaround;
  all.push_back(&failing);
  if (workaround) all.push_back(&*workaround);

  Carried carried;
  std::map<std::string, std::string> scenario_places;  // canonical scenario file -> bundle path
  std::vector<std::string> program_files;
  bool runs_gpuharness = false;
  for (ReproArm* arm : all) {
    std::vector<ReproRank> ranks = arm->ranks;
    if (std::optional<size_t> run = RunWord(*arm)) {
      runs_gpuharness = runs_gpuharness || arm->ranks.empty();
      GH_ASSIGN_OR_RETURN(std::vector<std::string> files, ScenarioFilesOf(*arm, *run, point));
      for (const std::string& f : files) {
        const std::string path = CanonicalPath(f);
        const std::string scenario_dir = DirectoryOf(path);
        if (std::find(carried.scenario_dirs.begin(), carried.scenario_dirs.end(), scenario_dir) ==
            carried.scenario_dirs.end()) {
          carried.scenario_dirs.push_back(scenario_dir);
        }
        carried.scenario_files.insert(path);
      }
      // The exec command the job's ranks ran, as they recorded it.
      if (ranks.empty()) {
        const std::string out = arm->out.empty() || arm->out[0] == '/' ? arm->out : arm->cwd + "/" + arm->out;
        GH_ASSIGN_OR_RETURN(ranks, ReadReproRanks(out, point));
      }
    }
    for (const std::string& f : ProgramFiles(ranks, results_dir)) program_files.push_back(f);
    for (const std::string& f : SetupFiles(*arm, results_dir)) program_files.push_back(f);
  }
  for (const std::string& f : carried.scenario_files) scenario_places[f] = carried.Place(f);
  for (const std::string& f : program_files) carried.Place(f);

  // Every recorded place the script uses, as the bundle's; the scenario copies name the files
  // carried outside their directory through {dir}.
  PathRewrites script_paths, scenario_text;
  for (const auto& [from, to] : carried.files) {
    script_paths.Add(from, absl::StrCat(kRoot, "/", to));
    scenario_text.Add(from, absl::StartsWith(to, "files/") ? "{dir}/../" + to : "{dir}" + to.substr(to.find('/')));
  }
  for (size_t k = 0; k < carried.scenario_dirs.size(); ++k) {
    script_paths.Add(carried.scenario_dirs[k], absl::StrCat(kRoot, "/", carried.DirName(k)));
    scenario_text.Add(carried.scenario_dirs[k], "{dir}");
  }
  for (ReproArm* arm : all) {
    if (!arm->version_dir.empty()) {
      const std::string to = absl::StrCat(kRoot, "/versions/", fs::path(arm->version_dir).filename().string());
      script_paths.Add(arm->version_dir, to);
      script_paths.Add(CanonicalPath(arm->version_dir), to);
    }
  }
  for (ReproArm* arm : all) {
    std::optional<size_t> run = RunWord(*arm);
    if (run && arm->ranks.empty()) RetargetJobArm(*arm, *run, scenario_places);
    RewriteArm(*arm, script_paths);
    KeepOwnPath(*arm);
  }

  std::vector<std::string> contents = {"run.sh"};
  for (const auto& [from, to] : carried.files) contents.push_back(to);
  std::sort(contents.begin() + 1, contents.end());
  const std::string source = absl::StrReplaceAll(arms.source, {{dir, fs::path(results_dir).filename().string()}});
  const std::string script =
      BundleScript(RenderReproScript(point, source, failing, workaround), contents, runs_gpuharness);

  GH_RETURN_IF_ERROR(WriteBundleDirectory(AbsolutePath(out_dir), script, carried, scenario_text));
  return contents;
}

}  // namespace gh
