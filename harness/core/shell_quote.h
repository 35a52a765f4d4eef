// The one way user text enters a shell string the harness builds or runs (version set-ups and
// their placeholders, listing commands, repro scripts, and any command line it prints for a
// person to paste). Every label, path, value, signature and title goes through one of these;
// none is ever spliced into script text raw.
#ifndef GPUHARNESS_CORE_SHELL_QUOTE_H_
#define GPUHARNESS_CORE_SHELL_QUOTE_H_

#include <string>
#include "absl/strings/string_view.h"
#include <utility>
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

// `script`, a shell script the user wrote (a version's `setup:`, a provider's `build:`), with
// each placeholder of `values` ({version}, {good}, {matrix_dir}) replaced so that the shell
// reads back exactly the value and runs nothing of it, wherever the placeholder stands: outside
// quotes and in $(...) as ShellQuote(value); inside "..." or '...' by closing the quotes around
// ShellQuote(value) and opening them again; inside `...` with its backquotes and backslashes
// escaped; in a here-document that expands with $, ` and \ escaped; in a comment with line
// breaks made blanks. A value of plain characters (ShellQuote gives it back as it is) goes in as
// it is. Placeholders are tried in the order given.
std::string ShellSubstitute(absl::string_view script,
                            const std::vector<std::pair<std::string, std::string>>& values);

// A command that prints `text` and a newline: printf '%s\n' 'TEXT'. Unlike echo "...", nothing
// in `text` is expanded ($, `, \ and ! are printed as they are).
std::string ShellPrintLine(absl::string_view text);

}  // namespace gh

#endif  // GPUHARNESS_CORE_SHELL_QUOTE_H_
