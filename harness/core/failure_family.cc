#include "harness/core/failure_family.h"

#include <cctype>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "re2/re2.h"

namespace gh {
namespace {

// Abseil's own string_view (Debian's Abseil does not alias std::string_view).
absl::string_view Absl(std::string_view text) { return absl::string_view(text.data(), text.size()); }
std::string_view Std(absl::string_view text) { return std::string_view(text.data(), text.size()); }

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// Quoted text without spaces ('jax.sharding', "x.py", `f`) becomes '<id>' in its own quotes. A
// quote only opens after a non-word character, so the apostrophe of "can't" is left alone.
std::string FoldQuoted(std::string_view text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    const bool opens = (c == '\'' || c == '"' || c == '`') && (i == 0 || !IsWordChar(text[i - 1]));
    if (opens) {
      const size_t close = text.find(c, i + 1);
      if (close != std::string_view::npos && close > i + 1 && close - i <= 200 &&
          (close + 1 == text.size() || !IsWordChar(text[close + 1]))) {
        const std::string_view inside = text.substr(i + 1, close - i - 1);
        if (inside.find_first_of(" \t") == std::string_view::npos) {
          absl::StrAppend(&out, std::string(1, c), "<id>", std::string(1, c));
          i = close + 1;
          continue;
        }
      }
    }
    out.push_back(c);
    ++i;
  }
  return out;
}

// A word holding a '/' and a letter ("/usr/lib/x.so:", "jax/_src/api.py") becomes <path>; the
// punctuation around it stays.
std::string FoldPaths(std::string_view text) {
  std::string out;
  for (absl::string_view word : absl::StrSplit(Absl(text), ' ')) {
    if (!out.empty() || word.data() != text.data()) out.push_back(' ');
    size_t begin = 0, end = word.size();
    while (begin < end && std::string_view("([{<").find(word[begin]) != std::string_view::npos) ++begin;
    while (end > begin && std::string_view(")]}>,;:.").find(word[end - 1]) != std::string_view::npos) --end;
    const absl::string_view core = word.substr(begin, end - begin);
    bool letter = false;
    for (char c : core) letter = letter || std::isalpha(static_cast<unsigned char>(c)) != 0;
    if (core.find('/') != absl::string_view::npos && letter && core != "<id>") {
      absl::StrAppend(&out, word.substr(0, begin), "<path>", word.substr(end));
    } else {
      absl::StrAppend(&out, word);
    }
  }
  return out;
}

bool IsLibraryFrame(std::string_view path) {
  static const RE2* const kStandardLibrary = new RE2(R"(/lib(64)?/python[0-9.]*/)");
  return absl::StrContains(Absl(path), "site-packages") || absl::StrContains(Absl(path), "dist-packages") ||
         absl::StartsWith(Absl(path), "<frozen") ||
         RE2::PartialMatch(re2::StringPiece(path.data(), path.size()), *kStandardLibrary);
}

std::string BaseName(std::string_view path) {
  const size_t slash = path.find_last_of('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace

std::string_view WithoutRankList(std::string_view signature) {
  signature = Std(absl::StripAsciiWhitespace(Absl(signature)));
  if (!signature.empty() && signature.back() == ']') {
    const size_t open = signature.rfind(" [ranks ");
    if (open != std::string_view::npos) signature = Std(absl::StripAsciiWhitespace(Absl(signature.substr(0, open))));
  }
  return signature;
}

std::string NormalizeFailureMessage(std::string_view message) {
  static const RE2* const kAddress = new RE2(R"(\b0[xX][0-9a-fA-F]+\b)");
  static const RE2* const kDottedVersion = new RE2(R"(\bv?[0-9]+(\.[0-9]+)+[A-Za-z0-9+]*)");
  static const RE2* const kVVersion = new RE2(R"(\bv[0-9]+\b)");
  static const RE2* const kNumber = new RE2(R"(\b[0-9]+([KMGTP]i?B?|B|ms|us|ns|s|x)?\b)");
  static const RE2* const kSpaces = new RE2(R"(\s+)");
  std::string text(WithoutRankList(message));
  RE2::GlobalReplace(&text, *kAddress, "<addr>");
  text = FoldPaths(FoldQuoted(text));
  RE2::GlobalReplace(&text, *kDottedVersion, "<ver>");
  RE2::GlobalReplace(&text, *kVVersion, "<ver>");
  RE2::GlobalReplace(&text, *kNumber, "<n>");
  RE2::GlobalReplace(&text, *kSpaces, " ");
  return std::string(absl::StripAsciiWhitespace(text));
}

std::string FailingSourceLine(std::string_view output) {
  std::vector<absl::string_view> lines = absl::StrSplit(Absl(output), '\n');
  size_t start = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (absl::StrContains(lines[i], "Traceback (most recent call last):")) start = i + 1;
  }
  // "  File "x.py", line 3, in main" (a traceback) or "  File "x.py", line 3 in main" (faulthandler).
  static const RE2* const kFrame = new RE2(R"re(\s*File "(.+)", line ([0-9]+),? ?(?:in (.*))?\s*)re");
  std::string found;
  for (size_t i = start; i < lines.size(); ++i) {
    std::string path, line, function;
    if (!RE2::FullMatch(re2::StringPiece(lines[i].data(), lines[i].size()), *kFrame, &path, &line, &function)) {
      continue;
    }
    if (IsLibraryFrame(path)) continue;
    std::string source;
    if (i + 1 < lines.size() && !lines[i + 1].empty() && std::isspace(static_cast<unsigned char>(lines[i + 1][0]))) {
      const absl::string_view next = absl::StripAsciiWhitespace(lines[i + 1]);
      const bool markers = next.find_first_not_of("^~ ") == absl::string_view::npos;
      if (!next.empty() && !markers && !absl::StartsWith(next, "File \"")) source = std::string(next);
    }
    found = source.empty() ? absl::StrCat(BaseName(path), ":", line, " in ", absl::StripAsciiWhitespace(function))
                           : absl::StrCat(BaseName(path), ": ", source);
  }
  return found;
}

std::string FailureWhere(const PointOutcome& result) {
  for (const RankOutcome& rank : result.ranks) {
    if (rank.outcome != result.outcome) continue;
    if (std::string source = FailingSourceLine(rank.output_tail); !source.empty()) return source;
  }
  for (const RankOutcome& rank : result.ranks) {
    if (rank.outcome != result.outcome) continue;
    return rank.step.empty() || rank.step == "exec" ? "" : absl::StrCat("step ", rank.step);
  }
  return "";
}

FailureFamily FailureFamilyOf(Outcome outcome, std::string_view signature, std::string_view where) {
  static const RE2* const kSignal = new RE2(R"(\b(SIG[A-Z]+[0-9]*|signal [0-9]+)\b)");
  // "jax.errors.JaxRuntimeError: ..." -> JaxRuntimeError; "cudaErrorIllegalAddress" alone.
  static const RE2* const kTypeAndMessage = new RE2(R"(((?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z_][A-Za-z0-9_]*)(?::\s*([\s\S]*))?)");
  static const RE2* const kStepInLine = new RE2(R"(in step '([^']+)')");
  static const RE2* const kTimeoutStep = new RE2(R"(^timeout in ([A-Za-z0-9_.-]+))");
  FailureFamily family;
  family.outcome = outcome;
  family.example = std::string(WithoutRankList(signature));
  family.where = std::string(where);
  const re2::StringPiece text(family.example.data(), family.example.size());
  std::string rest = family.example;
  if (outcome == Outcome::kCrash) {
    RE2::PartialMatch(text, *kSignal, &family.type);
  } else {
    std::string dotted, message;
    if (RE2::FullMatch(text, *kTypeAndMessage, &dotted, &message)) {
      family.type = dotted.substr(dotted.find_last_of('.') + 1);
      rest = message;
    }
  }
  family.message = NormalizeFailureMessage(rest);
  if (family.where.empty()) {  // a native crash or timeout names its step in its line
    std::string step;
    if (RE2::PartialMatch(text, *kStepInLine, &step) ||
        (outcome == Outcome::kTimeout && RE2::PartialMatch(text, *kTimeoutStep, &step) &&
         step != "exec")) {
      family.where = absl::StrCat("step ", step);
    }
  }
  return family;
}

bool SameFailureFamily(const FailureFamily& a, const FailureFamily& b) {
  if (a.outcome != b.outcome || a.type != b.type) return false;
  if (a.outcome == Outcome::kCrash || a.outcome == Outcome::kTimeout) return a.where == b.where;
  return a.message == b.message || (!a.where.empty() && a.where == b.where);
}

std::string FailureFamily::ToString() const {
  std::string out(OutcomeName(outcome));
  if (!type.empty()) absl::StrAppend(&out, " ", type);
  if (where.empty()) {
    if (!message.empty()) absl::StrAppend(&out, type.empty() ? ": " : " ", "'", message, "'");
  } else {
    absl::StrAppend(&out, absl::StartsWith(where, "step ") ? " in " : " at ", where);
  }
  return out;
}

}  // namespace gh
