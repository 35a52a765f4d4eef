#include "harness/report/junit.h"

#include <cstdio>
#include <map>

#include "absl/strings/str_cat.h"
#include "harness/report/result_matrix.h"
#include "harness/report/perf_report.h"

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

// "gpuharness.<matrix>.<cell key>": the matrix and the cell, so every cell × point has its own
// (classname, name) pair and CI history keeps cells apart. Parts that are absent are left out.
std::string ClassName(const std::string& matrix, const std::string& cell_key) {
  std::string name = "gpuharness";
  if (!matrix.empty()) absl::StrAppend(&name, ".", matrix);
  if (!cell_key.empty()) absl::StrAppend(&name, ".", cell_key);
  return name;
}

// What each rank that did not pass ended as, for the body of a failure.
std::string RankDetails(const Record& r) {
  std::string out;
  for (const RankOutcome& rank : r.result.ranks) {
    if (rank.outcome == Outcome::kPass) continue;
    absl::StrAppend(&out, "\n  rank ", rank.rank);
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
  // A timeout's hang report: each rank's place, where they parted, NCCL's view (first line).
  const HangReport& hang = r.result.hang;
  for (const std::string& line : hang.summary) absl::StrAppend(&out, "\n  hang: ", line);
  if (!hang.divergence.empty()) absl::StrAppend(&out, "\n  divergence: ", hang.divergence);
  if (!hang.nccl_ras.empty()) {
    absl::StrAppend(&out, "\n  NCCL RAS: ", hang.nccl_ras.substr(0, hang.nccl_ras.find('\n')));
  }
  if (!hang.nccl_inspector.empty()) absl::StrAppend(&out, "\n  NCCL Inspector: ", hang.nccl_inspector);
  return out;
}

// One line per trial ("trial 2/3: crash: SIGSEGV in exchange (unmet)"; from `sweep --processes`
// "process 2, trial 1/1: pass"), with the ranks that did not pass under the trials that did not.
std::string TrialLines(const std::vector<const Record*>& trials) {
  std::string out;
  for (const Record* r : trials) {
    const std::string process = r->process.has_value() ? absl::StrCat("process ", *r->process + 1, ", ") : "";
    absl::StrAppend(&out, out.empty() ? "" : "\n", process, "trial ", r->trial + 1, "/", r->trials, ": ",
                    std::string(OutcomeName(r->result.outcome)));
    if (!r->result.signature.empty()) absl::StrAppend(&out, ": ", r->result.signature);
    if (!r->matched) out += " (unmet)";
    if (r->result.outcome != Outcome::kPass) out += RankDetails(*r);
  }
  return out;
}

struct Testcase {
  std::string xml;
  bool failure = false;
  bool error = false;  // an infra trial: the harness could not run it, no verdict on the code
  bool skipped = false;
};

// One key's testcase: an <error> when a trial ended infra (the launcher or the harness failed;
// CI tells errors from failures), a <failure> when its expectation is unmet or it regressed
// against the baseline (whatever the outcome, a skip included), <skipped> when it skipped as
// expected, else a plain testcase (a <failure type="perf regression"> when a metric got slower
// than the baseline's, unless warn-only); trials and the expectation a non-pass outcome met go to
// <system-out>.
Testcase RenderTestcase(const PointComparison& entry, const std::vector<const Record*>& trials,
                        const std::string& matrix, bool perf_warn_only) {
  const PointTrials& now = *entry.now;
  double seconds = 0;
  for (const Record* r : trials) seconds += r->duration_s > 0 ? r->duration_s : 0;
  Testcase out;
  absl::StrAppend(&out.xml, "    <testcase classname=\"", Escape(ClassName(matrix, entry.key.cell), true),
                  "\" name=\"", Escape(entry.key.point, true), "\" time=\"", Seconds(seconds), "\"");
  const std::string expected = now.expected.ToString();
  const std::string got = TrialsText(now);
  const bool regression = entry.change == BaselineChange::kRegression;
  const bool perf_failure = entry.perf_regressed() && !perf_warn_only;
  std::string inner;
  if (now.worst == Outcome::kInfra) {
    out.error = true;
    const std::string message = absl::StrCat("not run (infrastructure): ", now.first_failure_signature);
    absl::StrAppend(&inner, "      <error message=\"", Escape(message, true), "\" type=\"infra\">",
                    Escape(message, false), "</error>\n");
  } else if (!now.expectation_met() || regression) {
    out.failure = true;
    std::string message = now.expectation_met()
                              ? absl::StrCat("regression: baseline ", TrialsText(*entry.baseline), ", now ", got)
                              : absl::StrCat("expected ", expected, ", got ", got);
    const std::string& signature = now.expectation_met() ? now.first_failure_signature : now.first_unmet_signature;
    if (!signature.empty() && got.find(signature) == std::string::npos) absl::StrAppend(&message, ": ", signature);
    std::string body = message;
    if (!now.expectation_met() && regression) absl::StrAppend(&body, "\nregression: baseline ", TrialsText(*entry.baseline));
    absl::StrAppend(&inner, "      <failure message=\"", Escape(message, true), "\" type=\"",
                    regression && now.expectation_met() ? "regression" : std::string(OutcomeName(now.worst)),
                    "\">", Escape(body, false), "</failure>\n");
  } else if (perf_failure) {
    out.failure = true;
    const std::string message = absl::StrCat("perf regression: ", PerfRegressionText(entry));
    absl::StrAppend(&inner, "      <failure message=\"", Escape(message, true),
                    "\" type=\"perf regression\">", Escape(message, false), "</failure>\n");
  } else if (now.worst == Outcome::kSkip) {
    out.skipped = true;
    absl::StrAppend(&inner, "      <skipped message=\"", Escape(now.skip_reason, true), "\"/>\n");
  }
  std::string notes;
  if (!out.failure && !out.error && now.worst != Outcome::kPass && now.worst != Outcome::kSkip) {
    notes = absl::StrCat("expected ", expected, " and got ", got);
    if (!now.expected.reason.empty()) absl::StrAppend(&notes, "\nreason: ", now.expected.reason);
  }
  if (now.trials > 1 || ((out.failure || out.error) && !trials.empty()) || !notes.empty()) {
    std::string lines = TrialLines(trials);
    if (!notes.empty() && !lines.empty()) notes += "\n";
    notes += lines;
  }
  if (!notes.empty()) absl::StrAppend(&inner, "      <system-out>", Escape(notes, false), "</system-out>\n");
  if (inner.empty()) {
    out.xml += "/>\n";
  } else {
    absl::StrAppend(&out.xml, ">\n", inner, "    </testcase>\n");
  }
  return out;
}

}  // namespace

std::string RenderJUnit(const std::vector<Record>& records, const std::string& suite_name,
                        const Comparison* comparison) {
  Comparison own;
  if (comparison == nullptr) {
    own = CompareResults(records, nullptr);
    comparison = &own;
  }
  std::map<PointKey, std::vector<const Record*>> trials_of;
  for (const Record& r : records) trials_of[PointKey{CellKey(r.cell), r.point}].push_back(&r);
  const std::string matrix = suite_name == kPlainRunSuite ? "" : suite_name;
  int tests = 0, failures = 0, errors = 0, skipped = 0;
  double total_s = 0;
  std::string cases;
  for (const PointComparison& entry : comparison->points) {
    if (!entry.now) continue;  // vanished: only the baseline has it
    const std::vector<const Record*>& trials = trials_of[entry.key];
    for (const Record* r : trials) total_s += r->duration_s > 0 ? r->duration_s : 0;
    Testcase testcase = RenderTestcase(entry, trials, matrix, comparison->perf_options.warn_only);
    ++tests;
    failures += testcase.failure;
    errors += testcase.error;
    skipped += testcase.skipped;
    cases += testcase.xml;
  }
  // junit-10.xsd allows `skipped` on <testsuite> only, not on <testsuites>.
  const std::string counts =
      absl::StrCat("tests=\"", tests, "\" failures=\"", failures, "\" errors=\"", errors, "\"");
  const std::string time = absl::StrCat("time=\"", Seconds(total_s), "\"");
  const std::string name = Escape(suite_name, true);
  return absl::StrCat("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", "<testsuites name=\"", name, "\" ",
                      counts, " ", time, ">\n", "  <testsuite name=\"", name, "\" ", counts,
                      " skipped=\"", skipped, "\" ", time, ">\n", cases, "  </testsuite>\n</testsuites>\n");
}

}  // namespace gh
