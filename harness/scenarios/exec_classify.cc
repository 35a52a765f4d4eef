#include "harness/scenarios/exec_classify.h"

#include <csignal>
#include <regex>

#include "absl/strings/str_cat.h"

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

// The first line `regex` finds something in; its match in *match.
bool FindLine(const std::vector<std::string_view>& lines, const std::string& pattern,
              std::string* line_out, std::smatch* match) {
  const std::regex regex(pattern);  // validated by the loader
  for (std::string_view line : lines) {
    std::string text(line);
    std::smatch m;
    if (std::regex_search(text, m, regex)) {
      if (line_out != nullptr) *line_out = text;
      if (match != nullptr) {
        // Re-run on the stored copy so that the match refers to live storage.
        std::regex_search(*line_out, *match, regex);
      }
      return true;
    }
  }
  return false;
}

}  // namespace

std::string ExecSignalName(int signal_number) {
  switch (signal_number) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGPIPE: return "SIGPIPE";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    case SIGTRAP: return "SIGTRAP";
    default: return absl::StrCat("signal ", signal_number);
  }
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
  for (const ExecSkipRule& skip : rules.skips) {
    std::string line;
    std::smatch match;
    if (FindLine(lines, skip.regex, &line, &match)) {
      r.outcome = Outcome::kSkip;
      if (!skip.reason.empty()) {
        r.signature = skip.reason;
      } else if (match.size() > 1 && match[1].matched) {
        r.signature = match[1].str();
      } else {
        r.signature = line;
      }
      return r;
    }
  }
  for (const ExecSignatureRule& rule : rules.signatures) {
    if (FindLine(lines, rule.regex, nullptr, nullptr)) {
      return with_tail(end.signaled ? Outcome::kCrash : rule.outcome, rule.name);
    }
  }
  if (end.signaled) {
    return with_tail(Outcome::kCrash, absl::StrCat("killed by ", ExecSignalName(end.signal_number)));
  }
  if (end.exit_status != rules.exit_status) {
    return with_tail(Outcome::kError, absl::StrCat("exit status ", end.exit_status));
  }
  for (const std::string& pass : rules.pass) {
    if (!FindLine(lines, pass, nullptr, nullptr)) {
      return with_tail(Outcome::kFail, absl::StrCat("missing output: no line matches '", pass, "'"));
    }
  }
  r.outcome = Outcome::kPass;
  return r;
}

}  // namespace gh
