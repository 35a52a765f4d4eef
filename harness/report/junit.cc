#include "harness/report/junit.h"

#include <cstdio>

#include "absl/strings/str_cat.h"

namespace gh {
namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0 when it is not valid.
size_t Utf8SequenceLength(const std::string& text, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char c = byte(i);
  size_t length;
  uint32_t code;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) { length = 2; code = c & 0x1F; }
  else if ((c & 0xF0) == 0xE0) { length = 3; code = c & 0x0F; }
  else if ((c & 0xF8) == 0xF0) { length = 4; code = c & 0x07; }
  else return 0;
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  static constexpr uint32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < kMinimum[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF) ||
      code == 0xFFFE || code == 0xFFFF) {
    return 0;  // overlong, out of range, a surrogate, or a non-character XML forbids
  }
  return length;
}

// Escapes text for XML 1.0 content and attributes. Characters XML 1.0 cannot hold at all
// (control characters, invalid UTF-8) are written visibly as \xNN so nothing is lost silently.
std::string Escape(const std::string& text, bool attribute) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t length = Utf8SequenceLength(text, i);
    if (length == 0 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r')) {
      char buffer[8];
      std::snprintf(buffer, sizeof(buffer), "\\x%02X", c);
      out += buffer;
      ++i;
      continue;
    }
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\n': out += attribute ? "&#10;" : "\n"; break;
      case '\r': out += "&#13;"; break;
      case '\t': out += attribute ? "&#9;" : "\t"; break;
      default: out.append(text, i, length);
    }
    i += length;
  }
  return out;
}

std::string Seconds(double seconds) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.3f", seconds >= 0 ? seconds : 0.0);
  return buffer;
}

std::string TestcaseName(const Record& r) {
  if (r.trials > 1) return absl::StrCat(r.point, " #", r.trial + 1);
  return r.point;
}

bool IsErrorOutcome(Outcome o) {
  return o == Outcome::kError || o == Outcome::kTimeout || o == Outcome::kCrash;
}

// What each rank that did not pass ended as, for the body of a failure or error.
std::string RankDetails(const Record& r) {
  std::string out;
  for (const RankOutcome& rank : r.result.ranks) {
    if (rank.outcome == Outcome::kPass) continue;
    absl::StrAppend(&out, "\nrank ", rank.rank);
    if (!rank.host.empty()) absl::StrAppend(&out, " on ", rank.host);
    if (rank.device >= 0) absl::StrAppend(&out, " gpu ", rank.device);
    absl::StrAppend(&out, ": ", std::string(OutcomeName(rank.outcome)));
    if (!rank.step.empty()) absl::StrAppend(&out, " in ", rank.step);
    if (!rank.signature.empty()) absl::StrAppend(&out, ": ", rank.signature);
    if (rank.mismatch.has_value()) {
      const Mismatch& m = *rank.mismatch;
      absl::StrAppend(&out, " (", m.wrong_elements, " of ", m.checked_elements,
                      " elements wrong; first at ", m.first_index, ": expected ", m.expected,
                      ", got ", m.actual, ")");
    }
  }
  return out;
}

std::string Observed(const Record& r) {
  std::string text(OutcomeName(r.result.outcome));
  if (!r.result.signature.empty()) absl::StrAppend(&text, ": ", r.result.signature);
  return text;
}

}  // namespace

std::string RenderJUnit(const std::vector<Record>& records, const std::string& suite_name) {
  int failures = 0, errors = 0, skipped = 0;
  double total_s = 0;
  std::string cases;
  for (const Record& r : records) {
    total_s += r.duration_s > 0 ? r.duration_s : 0;
    absl::StrAppend(&cases, "    <testcase classname=\"", Escape(r.scenario, true), "\" name=\"",
                    Escape(TestcaseName(r), true), "\" time=\"", Seconds(r.duration_s), "\"");
    Outcome o = r.result.outcome;
    std::string expected = r.expected.ToString();
    if (o == Outcome::kSkip) {
      ++skipped;
      absl::StrAppend(&cases, ">\n      <skipped message=\"", Escape(r.result.signature, true),
                      "\"/>\n    </testcase>\n");
    } else if (r.matched && o == Outcome::kPass) {
      absl::StrAppend(&cases, "/>\n");
    } else if (r.matched) {
      std::string note = absl::StrCat("expected ", expected, " and got ", Observed(r));
      if (!r.expected.reason.empty()) absl::StrAppend(&note, "\nreason: ", r.expected.reason);
      absl::StrAppend(&cases, ">\n      <system-out>", Escape(note, false),
                      "</system-out>\n    </testcase>\n");
    } else {
      bool is_error = IsErrorOutcome(o);
      (is_error ? errors : failures)++;
      std::string message = r.result.signature.empty()
                                ? absl::StrCat("expected ", expected, ", got ", Observed(r))
                                : r.result.signature;
      std::string body = absl::StrCat("expected ", expected, ", got ", Observed(r), RankDetails(r));
      const char* tag = is_error ? "error" : "failure";
      absl::StrAppend(&cases, ">\n      <", tag, " message=\"", Escape(message, true),
                      "\" type=\"", std::string(OutcomeName(o)), "\">", Escape(body, false), "</",
                      tag, ">\n    </testcase>\n");
    }
  }
  std::string counts = absl::StrCat("tests=\"", records.size(), "\" failures=\"", failures,
                                    "\" errors=\"", errors, "\" skipped=\"", skipped,
                                    "\" time=\"", Seconds(total_s), "\"");
  return absl::StrCat("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", "<testsuites name=\"",
                      Escape(suite_name, true), "\" ", counts, ">\n", "  <testsuite name=\"",
                      Escape(suite_name, true), "\" ", counts, ">\n", cases,
                      "  </testsuite>\n</testsuites>\n");
}

}  // namespace gh
