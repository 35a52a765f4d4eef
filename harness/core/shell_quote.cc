#include "harness/core/shell_quote.h"

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

std::string ShellPrintLine(absl::string_view text) {
  return absl::StrCat("printf '%s\\n' ", ShellQuote(text));
}

}  // namespace gh
