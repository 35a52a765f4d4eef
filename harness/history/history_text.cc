#include "harness/history/history_text.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace gh {
namespace {

// The escaped form of one byte or code point starting at text[i], or "" to keep it; `length` is
// how many bytes it spans.
std::string EscapeAt(std::string_view text, size_t i, size_t* length) {
  const unsigned char c = static_cast<unsigned char>(text[i]);
  *length = 1;
  switch (c) {
    case '\\': return "\\\\";
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    default: break;
  }
  if (c < 0x20 || c == 0x7f) return absl::StrFormat("\\x%02x", c);
  // C1 controls are U+0080..U+009F, encoded as C2 80..C2 9F.
  if (c == 0xc2 && i + 1 < text.size()) {
    const unsigned char next = static_cast<unsigned char>(text[i + 1]);
    if (next >= 0x80 && next <= 0x9f) {
      *length = 2;
      return absl::StrFormat("\\x%02x", next);
    }
  }
  return "";
}

}  // namespace

std::string OneLineText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    size_t length = 1;
    const std::string escaped = EscapeAt(text, i, &length);
    if (escaped.empty()) {
      out.append(text.substr(i, length));
    } else {
      out += escaped;
    }
    i += length;
  }
  return out;
}

std::string TsvLine(const std::vector<std::string>& fields) {
  std::vector<std::string> escaped;
  escaped.reserve(fields.size());
  for (const std::string& f : fields) escaped.push_back(OneLineText(f));
  return absl::StrJoin(escaped, "\t") + "\n";
}

std::string NightAndVersion(const std::string& night, const std::string& version) {
  return version.empty() ? night : absl::StrCat(night, " (version ", version, ")");
}

std::string TornLinesWarning(const std::string& records_path, int lines) {
  return absl::StrCat(records_path, ": skipped ", lines, lines == 1 ? " partial last line" : " partial last lines",
                      " (a killed writer's); the records before it were read");
}

std::string ThreeSignificant(double value) {
  if (!std::isfinite(value)) return absl::StrFormat("%g", value);
  if (value == 0) return "0";
  const double magnitude = std::fabs(value);
  if (magnitude < 1e-4 || magnitude >= 1e9) return absl::StrFormat("%.3g", value);
  const int exponent = static_cast<int>(std::floor(std::log10(magnitude)));
  const double scale = std::pow(10.0, exponent - 2);
  const double rounded = std::round(value / scale) * scale;
  // Rounding can carry into the next power of ten (999.7 -> 1000): count decimals from the result.
  const int rounded_exponent = static_cast<int>(std::floor(std::log10(std::fabs(rounded))));
  const int decimals = std::max(0, 2 - rounded_exponent);
  std::string text = absl::StrFormat("%.*f", decimals, rounded);
  if (decimals > 0) {  // "50.0" reads as "50", "1.50" as "1.5"
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

}  // namespace gh
