#include "harness/core/name_rules.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace gh {

namespace {

bool IsNameStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool IsNameChar(char c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }

// Length of the UTF-8 sequence at text[i] and its code point; 0 when malformed.
size_t Utf8Sequence(absl::string_view text, size_t i, uint32_t* code) {
  const unsigned char c = static_cast<unsigned char>(text[i]);
  size_t len = 0;
  uint32_t min = 0;
  if (c < 0x80) {
    *code = c;
    return 1;
  } else if ((c & 0xe0) == 0xc0) {
    len = 2, min = 0x80, *code = c & 0x1f;
  } else if ((c & 0xf0) == 0xe0) {
    len = 3, min = 0x800, *code = c & 0x0f;
  } else if ((c & 0xf8) == 0xf0) {
    len = 4, min = 0x10000, *code = c & 0x07;
  } else {
    return 0;
  }
  if (i + len > text.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    const unsigned char cc = static_cast<unsigned char>(text[i + k]);
    if ((cc & 0xc0) != 0x80) return 0;
    *code = (*code << 6) | (cc & 0x3f);
  }
  if (*code < min || *code > 0x10ffff || (*code >= 0xd800 && *code <= 0xdfff)) return 0;
  return len;
}

}  // namespace

std::string PrintableText(absl::string_view text) {
  std::string out;
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c >= 0x7f || c == '\\') {
      absl::StrAppend(&out, absl::StrFormat("\\x%02x", c));
    } else {
      out += ch;
    }
  }
  return out;
}

bool IsValidUtf8(absl::string_view text) {
  uint32_t code = 0;
  for (size_t i = 0; i < text.size();) {
    const size_t len = Utf8Sequence(text, i, &code);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

absl::Status CheckEnvName(absl::string_view name) {
  bool ok = !name.empty() && IsNameStart(name[0]);
  for (char c : name) ok = ok && IsNameChar(c);
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "'", PrintableText(name),
      "' is not an environment variable name (letters, digits and '_', not starting with a digit)"));
}

absl::Status CheckEnvValue(absl::string_view value) {
  if (value.find('\0') != absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("the value '", PrintableText(value), "' holds a NUL byte, which no environment value can"));
  }
  if (!IsValidUtf8(value)) {
    return absl::InvalidArgumentError(absl::StrCat("the value '", PrintableText(value), "' is not valid UTF-8"));
  }
  return absl::OkStatus();
}

absl::Status CheckLabel(absl::string_view label) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("label '", PrintableText(label), "' ", why));
  };
  if (label.empty()) return absl::InvalidArgumentError("a label must not be empty");
  if (!IsValidUtf8(label)) return bad("is not valid UTF-8");
  uint32_t code = 0;
  for (size_t i = 0; i < label.size();) {
    const size_t len = Utf8Sequence(label, i, &code);
    i += len;
    if (code < 0x20 || code == 0x7f || (code >= 0x80 && code <= 0x9f)) {
      return bad("holds a control character (newline, tab, escape, ...)");
    }
    if (code == ',' || code == '=') {
      return bad("holds ',' or '=' (cell ids are axis=label,axis=label: it would make them ambiguous)");
    }
  }
  return absl::OkStatus();
}

}  // namespace gh
