#include "harness/bisect/repro_script.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/core/name_rules.h"
#include "harness/core/shell_quote.h"
#include "harness/core/status_macros.h"

namespace gh {

absl::StatusOr<ReproArm> ReproArmFromJobJson(const StateJson& job) {
  GH_RETURN_IF_ERROR(job.ExpectObject());
  ReproArm arm;
  GH_ASSIGN_OR_RETURN(arm.argv, job.StringListOrEmpty("argv"));
  if (arm.argv.empty()) return job.ErrorAt("argv", "missing or empty");
  GH_ASSIGN_OR_RETURN(arm.env, job.StringMapOrEmpty("env"));
  for (const auto& [name, value] : arm.env) {
    absl::Status st = CheckEnvName(name);
    if (st.ok()) st = CheckEnvValue(value);
    if (!st.ok()) return job.ErrorAt(absl::StrCat("env.", name), st.message());
  }
  GH_ASSIGN_OR_RETURN(arm.cwd, job.StringOr("cwd", ""));
  GH_ASSIGN_OR_RETURN(arm.version, job.StringOr("version", ""));
  GH_ASSIGN_OR_RETURN(arm.version_dir, job.StringOr("version_dir", ""));
  GH_ASSIGN_OR_RETURN(arm.setup, job.StringOr("setup", ""));
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
      words.push_back(absl::StrCat("\"$OUT/", a.substr(sizeof(kOutMarker) - 1), "\""));
    } else {
      words.push_back(ShellQuote(a));
    }
  }
  return absl::StrJoin(words, " ");
}

void AppendSetup(std::string& out, const ReproArm& arm) {
  if (arm.setup.empty() || arm.version_dir.empty()) return;
  absl::StrAppend(&out, ShellComment(absl::StrCat("Version ", arm.version, ": its set-up, once (skipped when ",
                                                 arm.version_dir, " exists).")));
  absl::StrAppend(&out, "if [ ! -d ", ShellQuote(arm.version_dir), " ]; then\n",
                  "  mkdir -p ", ShellQuote(arm.version_dir), " && (cd ", ShellQuote(arm.version_dir),
                  " && GH_VERSION=", ShellQuote(arm.version), " GH_VERSION_DIR=", ShellQuote(arm.version_dir),
                  " /bin/sh -c ", ShellQuote(arm.setup), ") || { ",
                  ShellPrintLine(absl::StrCat("set-up of version ", arm.version, " failed")), " >&2; exit 3; }\n",
                  "fi\n\n");
}

void AppendArm(std::string& out, const ReproArm& arm, const std::string& point) {
  std::vector<std::string> argv = RetargetRunArgs(arm.argv, absl::StrCat(kOutMarker, arm.name), point);
  absl::StrAppend(&out, ShellComment(absl::StrCat(arm.name, " arm: ", arm.title)));
  if (!arm.observed.empty()) absl::StrAppend(&out, ShellComment(absl::StrCat("recorded: ", arm.observed)));
  absl::StrAppend(&out, arm.name, "_arm() {\n  (\n");
  if (!arm.cwd.empty()) absl::StrAppend(&out, "    cd ", ShellQuote(arm.cwd), " 2>/dev/null || cd /\n");
  for (const auto& [name, value] : arm.env) {
    // Name and value quoted as one word: a name that is no identifier makes export fail, not run.
    absl::StrAppend(&out, "    export ", ShellQuote(absl::StrCat(name, "=", value)), "\n");
  }
  absl::StrAppend(&out, "    exec ", RenderCommand(argv), "\n  )\n}\n\n");
}

}  // namespace

std::string RenderReproScript(const std::string& point, const std::string& source,
                              const ReproArm& failing_in, const std::optional<ReproArm>& workaround_in,
                              bool failing_expected) {
  ReproArm failing = failing_in;
  failing.name = failing_expected || workaround_in ? "failing" : "passing";
  std::optional<ReproArm> workaround = workaround_in;
  if (workaround) workaround->name = "workaround";
  std::string out = "#!/usr/bin/env bash\n";
  absl::StrAppend(&out, ShellComment(absl::StrCat("Reproduces ", point, " without the gpuharness driver.")));
  absl::StrAppend(&out, ShellComment(absl::StrCat("Recorded in ", source, ".")));
  absl::StrAppend(&out, ShellComment(absl::StrCat("  ", failing.name, " arm:    ", failing.title,
                                                  failing.observed.empty() ? "" : absl::StrCat(" -> ", failing.observed))));
  if (workaround) {
    absl::StrAppend(&out, ShellComment(absl::StrCat("  workaround arm: ", workaround->title,
                                                    workaround->observed.empty() ? "" : absl::StrCat(" -> ", workaround->observed))));
  }
  absl::StrAppend(&out,
                  "# Each arm's records land in $OUT/<arm>/records.jsonl; set GH_REPRO_OUT to choose $OUT.\n"
                  "# Exit status: 0 when the ", failing.name, " arm ", failing.name == "passing" ? "passes" : "fails",
                  workaround ? " and the workaround arm passes" : "", ", 1 otherwise, 3 when a set-up fails.\n");
  absl::StrAppend(&out, "set -u\n",
                  "OUT=\"${GH_REPRO_OUT:-$(mktemp -d \"${TMPDIR:-/tmp}/gh-repro.XXXXXX\")}\"\n",
                  "mkdir -p \"$OUT\"\n\n");
  AppendSetup(out, failing);
  if (workaround && (workaround->version_dir != failing.version_dir)) AppendSetup(out, *workaround);
  AppendArm(out, failing, point);
  if (workaround) AppendArm(out, *workaround, point);
  const std::string& f = failing.name;
  absl::StrAppend(&out, ShellPrintLine(absl::StrCat("== ", f, " arm: ", failing.title)), "\n", f, "_arm; ", f,
                  "_status=$?\n",
                  "echo \"   exit status $", f, "_status; records: $OUT/", f, "/records.jsonl\"\n");
  if (workaround) {
    absl::StrAppend(&out, ShellPrintLine(absl::StrCat("== workaround arm: ", workaround->title)),
                    "\nworkaround_arm; workaround_status=$?\n",
                    "echo \"   exit status $workaround_status; records: $OUT/workaround/records.jsonl\"\n",
                    "if [ \"$failing_status\" -ne 0 ] && [ \"$workaround_status\" -eq 0 ]; then\n",
                    "  echo \"reproduced: the failing arm fails, the workaround arm passes\"; exit 0\n",
                    "fi\n",
                    "echo \"not reproduced (failing arm: $failing_status, workaround arm: $workaround_status)\"; exit 1\n");
  } else if (f == "passing") {
    absl::StrAppend(&out, "if [ \"$passing_status\" -eq 0 ]; then echo \"as recorded: the arm passes\"; exit 0; fi\n",
                    "echo \"not as recorded: the arm failed (exit status $passing_status)\"; exit 1\n");
  } else {
    absl::StrAppend(&out, "if [ \"$failing_status\" -ne 0 ]; then echo \"reproduced: the failing arm fails\"; exit 0; fi\n",
                    "echo \"not reproduced: the failing arm passed\"; exit 1\n");
  }
  return out;
}

}  // namespace gh
