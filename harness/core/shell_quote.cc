#include "harness/core/shell_quote.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace gh {

std::string ShellQuote(absl::string_view text) {
  constexpr absl::string_view kBare =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./=:,+@%";
  if (!text.empty() && text.find_first_not_of(kBare) == absl::string_view::npos) return std::string(text);
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  out += '\'';
  return out;
}

std::string ShellQuoteJoin(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) {
    if (!out.empty()) out += ' ';
    out += ShellQuote(w);
  }
  return out;
}

std::string ShellComment(absl::string_view text) {
  std::string out = "# ";
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out += absl::StrFormat("\\x%02x", c);
    } else {
      out += ch;
    }
  }
  out += '\n';
  return out;
}

namespace {

// Where in a shell script a position is, for ShellSubstitute.
enum class Context { kPlain, kSingle, kDouble, kBackquote, kSubst, kComment, kHeredoc };

struct Frame {
  Context context = Context::kPlain;
  int depth = 0;  // kSubst: the ( still open inside it
};

struct Heredoc {
  std::string delimiter;
  bool strip_tabs = false;  // <<-
  bool expands = true;      // the delimiter was not quoted
};

bool StartsWord(absl::string_view s, size_t i) {
  return i == 0 || absl::string_view(" \t\n;&|()<>").find(s[i - 1]) != absl::string_view::npos;
}

// After "<<" (at `i`): the here-document's delimiter, and where the operator ends.
Heredoc ReadHeredoc(absl::string_view s, size_t& i) {
  Heredoc h;
  if (i < s.size() && s[i] == '-') {
    h.strip_tabs = true;
    ++i;
  }
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  while (i < s.size() && absl::string_view(" \t\n;&|()<>").find(s[i]) == absl::string_view::npos) {
    if (s[i] == '\'' || s[i] == '"' || s[i] == '\\') {
      h.expands = false;
      if (s[i] != '\\') {
        const char quote = s[i++];
        while (i < s.size() && s[i] != quote) h.delimiter += s[i++];
        if (i < s.size()) ++i;
        continue;
      }
      ++i;
    }
    if (i < s.size()) h.delimiter += s[i++];
  }
  return h;
}

std::string Escaped(absl::string_view value, absl::string_view specials) {
  std::string out;
  for (char c : value) {
    if (specials.find(c) != absl::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

// `value` as it must stand in `context` to be read back as itself.
std::string PlaceValue(Context context, bool heredoc_expands, const std::string& value) {
  const std::string quoted = ShellQuote(value);
  if (quoted == value) return value;
  switch (context) {
    case Context::kPlain:
    case Context::kSubst: return quoted;
    case Context::kSingle: return absl::StrCat("'", quoted, "'");
    case Context::kDouble: return absl::StrCat("\"", quoted, "\"");
    case Context::kBackquote: return Escaped(quoted, "`\\$");
    case Context::kHeredoc: return heredoc_expands ? Escaped(value, "$`\\") : value;
    case Context::kComment: break;
  }
  std::string out = value;
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

// Walks a script once, copying it, tracking where each position stands (ShellSubstitute).
class Substituter {
 public:
  Substituter(absl::string_view script, const std::vector<std::pair<std::string, std::string>>& values)
      : s_(script), values_(values) {}

  std::string Run() {
    while (i_ < s_.size()) {
      if (stack_.back().context == Context::kHeredoc && line_start_ && EndOfHeredoc()) continue;
      line_start_ = false;
      if (Substituted()) continue;
      const char c = s_[i_];
      const Context context = stack_.back().context;
      if (c == '\\' && context != Context::kSingle && context != Context::kComment && i_ + 1 < s_.size()) {
        Copy(2);  // an escaped character is itself, whatever it is
        continue;
      }
      Copy(1);
      if (c == '\n') {
        NewLine();
      } else if (context == Context::kSingle) {
        if (c == '\'') stack_.pop_back();
      } else if (context == Context::kDouble) {
        InDouble(c);
      } else if (context != Context::kComment && context != Context::kHeredoc) {
        InPlain(c);
      }
    }
    return out_;
  }

 private:
  void Copy(size_t n) {
    out_.append(s_.data() + i_, n);
    i_ += n;
  }
  bool Next(char c) const { return i_ < s_.size() && s_[i_] == c; }

  // A placeholder at i_: its value, placed for where it stands.
  bool Substituted() {
    for (const auto& [key, value] : values_) {
      if (key.empty() || s_.substr(i_, key.size()) != key) continue;
      out_ += PlaceValue(stack_.back().context, body_.expands, value);
      i_ += key.size();
      return true;
    }
    return false;
  }

  // At a line start in a here-document: a line that is its delimiter ends it (true: copied).
  bool EndOfHeredoc() {
    const size_t end = s_.find('\n', i_);
    const absl::string_view line = s_.substr(i_, end == absl::string_view::npos ? absl::string_view::npos : end - i_);
    absl::string_view bare = line;
    while (body_.strip_tabs && !bare.empty() && bare.front() == '\t') bare.remove_prefix(1);
    if (bare != body_.delimiter) return false;
    Copy(line.size());
    stack_.pop_back();
    if (!pending_.empty()) {  // the next here-document of the same command line
      StartHeredoc();
      if (i_ < s_.size()) Copy(1);
    }
    return true;
  }

  void StartHeredoc() {
    body_ = pending_.front();
    pending_.erase(pending_.begin());
    stack_.push_back({Context::kHeredoc});
  }

  void NewLine() {
    line_start_ = true;
    if (stack_.back().context == Context::kComment) stack_.pop_back();
    if (stack_.back().context == Context::kPlain && !pending_.empty()) StartHeredoc();
  }

  void InDouble(char c) {
    if (c == '"') {
      stack_.pop_back();
    } else if (c == '`') {
      stack_.push_back({Context::kBackquote});
    } else if (c == '$' && Next('(')) {
      Copy(1);
      stack_.push_back({Context::kSubst, 1});
    }
  }

  // Outside quotes, in $(...) or in `...`.
  void InPlain(char c) {
    Frame& top = stack_.back();
    if (c == '\'') {
      stack_.push_back({Context::kSingle});
    } else if (c == '"') {
      stack_.push_back({Context::kDouble});
    } else if (c == '`') {
      if (top.context == Context::kBackquote) {
        stack_.pop_back();
      } else {
        stack_.push_back({Context::kBackquote});
      }
    } else if (c == '$' && Next('(')) {
      Copy(1);
      stack_.push_back({Context::kSubst, 1});
    } else if (c == '(' && top.context == Context::kSubst) {
      ++top.depth;
    } else if (c == ')' && top.context == Context::kSubst && --top.depth == 0) {
      stack_.pop_back();
    } else if (c == '#' && StartsWord(s_, i_ - 1)) {
      stack_.push_back({Context::kComment});
    } else if (c == '<' && top.context == Context::kPlain && Next('<') && !(i_ + 1 < s_.size() && s_[i_ + 1] == '<')) {
      Copy(1);  // the second '<'
      const size_t from = i_;
      Heredoc h = ReadHeredoc(s_, i_);
      out_.append(s_.data() + from, i_ - from);
      pending_.push_back(std::move(h));
    }
  }

  absl::string_view s_;
  const std::vector<std::pair<std::string, std::string>>& values_;
  size_t i_ = 0;
  std::string out_;
  std::vector<Frame> stack_ = {Frame{}};
  std::vector<Heredoc> pending_;  // here-documents whose bodies start at the next line
  Heredoc body_;                  // the one being read (stack top kHeredoc)
  bool line_start_ = true;
};

}  // namespace

std::string ShellSubstitute(absl::string_view script,
                            const std::vector<std::pair<std::string, std::string>>& values) {
  return Substituter(script, values).Run();
}

std::string ShellPrintLine(absl::string_view text) {
  return absl::StrCat("printf '%s\\n' ", ShellQuote(text));
}

}  // namespace gh
