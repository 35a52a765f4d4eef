// The one way user text enters a generated shell script (repro scripts, and any script or
// command line the harness prints for a person to paste). Every label, path, value, signature
// and title goes through one of these; none is ever spliced into script text raw.
#ifndef GPUHARNESS_CORE_SHELL_QUOTE_H_
#define GPUHARNESS_CORE_SHELL_QUOTE_H_

#include <string>
#include "absl/strings/string_view.h"
#include <vector>

namespace gh {

// One shell word that the shell reads back as exactly `text`: the text itself when it holds
// only [A-Za-z0-9_-./=:,+@%] (and is not empty), else single-quoted with each ' as '\''.
// `text` must hold no NUL (no shell word can; name_rules refuses NUL at input).
std::string ShellQuote(absl::string_view text);

// The words quoted and joined by spaces: a command line to paste.
std::string ShellQuoteJoin(const std::vector<std::string>& words);

// "# TEXT\n": a comment line that nothing in `text` can end early. Line breaks, other control
// bytes and DEL are written as visible escapes ("\n", "\r", "\x1b"), so a newline in a signature
// cannot put its second half on a line of its own.
std::string ShellComment(absl::string_view text);

// A command that prints `text` and a newline: printf '%s\n' 'TEXT'. Unlike echo "...", nothing
// in `text` is expanded ($, `, \ and ! are printed as they are).
std::string ShellPrintLine(absl::string_view text);

}  // namespace gh

#endif  // GPUHARNESS_CORE_SHELL_QUOTE_H_
