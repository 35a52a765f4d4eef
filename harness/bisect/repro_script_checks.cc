#include "harness/bisect/repro_script_checks.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "harness/core/shell_quote.h"

namespace gh {

namespace {

// `text` as an ERE matching it literally.
std::string EreLiteral(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::string_view("\\.[]()*+?{}|^$").find(c) != std::string_view::npos) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

// The user's source line of a "<file>: <source line>" place ("" for a step or "<file>:<line> in f").
std::string WhereSource(const FailureFamily& family) {
  if (absl::StartsWith(family.where, "step ")) return "";
  const size_t colon = family.where.find(": ");
  return colon == std::string::npos ? "" : family.where.substr(colon + 2);
}

void AddPathsOf(const std::string& value, const std::string& dir, std::vector<std::string>& paths) {
  for (absl::string_view part : absl::StrSplit(value, ':', absl::SkipEmpty())) {
    if (part == dir || absl::StartsWith(part, dir + "/")) paths.emplace_back(part);
  }
}

}  // namespace

std::vector<std::string> ActivationPaths(const ReproArm& arm) {
  std::vector<std::string> paths;
  if (arm.version_dir.empty()) return paths;
  for (const auto& [name, value] : arm.env) AddPathsOf(value, arm.version_dir, paths);
  for (const ReproRank& rank : arm.ranks) {
    for (const auto& [name, value] : rank.env) AddPathsOf(value, arm.version_dir, paths);
    if (!rank.argv.empty()) AddPathsOf(rank.argv[0], arm.version_dir, paths);
  }
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  return paths;
}

std::string FamilyLineRegex(const FailureFamily& family) {
  if (family.message.empty()) return family.type.empty() ? "" : EreLiteral(family.type);
  std::string message;
  // What NormalizeFailureMessage folded may be anything; its single spaces were runs of spaces.
  for (size_t i = 0; i < family.message.size();) {
    bool folded = false;
    for (std::string_view token : {"<addr>", "<path>", "<id>", "<ver>", "<n>"}) {
      if (std::string_view(family.message).substr(i, token.size()) == token) {
        absl::StrAppend(&message, ".*");
        i += token.size();
        folded = true;
        break;
      }
    }
    if (folded) continue;
    absl::StrAppend(&message, family.message[i] == ' ' ? "[[:space:]]+" : EreLiteral(family.message.substr(i, 1)));
    ++i;
  }
  return family.type.empty() ? message : absl::StrCat(EreLiteral(family.type), ":[[:space:]]*", message);
}

std::string ActivationCheckFunctions() {
  return "activation_incomplete() {\n"
         "  local dir=$1 p; shift\n"
         "  [ -d \"$dir\" ] || { echo \"$dir is missing\"; return 0; }\n"
         "  [ -e \"$dir/setup.json\" ] || [ -e \"$dir/.repro-setup-done\" ] ||\n"
         "    { echo \"its set-up never finished in $dir (no setup.json)\"; return 0; }\n"
         "  for p in \"$@\"; do [ -e \"$p\" ] || { echo \"$p is missing\"; return 0; }; done\n"
         "  return 1\n"
         "}\n\n";
}

std::string FamilyCheckFunction(const ReproArm& arm) {
  const std::string& a = arm.name;
  std::string out = absl::StrCat(a, "_as_recorded() {\n");
  if (!arm.ranks.empty()) {
    // The failure line a process printed: its last "SomethingError: message", else its last line.
    absl::StrAppend(&out, "  ", a, "_line=$(grep -hE '^[A-Za-z_][A-Za-z0-9_.]*: ' \"${", a,
                    "_logs[@]}\" 2>/dev/null | tail -n 1)\n", "  [ -n \"$", a, "_line\" ] || ", a,
                    "_line=$(cat \"${", a, "_logs[@]}\" 2>/dev/null | grep -v '^[[:space:]]*$' | tail -n 1)\n");
    if (!arm.family || arm.family->type.empty() || arm.family->outcome == Outcome::kTimeout) {
      // A harness-made signature (no exception, no signal) cannot be seen from outside the harness.
      absl::StrAppend(&out, "  return 0\n}\n\n");
      return out;
    }
    const FailureFamily& f = *arm.family;
    if (f.outcome == Outcome::kCrash) {
      absl::StrAppend(&out, "  local s\n  for s in \"${", a, "_statuses[@]}\"; do\n",
                      "    if [ \"$s\" -gt 128 ]; then\n", "      ", a,
                      "_line=\"crash: SIG$(kill -l $((s - 128)) 2>/dev/null) (exit status $s)\"\n",
                      "      [ \"SIG$(kill -l $((s - 128)) 2>/dev/null)\" = ", ShellQuote(f.type),
                      " ] && return 0\n    fi\n  done\n  return 1\n}\n\n");
      return out;
    }
    const std::string line_re = absl::StrCat("(^|[^A-Za-z0-9_])", FamilyLineRegex(f), "[[:space:]]*$");
    absl::StrAppend(&out, "  grep -qE -- ", ShellQuote(line_re), " \"${", a, "_logs[@]}\" 2>/dev/null && return 0\n");
    if (const std::string source = WhereSource(f); !source.empty()) {
      // The same exception raised by the same line of the user's program, worded otherwise.
      absl::StrAppend(&out, "  grep -qE -- ", ShellQuote(absl::StrCat("(^|[^A-Za-z0-9_])", EreLiteral(f.type), ":")),
                      " \"${", a, "_logs[@]}\" 2>/dev/null &&\n", "    grep -qE -- ",
                      ShellQuote(absl::StrCat("^[[:space:]]*", EreLiteral(source), "[[:space:]]*$")), " \"${", a,
                      "_logs[@]}\" 2>/dev/null && return 0\n");
    }
    absl::StrAppend(&out, "  return 1\n}\n\n");
    return out;
  }
  // A gpuharness job: its record of the point says the outcome and the signature. A record's
  // keys are sorted, so the point's own outcome follows "nranks" and its signature follows
  // "schema_version" (the expected outcome and each rank's carry the same key names).
  absl::StrAppend(&out, "  local rec\n", "  rec=$(grep -v -e '\"nranks\":[0-9]*,\"outcome\":\"pass\"' -e '\"nranks\":[0-9]*,\"outcome\":\"skip\"' \"$OUT/", a,
                  "$run_suffix/records.jsonl\" 2>/dev/null | tail -n 1)\n", "  ", a,
                  "_line=\"$(printf '%s\\n' \"$rec\" | sed -n 's/.*\"nranks\":[0-9]*,\"outcome\":\"\\([a-z]*\\)\".*/\\1/p'): "
                  "$(printf '%s\\n' \"$rec\" | sed -n 's/.*\"schema_version\":[0-9]*,\"signature\":\"\\(\\([^\"\\\\]\\|\\\\.\\)*\\)\".*/\\1/p' | "
                  "sed 's/ \\[ranks [^]]*\\]$//')\"\n");
  if (!arm.family) {
    absl::StrAppend(&out, "  return 0\n}\n\n");
    return out;
  }
  const FailureFamily& f = *arm.family;
  const std::string outcome(OutcomeName(f.outcome));
  std::string re;
  if (f.outcome == Outcome::kCrash || f.outcome == Outcome::kTimeout) {
    re = absl::StrCat("^", outcome, ": .*", EreLiteral(f.type));
  } else {
    re = absl::StrCat("^", outcome, ": ([A-Za-z_][A-Za-z0-9_]*\\.)*", FamilyLineRegex(f), "[[:space:]]*$");
  }
  absl::StrAppend(&out, "  printf '%s\\n' \"$", a, "_line\" | grep -qE -- ", ShellQuote(re), "\n}\n\n");
  return out;
}

}  // namespace gh
