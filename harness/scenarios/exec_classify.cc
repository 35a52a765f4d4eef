#include "harness/scenarios/exec_classify.h"

#include <csignal>
#include <optional>

#include "absl/strings/str_cat.h"
#include "harness/core/signal_name.h"
#include "harness/core/status_macros.h"

namespace gh {
namespace {

std::vector<std::string_view> Lines(std::string_view output) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    if (end == std::string_view::npos) end = output.size();
    std::string_view line = output.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

// The first line `regex` finds something in.
std::optional<std::string_view> FindLine(const std::vector<std::string_view>& lines,
                                         const Regex& regex) {
  for (std::string_view line : lines) {
    if (regex.Search(line)) return line;
  }
  return std::nullopt;
}

absl::StatusOr<Regex> CompileRule(std::string_view key, std::string_view pattern) {
  absl::StatusOr<Regex> regex = Regex::Compile(pattern);
  if (!regex.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(key), ": invalid regular expression '",
                                                   std::string(pattern), "': ",
                                                   regex.status().message()));
  }
  return regex;
}

// What a failed command said last about why, when the scenario gives no signature rules: the last
// `SomethingError: message` line (a Python traceback's exception), else the last non-empty line
// with the exit status. Never the exit status alone where there is output: any other exception
// would otherwise read as the hunted `exit status 1`.
std::string DefaultFailureSignature(const std::vector<std::string_view>& lines, int exit_status) {
  static const Regex* const kException = [] {
    absl::StatusOr<Regex> re = Regex::Compile(R"(^([A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z_][A-Za-z0-9_]*(Error|Exception)(: .*)?$)");
    return new Regex(*std::move(re));
  }();
  constexpr size_t kMaxChars = 300;
  auto cut = [&](std::string_view line) {
    std::string text(line.substr(0, kMaxChars));
    if (line.size() > kMaxChars) text += "...";
    return text;
  };
  std::string_view last;
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    if (kException->Search(*it)) return cut(*it);
    if (last.empty() && it->find_first_not_of(" \t") != std::string_view::npos) last = *it;
  }
  std::string signature = absl::StrCat("exit status ", exit_status);
  if (!last.empty()) {
    const size_t start = last.find_first_not_of(" \t");
    const size_t end = last.find_last_not_of(" \t");
    absl::StrAppend(&signature, ": ", cut(last.substr(start, end + 1 - start)));
  }
  return signature;
}

}  // namespace

absl::Status ExecRules::AddPass(std::string_view key, std::string_view pattern) {
  GH_ASSIGN_OR_RETURN(Regex regex, CompileRule(key, pattern));
  pass.push_back(std::move(regex));
  return absl::OkStatus();
}

absl::Status ExecRules::AddSignature(std::string_view key, std::string name,
                                     std::string_view pattern, Outcome outcome) {
  GH_ASSIGN_OR_RETURN(Regex regex, CompileRule(key, pattern));
  signatures.push_back({std::move(name), std::move(regex), outcome});
  return absl::OkStatus();
}

absl::Status ExecRules::AddSkip(std::string_view key, std::string_view pattern,
                                std::string reason) {
  GH_ASSIGN_OR_RETURN(Regex regex, CompileRule(key, pattern));
  skips.push_back({std::move(regex), std::move(reason)});
  return absl::OkStatus();
}

std::string OutputTail(std::string_view output, int lines) {
  if (lines <= 0) return "";
  std::vector<std::string_view> all = Lines(output);
  size_t first = all.size() > static_cast<size_t>(lines) ? all.size() - lines : 0;
  std::string out;
  for (size_t i = first; i < all.size(); ++i) {
    for (char c : all[i]) {
      unsigned char u = static_cast<unsigned char>(c);
      out.push_back((u >= 0x20 && u < 0x7f) || c == '\t' ? c : '?');
    }
    out.push_back('\n');
  }
  return out;
}

RankOutcome ClassifyExecEnd(const ExecEnd& end, std::string_view output, const ExecRules& rules) {
  RankOutcome r;
  r.step = "exec";
  const std::vector<std::string_view> lines = Lines(output);
  auto with_tail = [&](Outcome outcome, std::string signature) {
    r.outcome = outcome;
    r.signature = std::move(signature);
    r.output_tail = OutputTail(output, rules.tail_lines);
    return r;
  };
  if (end.timed_out) {
    return with_tail(Outcome::kTimeout,
                     absl::StrCat("timeout in exec: the command ran past ",
                                  absl::FormatDuration(end.elapsed), "; its process group was killed"));
  }
  for (const ExecRules::Skip& skip : rules.skips) {
    const std::optional<std::string_view> line = FindLine(lines, skip.regex);
    if (!line.has_value()) continue;
    std::string reason = skip.reason;
    if (reason.empty()) {
      // The first group when it captured something, else the whole line.
      const std::optional<std::vector<std::string>> groups = skip.regex.SearchGroups(*line);
      const bool captured = groups.has_value() && groups->size() > 1 && !(*groups)[1].empty();
      reason = captured ? (*groups)[1] : std::string(*line);
    }
    RankOutcome skipped = RankOutcome::Skip(std::move(reason));
    skipped.step = r.step;
    return skipped;
  }
  for (const ExecRules::Signature& rule : rules.signatures) {
    if (FindLine(lines, rule.regex)) {
      return with_tail(end.signaled ? Outcome::kCrash : rule.outcome, rule.name);
    }
  }
  if (end.signaled) {
    return with_tail(Outcome::kCrash, absl::StrCat("killed by ", SignalName(end.signal_number)));
  }
  if (end.exit_status != rules.exit_status) {
    // With signature rules the scenario names its failures; without, the output does.
    return with_tail(Outcome::kError, rules.signatures.empty()
                                          ? DefaultFailureSignature(lines, end.exit_status)
                                          : absl::StrCat("exit status ", end.exit_status));
  }
  for (const Regex& pass : rules.pass) {
    if (!FindLine(lines, pass)) {
      return with_tail(Outcome::kFail,
                       absl::StrCat("missing output: no line matches '", pass.pattern(), "'"));
    }
  }
  r.outcome = Outcome::kPass;
  return r;
}

}  // namespace gh
