// How `gpuharness history` puts stored text and numbers on a line: every string in the database
// came from a records file (signatures carry raw error text with newlines and tabs), so text
// output escapes control characters and TSV output escapes its separators reversibly.
#ifndef GPUHARNESS_HISTORY_HISTORY_TEXT_H_
#define GPUHARNESS_HISTORY_HISTORY_TEXT_H_

#include <string>
#include <string_view>
#include <vector>

namespace gh {

// `text` on one line: backslash as "\\", newline "\n", carriage return "\r", tab "\t", every
// other control character (C0, DEL, C1) as "\xNN"; other UTF-8 kept as it is.
std::string OneLineText(std::string_view text);

// A TSV line: each field through OneLineText (so "\\", "\t", "\n", "\r", the convention of
// PostgreSQL's text format), joined by tabs, ending in '\n'. A field never splits a line or a
// column, and a reader gets the text back by undoing the escapes.
std::string TsvLine(const std::vector<std::string>& fields);

// "night2 (version n08)", or "night2" without a version.
std::string NightAndVersion(const std::string& night, const std::string& version);

// The warning for a records file whose last line(s) a killed writer left torn (skipped).
std::string TornLinesWarning(const std::string& records_path, int lines);

// `value` rounded to three significant digits, without an exponent between 1e-4 and 1e9 and
// without trailing zeros ("0.000123", "1.5", "12.3", "50", "12300"); "%.3g" beyond.
std::string ThreeSignificant(double value);

}  // namespace gh

#endif  // GPUHARNESS_HISTORY_HISTORY_TEXT_H_
