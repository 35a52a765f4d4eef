#include "harness/bisect/bisect_summary_report.h"

#include <sys/utsname.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "harness/bisect/bisect_summary.h"
#include "harness/bisect/repro_script_ranks.h"
#include "harness/core/child_process.h"
#include "harness/core/file_util.h"
#include "harness/core/records_file.h"
#include "harness/core/shell_quote.h"
#include "nlohmann/json.hpp"

namespace gh {

namespace {

namespace fs = std::filesystem;

std::optional<nlohmann::json> ReadJson(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFileToString(path);
  if (!text.ok()) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

std::string JsonString(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

// The trial that shows what its version did: the first showing the hunted failure (any failure
// when the hunt is unknown), or the first passing one.
const TrialResult* ShowingTrialOf(const ProbeRecord* probe, const Hunt* hunt, bool failing) {
  if (probe == nullptr) return nullptr;
  for (const TrialResult& t : probe->trials) {
    if (t.unrunnable()) continue;
    if (!failing) {
      if (t.outcome == Outcome::kPass) return &t;
      continue;
    }
    const bool failed = t.outcome != Outcome::kPass && t.outcome != Outcome::kSkip;
    if (failed && (hunt == nullptr || hunt->Classify(t) == Hunt::TrialClass::kHunted)) return &t;
  }
  return nullptr;
}

const ProbeRecord* ProbeOf(const BisectResult& result, int version) {
  for (const ProbeRecord& p : result.probes) {
    if (p.version == version) return &p;
  }
  return nullptr;
}

// One side of the answer, with what its decisive run left behind.
struct Side {
  std::string role;  // "first bad", "last good", ...
  const ProbeRecord* probe = nullptr;
  const TrialResult* trial = nullptr;
  nlohmann::json job;  // job.json
  std::string out;     // the job's output directory
};

Side MakeSide(const BisectResult& result, const Hunt* hunt, int version, bool failing, std::string role) {
  Side side;
  side.role = std::move(role);
  side.probe = ProbeOf(result, version);
  side.trial = ShowingTrialOf(side.probe, hunt, failing);
  if (side.trial == nullptr) return side;
  side.job = ReadJson(side.trial->detail + "/job.json").value_or(nlohmann::json::object());
  side.out = JsonString(side.job, "out");
  if (!side.out.empty() && side.out[0] != '/') side.out = absl::StrCat(JsonString(side.job, "cwd"), "/", side.out);
  return side;
}

std::string PlainFailure(Outcome outcome) {
  static constexpr std::pair<Outcome, std::string_view> kPlain[] = {
      {Outcome::kFail, "a wrong result"},
      {Outcome::kError, "an error"},
      {Outcome::kCrash, "a crash"},
      {Outcome::kTimeout, "a hang (it ran past its time limit)"}};
  for (const auto& [plain, words] : kPlain) {
    if (plain == outcome) return std::string(words);
  }
  return std::string(OutcomeName(outcome));
}

// "failed 2 of 2 runs", "passed 3 of 3 runs".
std::string Runs(const ProbeRecord* probe) {
  if (probe == nullptr) return "";
  const ProbeTally& t = probe->tally;
  const int failed = t.hunted + t.others;
  return failed > 0 ? absl::StrCat("failed ", failed, " of ", t.trials, t.trials == 1 ? " run" : " runs")
                    : absl::StrCat("passed ", t.passes, " of ", t.trials, t.trials == 1 ? " run" : " runs");
}

std::string Quoted(const std::string& text) { return absl::StrCat("`", absl::StrReplaceAll(text, {{"`", "'"}}), "`"); }

// The launcher's words before the gpuharness program (absolute programs by their names).
std::vector<std::string> LauncherWords(const std::vector<std::string>& argv, bool& through_harness) {
  std::vector<std::string> words;
  through_harness = false;
  for (const std::string& a : argv) {
    const std::string name = fs::path(a).filename().string();
    if (name == "gpuharness") {
      through_harness = true;
      break;
    }
    words.push_back(!a.empty() && a[0] == '/' && fs::exists(a) && !fs::is_directory(a) ? name : a);
  }
  return words;
}

std::string CommandSection(const Side& bad, const PathPlaceholders& places) {
  std::string md = "## The command\n\n";
  if (bad.trial == nullptr) return md + "Not recorded.\n\n";
  std::vector<std::string> argv;
  if (bad.job.contains("argv") && bad.job["argv"].is_array()) {
    for (const auto& a : bad.job["argv"]) argv.push_back(a.is_string() ? a.get<std::string>() : a.dump());
  }
  absl::StatusOr<std::vector<ReproRank>> ranks = ReadReproRanks(bad.out, bad.trial->point);
  std::vector<std::string> vars;
  if (bad.job.contains("env") && bad.job["env"].is_object()) {
    const nlohmann::json& env = bad.job["env"];
    for (auto it = env.begin(); it != env.end(); ++it) {
      if (it.value().is_string()) vars.push_back(absl::StrCat(it.key(), "=", it.value().get<std::string>()));
    }
  }
  if (ranks.ok() && !ranks->empty()) {
    bool through_harness = false;
    const std::vector<std::string> launcher = LauncherWords(argv, through_harness);
    absl::StrAppend(&md, ranks->size(), ranks->size() == 1 ? " process" : " processes",
                    launcher.empty() ? "" : absl::StrCat(", started by ", Quoted(WithoutMachinePaths(
                                                                                ShellQuoteJoin(launcher), places))),
                    "; each ran its own command line (the coordinator is the local address the processes "
                    "agreed on):\n\n");
    for (size_t r = 0; r < ranks->size(); ++r) {
      std::string line = ShellQuoteJoin((*ranks)[r].argv);
      absl::StrAppend(&md, "    # process ", r, "\n    ", WithoutMachinePaths(line, places), "\n");
    }
    for (const auto& [name, value] : (*ranks)[0].env) vars.push_back(absl::StrCat(name, "=", value));
    const std::string dir = (*ranks)[0].workdir;
    if (!dir.empty()) absl::StrAppend(&md, "\nIn ", Quoted(WithoutMachinePaths(dir, places)), ".\n");
  } else {
    absl::StrAppend(&md, "    ", WithoutMachinePaths(ShellQuoteJoin(argv), places), "\n");
  }
  if (!vars.empty()) {
    std::vector<std::string> quoted;
    for (const std::string& v : vars) quoted.push_back(Quoted(WithoutMachinePaths(v, places)));
    absl::StrAppend(&md, "\nWith ", absl::StrJoin(quoted, ", "), ".\n");
  }
  return md + "\n";
}

std::string OutputSection(const Side& bad, const PathPlaceholders& places) {
  std::string md = "## Output of the failing processes\n\n";
  if (bad.trial == nullptr) return md + "Not recorded.\n\n";
  absl::StatusOr<RecordsFileContents> records = ReadRecordsFile(bad.trial->detail + "/records.jsonl");
  int shown = 0;
  if (records.ok()) {
    for (const Record& record : records->records) {
      if (record.point != bad.trial->point) continue;
      for (const RankOutcome& rank : record.result.ranks) {
        if (rank.outcome == Outcome::kPass || rank.outcome == Outcome::kSkip) continue;
        ++shown;
        absl::StrAppend(&md, "Process ", rank.rank, ": ", std::string(OutcomeName(rank.outcome)), ", ",
                        Quoted(WithoutMachinePaths(rank.signature, places)), "\n\n");
        if (!rank.output_tail.empty()) {
          absl::StrAppend(&md, "~~~~\n", WithoutMachinePaths(rank.output_tail, places),
                          absl::EndsWith(rank.output_tail, "\n") ? "" : "\n", "~~~~\n\n");
        }
      }
      break;
    }
  }
  if (shown == 0) {
    absl::StrAppend(&md, "No process output was recorded; the failure: ",
                    Quoted(WithoutMachinePaths(bad.trial->signature, places)), ".\n\n");
  }
  return md;
}

std::string OsName() {
  std::string os;
  struct utsname u;
  if (::uname(&u) == 0) os = absl::StrCat(u.sysname, " ", u.release, " ", u.machine);
  absl::StatusOr<std::string> release = ReadFileToString("/etc/os-release");
  if (release.ok()) {
    for (absl::string_view line : absl::StrSplit(*release, '\n')) {
      if (absl::ConsumePrefix(&line, "PRETTY_NAME=")) {
        absl::StrAppend(&os, " (", absl::StripSuffix(absl::StripPrefix(line, "\""), "\""), ")");
      }
    }
  }
  return os;
}

std::string VersionDirOf(const Side& side) { return JsonString(side.job, "version_dir"); }

// Python of the version's venv (pyvenv.cfg), else the one on PATH.
std::string PythonVersion(const std::vector<const Side*>& sides) {
  for (const Side* side : sides) {
    absl::StatusOr<std::string> cfg = ReadFileToString(VersionDirOf(*side) + "/venv/pyvenv.cfg");
    if (!cfg.ok()) continue;
    for (absl::string_view line : absl::StrSplit(*cfg, '\n')) {
      if (absl::ConsumePrefix(&line, "version = ") || absl::ConsumePrefix(&line, "version_info = ")) {
        return absl::StrCat("Python ", line, " (the versions' venvs)");
      }
    }
  }
  return CommandFirstLine({"python3", "--version"});
}

// "; checked: `jax 0.7.0`" from the version's provenance.json (driver/version_provenance.h), the
// packages its set-up pinned as the job found them installed; "" when the set-up pinned none.
std::string CheckedAgainstLabel(const std::string& version_dir) {
  const nlohmann::json p = ReadJson(version_dir + "/provenance.json").value_or(nlohmann::json::object());
  if (!p.contains("installed") || !p["installed"].is_object() || p["installed"].empty()) return "";
  std::vector<std::string> checked;
  for (const auto& [name, version] : p["installed"].items()) {
    checked.push_back(version.is_string() ? absl::StrCat(name, " ", version.get<std::string>())
                                          : absl::StrCat(name, " not installed"));
  }
  const bool ok = p.value("ok", false);
  return absl::StrCat("; checked against the label: ", Quoted(absl::StrJoin(checked, ", ")), ok ? "" : " (wrong)");
}

// "; image `sha256:...`" from provenance.json's observations that no pin checks (a container's
// image digest); "" when there are none.
std::string ObservedOnly(const std::string& version_dir) {
  const nlohmann::json p = ReadJson(version_dir + "/provenance.json").value_or(nlohmann::json::object());
  if (!p.contains("observed") || !p["observed"].is_object()) return "";
  std::string out;
  for (const auto& [name, value] : p["observed"].items()) {
    if (p.contains("asked") && p["asked"].is_object() && p["asked"].contains(name)) continue;
    if (value.is_string()) absl::StrAppend(&out, "; ", name, " ", Quoted(value.get<std::string>()));
  }
  return out;
}

// "; ran NCCL 2.30.3, CUDA 13.0" from the arm's environment.json (the cuda backend's runtime
// libraries as the job loaded them); "" on the host backend.
std::string RuntimeLibrariesOf(const Side& side) {
  const nlohmann::json env = ReadJson(side.out + "/environment.json").value_or(nlohmann::json::object());
  std::vector<std::string> ran;
  if (const std::string nccl = JsonString(env, "nccl_runtime"); !nccl.empty()) ran.push_back("NCCL " + nccl);
  if (const std::string cuda = JsonString(env, "cuda_runtime"); !cuda.empty()) ran.push_back("CUDA " + cuda);
  return ran.empty() ? "" : absl::StrCat("; ran ", absl::StrJoin(ran, ", "));
}

// Its venv's packages (as pip freeze lists them), its git commit, or its set-up.
std::string WhatTheVersionIs(const Side& side, const PathPlaceholders& places) {
  const std::string dir = VersionDirOf(side);
  std::error_code ec;
  std::vector<std::string> packages;
  for (const fs::directory_entry& lib : fs::directory_iterator(dir + "/venv/lib", ec)) {
    std::error_code ec2;
    for (const fs::directory_entry& e : fs::directory_iterator(lib.path() / "site-packages", ec2)) {
      std::string name = e.path().filename().string();
      if (!absl::EndsWith(name, ".dist-info")) continue;
      name.resize(name.size() - std::string(".dist-info").size());
      const size_t dash = name.find('-');
      if (dash == std::string::npos) continue;
      const std::string package = name.substr(0, dash);
      if (package == "pip" || package == "setuptools" || package == "wheel") continue;  // as pip freeze
      packages.push_back(absl::StrCat(package, "==", name.substr(dash + 1)));
    }
  }
  if (!packages.empty()) {
    std::sort(packages.begin(), packages.end());
    return absl::StrCat("pip freeze: ", Quoted(absl::StrJoin(packages, " ")), CheckedAgainstLabel(dir));
  }
  if (fs::exists(dir + "/src/.git", ec)) {
    const std::string commit = CommandFirstLine({"git", "-C", dir + "/src", "rev-parse", "HEAD"});
    if (!commit.empty()) return absl::StrCat("git commit ", Quoted(commit), CheckedAgainstLabel(dir));
  }
  const std::string setup = JsonString(side.job, "setup");
  return setup.empty() ? "no set-up" : absl::StrCat("set up by ", Quoted(WithoutMachinePaths(setup, places)));
}

// What a version is: its venv's packages (as pip freeze lists them), its git commit, or its set-up;
// then what its provenance check found, and the runtime libraries the job loaded.
std::string PackagesOf(const Side& side, const PathPlaceholders& places) {
  return absl::StrCat(WhatTheVersionIs(side, places), ObservedOnly(VersionDirOf(side)), RuntimeLibrariesOf(side));
}

std::string EnvironmentSection(const BisectConfig& config, const BisectContext& context, const Side& bad,
                               const Side& good, const PathPlaceholders& places) {
  const nlohmann::json env = ReadJson(bad.out + "/environment.json").value_or(nlohmann::json::object());
  auto row = [&](const std::string& name, const std::string& value) {
    return absl::StrCat("| ", name, " | ", absl::StrReplaceAll(WithoutMachinePaths(value.empty() ? "-" : value, places),
                                                               {{"|", "\\|"}, {"\n", " "}}), " |\n");
  };
  std::string gpus;
  if (env.contains("gpus") && env["gpus"].is_array()) {
    std::vector<std::string> names;
    for (const auto& g : env["gpus"]) names.push_back(JsonString(g, "name"));
    gpus = absl::StrJoin(names, ", ");
  }
  if (gpus.empty()) gpus = absl::StrCat("none used (", JsonString(env, "backend"), " backend)");
  std::string nccl = JsonString(env, "nccl_runtime");
  if (const std::string compiled = JsonString(env, "nccl_compiled"); !compiled.empty()) {
    absl::StrAppend(&nccl, nccl.empty() ? "" : " ", "(gpuharness built against ", compiled, ")");
  }
  std::string cuda = JsonString(env, "cuda_runtime");
  if (const std::string api = JsonString(env, "cuda_driver_api"); !api.empty()) {
    absl::StrAppend(&cuda, cuda.empty() ? "" : " ", "(driver API ", api, ")");
  }
  std::string md = "## Environment\n\n| | |\n|---|---|\n";
  absl::StrAppend(&md, row("Python", PythonVersion({&bad, &good})), row("OS", OsName()),
                  row("CPU", JsonString(env, "cpu_model")), row("GPU", gpus),
                  row("Driver", JsonString(env, "driver_version")), row("CUDA", cuda),
                  row("MPI", JsonString(env, "mpi_library")), row("NCCL", nccl));
  for (const Side* side : {&bad, &good}) {
    if (side->probe == nullptr) continue;
    absl::StrAppend(&md, row(absl::StrCat(context.version_axis, " ", side->probe->label, " (", side->role, ")"),
                             PackagesOf(*side, places)));
  }
  (void)config;
  return md + "\n";
}

}  // namespace

PathPlaceholders BugReportPlaceholders(const BisectContext& context) {
  PathPlaceholders places;
  if (!context.out_dir.empty()) places.emplace_back(CanonicalPath(context.out_dir), "<DIR>");
  if (!context.matrix.empty()) places.emplace_back(fs::path(CanonicalPath(context.matrix)).parent_path().string(), "<matrix_dir>");
  for (absl::string_view file : absl::StrSplit(context.scenario, ' ', absl::SkipEmpty())) {
    places.emplace_back(fs::path(CanonicalPath(std::string(file))).parent_path().string(), "<scenario_dir>");
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && std::string(home).size() > 1) {
    places.emplace_back(CanonicalPath(home), "~");
  }
  // The directory as given too, when it differs (a path through a symlink).
  if (!context.out_dir.empty() && context.out_dir[0] == '/' && context.out_dir != CanonicalPath(context.out_dir)) {
    places.emplace_back(context.out_dir, "<DIR>");
  }
  std::stable_sort(places.begin(), places.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  places.erase(std::remove_if(places.begin(), places.end(), [](const auto& p) { return p.first.size() <= 1; }),
               places.end());
  return places;
}

std::string WithoutMachinePaths(const std::string& text, const PathPlaceholders& places) {
  std::string out = text;
  for (const auto& [path, placeholder] : places) out = absl::StrReplaceAll(out, {{path, placeholder}});
  return out;
}

std::string RenderBugReport(const BisectConfig& config, const BisectResult& result, const BisectContext& context) {
  const PathPlaceholders places = BugReportPlaceholders(context);
  const std::string axis = context.version_axis;
  if (result.status != BisectStatus::kFound) {
    return absl::StrCat("# No answer over ", axis, "\n\n", WithoutMachinePaths(result.message, places), "\n\n");
  }
  const bool fix = result.find == BisectFind::kFix;
  const absl::StatusOr<Hunt> hunt = HuntOf(result, config.hunt.other_as_bad);
  const Hunt* hunted = hunt.ok() ? &*hunt : nullptr;
  const Side bad = MakeSide(result, hunted, result.answer.first_bad, true, fix ? "last bad" : "first bad");
  const Side good = MakeSide(result, hunted, result.answer.last_good, false, fix ? "first good, the fix" : "last good");
  const std::string bad_label = config.versions[result.answer.first_bad];
  const std::string good_label = config.versions[result.answer.last_good];
  // The failing line as printed (never the regex hunted): the bad end's, else the first bad's.
  std::string line = result.hunt_example;
  if (line.empty() && bad.trial != nullptr) line = std::string(WithoutRankList(bad.trial->signature));
  const std::string failure = WithoutMachinePaths(line.empty() ? result.hunt_signature : line, places);
  std::string md;
  if (fix) {
    absl::StrAppend(&md, "# ", Quoted(failure), " is fixed in ", axis, " ", good_label, "\n\n");
  } else {
    absl::StrAppend(&md, "# ", Quoted(failure), " since ", axis, " ", bad_label, "\n\n");
  }
  absl::StrAppend(&md, "## What broke\n\n");
  if (fix) {
    absl::StrAppend(&md, "- First good (the fix): ", Quoted(good_label), " (", Runs(good.probe), ")\n",
                    "- Last bad: ", Quoted(bad_label), " (", Runs(bad.probe), ")\n");
  } else {
    absl::StrAppend(&md, "- First bad: ", Quoted(bad_label), " (", Runs(bad.probe), ")\n", "- Last good: ",
                    Quoted(good_label), " (", Runs(good.probe), ")\n");
  }
  // A boundary version that words the failure otherwise is still the failure: say so.
  if (const std::string reworded = bad.probe && hunted ? RewordedLine(*bad.probe, *hunted) : "";
      !reworded.empty()) {
    absl::StrAppend(&md, "- ", Quoted(bad_label), " failed with a reworded message: ",
                    Quoted(WithoutMachinePaths(reworded, places)), "\n");
  }
  const std::vector<UnclassifiedVersion> between = UnclassifiedBetween(result);
  const auto quote = [&](const std::string& text) { return Quoted(WithoutMachinePaths(text, places)); };
  if (const std::string list = UnclassifiedList(config, between, true, quote); !list.empty()) {
    absl::StrAppend(&md, "- Failed differently between them: ", list, "\n");
  }
  if (const std::string list = UnclassifiedList(config, between, false, quote); !list.empty()) {
    absl::StrAppend(&md, "- Could not be tested between them: ", list, "\n");
  }
  absl::StrAppend(&md, "- The failure: ", PlainFailure(result.hunt_outcome), ", ", Quoted(failure), "\n\n");
  absl::StrAppend(&md, CommandSection(bad, places), OutputSection(bad, places),
                  EnvironmentSection(config, context, bad, good, places));
  if (!context.repro_scripts.empty()) {
    absl::StrAppend(&md, "## Reproduce\n\n");
    for (const std::string& script : context.repro_scripts) {
      absl::StrAppend(&md, "    <DIR>/", script, " [--repeat N] [--arm NAME]\n");
    }
    absl::StrAppend(&md, "\nEach runs from anywhere; `--repeat N` runs each version N times (for a flaky "
                         "failure), `--arm` one version alone.\n\n");
  }
  return md;
}

}  // namespace gh
