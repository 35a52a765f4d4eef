#include "harness/bisect/repro_script.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "harness/bisect/repro_script_checks.h"
#include "harness/core/fingerprint.h"
#include "harness/core/name_rules.h"
#include "harness/core/shell_quote.h"
#include "harness/core/status_macros.h"

namespace gh {

namespace {

// A variable read from `json`'s "env": its name must be an environment variable name, its value one
// execve can pass.
absl::Status CheckEnvEntry(const StateJson& json, const std::string& name, const std::string& value) {
  absl::Status st = CheckEnvName(name);
  if (st.ok()) st = CheckEnvValue(value);
  return st.ok() ? st : json.ErrorAt(absl::StrCat("env.", name), st.message());
}

// The variables the job's own environment.json recorded in force (those a repro sets again,
// core/fingerprint.h), added beside the configuration's own, which win: a job that ran under
// the user's XLA_FLAGS or PYTHONPATH is reproduced under them. No environment.json: none.
absl::Status AddRecordedEnv(const std::string& out, std::map<std::string, std::string>& env) {
  const std::string path = out + "/environment.json";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return absl::OkStatus();
  absl::StatusOr<nlohmann::json> parsed = ParseStateFile(path);
  if (!parsed.ok()) return absl::InvalidArgumentError(parsed.status().message());
  const StateJson json(*parsed, path);
  GH_RETURN_IF_ERROR(json.ExpectObject());
  GH_ASSIGN_OR_RETURN(auto recorded, json.StringMapOrEmpty("env"));
  for (const auto& [name, value] : recorded) {
    if (!IsReproducedEnvVar(name)) continue;
    GH_RETURN_IF_ERROR(CheckEnvEntry(json, name, value));
    env.emplace(name, value);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ReproArm> ReproArmFromJobJson(const StateJson& job, const std::string& point) {
  GH_RETURN_IF_ERROR(job.ExpectObject());
  ReproArm arm;
  GH_ASSIGN_OR_RETURN(arm.argv, job.StringListOrEmpty("argv"));
  if (arm.argv.empty()) return job.ErrorAt("argv", "missing or empty");
  GH_ASSIGN_OR_RETURN(arm.env, job.StringMapOrEmpty("env"));
  for (const auto& [name, value] : arm.env) GH_RETURN_IF_ERROR(CheckEnvEntry(job, name, value));
  GH_ASSIGN_OR_RETURN(arm.cwd, job.StringOr("cwd", ""));
  GH_ASSIGN_OR_RETURN(arm.version, job.StringOr("version", ""));
  GH_ASSIGN_OR_RETURN(arm.version_dir, job.StringOr("version_dir", ""));
  GH_ASSIGN_OR_RETURN(arm.setup, job.StringOr("setup", ""));
  GH_ASSIGN_OR_RETURN(arm.out, job.StringOr("out", ""));
  if (arm.out.empty()) return arm;
  // A relative "out" is the job's, from its cwd.
  const std::string out = arm.out[0] == '/' || arm.cwd.empty() ? arm.out : absl::StrCat(arm.cwd, "/", arm.out);
  GH_RETURN_IF_ERROR(AddRecordedEnv(out, arm.env));
  if (!point.empty()) {
    GH_ASSIGN_OR_RETURN(arm.ranks, ReadReproRanks(out, point));
  }
  return arm;
}

std::vector<std::string> RetargetRunArgs(const std::vector<std::string>& argv, const std::string& out,
                                         const std::string& point) {
  std::vector<std::string> result;
  bool has_filter = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    // The job's run list (a sweep cell's or a continuation's) gives way to the one point.
    if (argv[i] == "--runs" && i + 1 < argv.size()) {
      ++i;
      continue;
    }
    if ((argv[i] == "--out" || argv[i] == "--filter") && i + 1 < argv.size()) {
      const bool is_out = argv[i] == "--out";
      has_filter = has_filter || !is_out;
      result.push_back(argv[i]);
      result.push_back(is_out ? out : point);
      ++i;
      continue;
    }
    result.push_back(argv[i]);
  }
  if (!has_filter) {
    for (size_t i = 0; i + 1 < result.size(); ++i) {
      if (result[i] == "--out") {
        result.insert(result.begin() + static_cast<std::ptrdiff_t>(i) + 2, {"--filter", point});
        break;
      }
    }
  }
  return result;
}

namespace {

constexpr char kOutMarker[] = "\x01OUT\x01";

std::string RenderCommand(const std::vector<std::string>& argv) {
  std::vector<std::string> words;
  for (const std::string& a : argv) {
    if (a.rfind(kOutMarker, 0) == 0) {
      words.push_back(absl::StrCat("\"$OUT/", a.substr(sizeof(kOutMarker) - 1), "$run_suffix\""));
    } else {
      words.push_back(ShellQuote(a));
    }
  }
  return absl::StrJoin(words, " ");
}

// The version's set-up, run again whenever its activation is incomplete: a directory left
// without its venv would otherwise run the system's programs in the version's name.
void AppendSetup(std::string& out, const ReproArm& arm) {
  if (arm.setup.empty() || arm.version_dir.empty()) return;
  std::string check = absl::StrCat("activation_incomplete ", ShellQuote(arm.version_dir));
  for (const std::string& path : ActivationPaths(arm)) absl::StrAppend(&check, " ", ShellQuote(path));
  const std::string version = ShellQuote(arm.version);
  absl::StrAppend(&out, ShellComment(absl::StrCat("Version ", arm.version, ": its set-up, again whenever ",
                                                 arm.version_dir, " lacks what its activation uses.")));
  absl::StrAppend(&out, "if why=$(", check, "); then\n",
                  "  echo \"version \"", version, "\": setting it up ($why)\" >&2\n",
                  "  mkdir -p ", ShellQuote(arm.version_dir), " && (cd ", ShellQuote(arm.version_dir),
                  " && GH_VERSION=", version, " GH_VERSION_DIR=", ShellQuote(arm.version_dir),
                  " /bin/sh -c ", ShellQuote(arm.setup), ") || { ",
                  ShellPrintLine(absl::StrCat("set-up of version ", arm.version, " failed")), " >&2; exit 3; }\n",
                  "  touch ", ShellQuote(arm.version_dir + "/.repro-setup-done"), "\n",
                  "  if why=$(", check, "); then\n",
                  "    echo \"set-up of version \"", version, "\" left its activation incomplete: $why\" >&2; exit 3\n",
                  "  fi\n",
                  "fi\n\n");
}

// A word with the recorded coordinator address replaced by the script's "$coordinator".
std::string WithCoordinator(const std::string& word, const std::string& coordinator) {
  if (coordinator.empty()) return ShellQuote(word);
  std::vector<std::string> parts = absl::StrSplit(word, coordinator);
  if (parts.size() == 1) return ShellQuote(word);
  std::vector<std::string> quoted;
  for (const std::string& part : parts) quoted.push_back(part.empty() ? "" : ShellQuote(part));
  return absl::StrJoin(quoted, "\"$coordinator\"");
}

void AppendArmEnv(std::string& out, const ReproArm& arm, const char* indent) {
  for (const auto& [name, value] : arm.env) {
    // Name and value quoted as one word: a name that is no identifier makes export fail, not run.
    absl::StrAppend(&out, indent, "export ", ShellQuote(absl::StrCat(name, "=", value)), "\n");
  }
}

// The gpuharness job as recorded, its records under "$OUT/<arm><run suffix>".
void AppendJobArm(std::string& out, const ReproArm& arm, const std::string& point) {
  std::vector<std::string> argv = RetargetRunArgs(arm.argv, absl::StrCat(kOutMarker, arm.name), point);
  absl::StrAppend(&out, arm.name, "_arm() {\n  (\n");
  if (!arm.cwd.empty()) absl::StrAppend(&out, "    cd ", ShellQuote(arm.cwd), " 2>/dev/null || cd /\n");
  AppendArmEnv(out, arm, "    ");
  absl::StrAppend(&out, "    exec ", RenderCommand(argv), "\n  )\n}\n\n");
}

// The user's own command on every rank, started here with a local coordinator; the arm fails
// when any rank does not exit as a passing command does.
void AppendRanksArm(std::string& out, const ReproArm& arm) {
  const int n = static_cast<int>(arm.ranks.size());
  absl::StrAppend(&out, arm.name, "_arm() {\n",
                  "  local dir=\"$OUT/", arm.name, "$run_suffix\" coordinator pids=() status=0 r s\n",
                  "  mkdir -p \"$dir\"\n", "  ", arm.name, "_logs=() ", arm.name, "_statuses=()\n",
                  "  coordinator=\"127.0.0.1:$(free_port)\"\n");
  for (int r = 0; r < n; ++r) {
    const ReproRank& rank = arm.ranks[r];
    absl::StrAppend(&out, "  (\n");
    if (!rank.workdir.empty()) absl::StrAppend(&out, "    cd ", ShellQuote(rank.workdir), " || exit 127\n");
    AppendArmEnv(out, arm, "    ");
    for (const auto& [name, value] : rank.env) {
      absl::StrAppend(&out, "    export ", WithCoordinator(absl::StrCat(name, "=", value), rank.coordinator), "\n");
    }
    std::vector<std::string> words;
    for (const std::string& a : rank.argv) words.push_back(WithCoordinator(a, rank.coordinator));
    absl::StrAppend(&out, "    exec ", absl::StrJoin(words, " "), "\n",
                    "  ) </dev/null >\"$dir/rank", r, ".log\" 2>&1 &\n  pids+=($!)\n");
  }
  std::vector<std::string> passing;
  for (const ReproRank& rank : arm.ranks) passing.push_back(absl::StrCat(rank.exit_status));
  absl::StrAppend(&out, "  local passing=(", absl::StrJoin(passing, " "), ")\n",
                  "  for r in \"${!pids[@]}\"; do\n",
                  "    wait \"${pids[$r]}\"; s=$?\n",
                  "    if [ \"$s\" -ne \"${passing[$r]}\" ]; then\n",
                  "      status=1\n",
                  "      ", arm.name, "_logs+=(\"$dir/rank$r.log\"); ", arm.name, "_statuses+=(\"$s\")\n",
                  "      echo \"-- rank $r of ", n, " exited $s; the last lines of $dir/rank$r.log:\"\n",
                  "      tail -n 20 \"$dir/rank$r.log\"\n",
                  "    fi\n",
                  "  done\n",
                  "  return $status\n}\n\n");
}

void AppendArm(std::string& out, const ReproArm& arm, const std::string& point) {
  absl::StrAppend(&out, ShellComment(absl::StrCat(arm.name, " arm: ", arm.title)));
  if (!arm.observed.empty()) absl::StrAppend(&out, ShellComment(absl::StrCat("recorded: ", arm.observed)));
  if (arm.ranks.empty()) {
    AppendJobArm(out, arm, point);
  } else {
    absl::StrAppend(&out, ShellComment(absl::StrCat("the user's command on each of ", arm.ranks.size(),
                                                   " processes, as the job ran it")));
    AppendRanksArm(out, arm);
  }
}

// "the bisect saw this fail 3 of 5 times", or "" when not known.
std::string Seen(const ReproArm& arm) {
  if (arm.seen_trials <= 0) return "";
  return absl::StrCat("the bisect saw this fail ", arm.seen_failed, " of ", arm.seen_trials,
                      arm.seen_trials == 1 ? " time" : " times");
}

// The failure the arm is expected to show, as recorded ("" when none is).
std::string Recorded(const ReproArm& arm) {
  return arm.family && !arm.family->example.empty() ? arm.family->example : arm.observed;
}

// Runs arm `name` $repeat times, counting its failed runs in <name>_failed; an arm expected to
// fail (`compare`) also counts in <name>_differently the runs that failed otherwise than recorded.
void AppendRunLoop(std::string& out, const ReproArm& arm, bool compare) {
  const std::string& f = arm.name;
  const std::string records = arm.ranks.empty() ? "records: $OUT/" + f + "$run_suffix/records.jsonl"
                                                : "output: $OUT/" + f + "$run_suffix/rank*.log";
  absl::StrAppend(&out, "run_", f, "() {\n  ", f, "_failed=0 ", f, "_differently=0 ", f, "_other=\"\"\n",
                  "  for run in $(seq 1 \"$repeat\"); do\n",
                  "    run_suffix=\"\"; [ \"$run\" -gt 1 ] && run_suffix=\".run$run\"\n",
                  "    ", ShellPrintLine(absl::StrCat("== ", f, " arm: ", arm.title)), "\n",
                  "    [ \"$repeat\" -gt 1 ] && echo \"   run $run of $repeat\"\n",
                  "    ", f, "_arm; ", f, "_status=$?\n",
                  "    echo \"   exit status $", f, "_status; ", records, "\"\n",
                  "    [ \"$", f, "_status\" -ne 0 ] && ", f, "_failed=$((", f, "_failed + 1))\n");
  if (compare) {
    absl::StrAppend(&out, "    if [ \"$", f, "_status\" -ne 0 ] && ! ", f, "_as_recorded; then\n",
                    "      ", f, "_differently=$((", f, "_differently + 1)) ", f, "_other=$", f, "_line\n",
                    "      echo \"   failed differently: $", f, "_line\"\n",
                    "    fi\n");
  }
  absl::StrAppend(&out, "  done\n",
                  "  echo \"", f, " arm: failed $", f, "_failed of $repeat runs\"\n");
  if (compare) {
    absl::StrAppend(&out, "  [ \"$", f, "_differently\" -gt 0 ] && echo \"   $", f,
                    "_differently of them failed differently (recorded: \"", ShellQuote(Recorded(arm)), "\")\"\n");
  }
  if (const std::string seen = Seen(arm); !seen.empty()) {
    absl::StrAppend(&out, "  ", ShellPrintLine(absl::StrCat("   ", seen)), "\n");
  }
  absl::StrAppend(&out, "  return 0\n}\n\n");
}

}  // namespace

std::string RenderReproScript(const std::string& point, const std::string& source,
                              const ReproArm& failing_in, const std::optional<ReproArm>& workaround_in,
                              bool failing_expected) {
  ReproArm failing = failing_in;
  failing.name = failing_expected || workaround_in ? "failing" : "passing";
  std::optional<ReproArm> workaround = workaround_in;
  if (workaround) workaround->name = "workaround";
  const std::string& f = failing.name;
  std::string out = "#!/usr/bin/env bash\n";
  absl::StrAppend(&out, ShellComment(absl::StrCat("Reproduces ", point, " without the gpuharness driver.")));
  absl::StrAppend(&out, ShellComment(absl::StrCat("Recorded in ", source, ".")));
  const std::string seen = Seen(failing);
  absl::StrAppend(&out, ShellComment(absl::StrCat("  ", f, " arm:    ", failing.title,
                                                  failing.observed.empty() ? "" : absl::StrCat(" -> ", failing.observed),
                                                  seen.empty() ? "" : absl::StrCat(" (", seen, ")"))));
  if (workaround) {
    absl::StrAppend(&out, ShellComment(absl::StrCat("  workaround arm: ", workaround->title,
                                                    workaround->observed.empty() ? "" : absl::StrCat(" -> ", workaround->observed))));
  }
  absl::StrAppend(&out, "# usage: ", "$0 [--repeat N] [--arm ", f, workaround ? "|workaround" : "", "]\n",
                  "# Each arm's output lands in $OUT/<arm>/ ($OUT/<arm>.run<k>/ for later runs); set GH_REPRO_OUT to\n"
                  "# choose $OUT. --repeat N runs each arm N times (for a flaky failure); --arm runs one arm alone.\n"
                  "# Exit status: 0 when the ", f, " arm ", f == "passing" ? "passes every run" : "fails at least once",
                  workaround ? " and the workaround arm passes every run" : "",
                  ", 1 otherwise, 2 for bad arguments, 3 when a set-up fails;\n"
                  "# with --arm, 1 when any run of that arm failed, else 0.\n");
  absl::StrAppend(&out, "set -u\n", "repeat=1 only=\"\"\n",
                  "while [ $# -gt 0 ]; do\n",
                  "  case \"$1\" in\n",
                  "    --repeat) repeat=\"${2:-}\"; shift 2 2>/dev/null || shift ;;\n",
                  "    --repeat=*) repeat=\"${1#--repeat=}\"; shift ;;\n",
                  "    --arm) only=\"${2:-}\"; shift 2 2>/dev/null || shift ;;\n",
                  "    --arm=*) only=\"${1#--arm=}\"; shift ;;\n",
                  "    *) echo \"usage: $0 [--repeat N] [--arm ", f, workaround ? "|workaround" : "",
                  "] (unknown argument '$1')\" >&2; exit 2 ;;\n",
                  "  esac\n",
                  "done\n",
                  "case \"$repeat\" in ''|*[!0-9]*|0) echo \"--repeat: expected a whole number >= 1, got '$repeat'\" >&2; exit 2 ;; esac\n",
                  "case \"$only\" in ''|", f, workaround ? "|workaround" : "",
                  ") ;; *) echo \"--arm: expected ", f, workaround ? " or workaround" : "",
                  ", got '$only'\" >&2; exit 2 ;; esac\n",
                  "OUT=\"${GH_REPRO_OUT:-$(mktemp -d \"${TMPDIR:-/tmp}/gh-repro.XXXXXX\")}\"\n",
                  "mkdir -p \"$OUT\"\n",
                  "run_suffix=\"\"\n",
                  "free_port() {\n",
                  "  python3 -c 'import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])' 2>/dev/null ||\n",
                  "    echo $((20000 + RANDOM % 20000))\n",
                  "}\n\n");
  absl::StrAppend(&out, ActivationCheckFunctions());
  AppendSetup(out, failing);
  if (workaround && (workaround->version_dir != failing.version_dir)) AppendSetup(out, *workaround);
  AppendArm(out, failing, point);
  if (workaround) AppendArm(out, *workaround, point);
  const bool compare = f == "failing";
  if (compare) absl::StrAppend(&out, FamilyCheckFunction(failing));
  AppendRunLoop(out, failing, compare);
  if (workaround) AppendRunLoop(out, *workaround, false);
  absl::StrAppend(&out, "if [ -n \"$only\" ]; then\n  \"run_$only\"\n",
                  "  failed_var=\"${only}_failed\"; [ \"${!failed_var}\" -eq 0 ]; exit $?\nfi\n");
  absl::StrAppend(&out, "run_", f, "\n");
  // A failing arm that only failed otherwise than recorded did not reproduce the failure.
  const std::string differently = absl::StrCat(
      "if [ \"$failing_failed\" -gt 0 ] && [ \"$failing_differently\" -eq \"$failing_failed\" ]; then\n",
      "  echo \"not reproduced: failed differently: $failing_other (recorded: \"", ShellQuote(Recorded(failing)),
      "\")\"; exit 1\n", "fi\n");
  if (workaround) {
    absl::StrAppend(&out, "run_workaround\n",
                    "if [ \"$((failing_failed - failing_differently))\" -gt 0 ] && [ \"$workaround_failed\" -eq 0 ]; then\n",
                    "  echo \"reproduced: the failing arm fails, the workaround arm passes\"; exit 0\n",
                    "fi\n", differently,
                    "echo \"not reproduced (failing arm: failed $failing_failed of $repeat, workaround arm: failed "
                    "$workaround_failed of $repeat)\"; exit 1\n");
  } else if (f == "passing") {
    absl::StrAppend(&out, "if [ \"$passing_failed\" -eq 0 ]; then echo \"as recorded: the arm passes\"; exit 0; fi\n",
                    "echo \"not as recorded: the arm failed $passing_failed of $repeat runs\"; exit 1\n");
  } else {
    absl::StrAppend(&out, "if [ \"$((failing_failed - failing_differently))\" -gt 0 ]; then echo \"reproduced: the failing arm fails\"; exit 0; fi\n",
                    differently, "echo \"not reproduced: the failing arm passed\"; exit 1\n");
  }
  return out;
}

}  // namespace gh
