#include "harness/report/junit.h"

#include <cstdio>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "harness/report/evidence.h"
#include "harness/report/failure_lines.h"
#include "harness/report/result_matrix.h"
#include "harness/report/perf_report.h"
#include "harness/report/report_sections.h"

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

// The lines of a failing rank's output a failure's body shows; <system-out> has them all.
constexpr size_t kMaxEvidenceLines = 24;

// Seconds to the microsecond, trailing zeros dropped down to the millisecond: a kernel point of
// 0.46 ms is "0.000461", not "0.000".
std::string Seconds(double seconds) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.6f", seconds >= 0 ? seconds : 0.0);
  std::string text = buffer;
  while (text.size() > 1 && text.back() == '0' && text.size() - text.find('.') > 4) text.pop_back();
  return text;
}

// A point's testcase name: the point, then its cell in brackets.
std::string TestName(const PointTrials& now, const ReportInput* report) {
  if (now.cell.empty()) return now.key.point;
  return absl::StrCat(now.key.point, " [", FailureCellName(now.cell, report ? report->sweep : nullptr), "]");
}

// What the point got, once: "error: RuntimeError: ..." for one trial, "3 trials, 2 failed (...):
// <first signature>" for several.
std::string GotText(const PointTrials& now, const std::string& signature) {
  if (now.trials == 1 && !now.judged_by_verdict) return OutcomeAndSignature(now.worst, signature);
  const std::string got = TrialsText(now);
  return signature.empty() || absl::StrContains(got, signature) ? got : absl::StrCat(got, ": ", signature);
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

// The evidence as a failure's body shows it: each group of ranks, its logs, its last lines; the
// job's log.
std::string FailureEvidenceText(const PointEvidence& evidence, const ReportInput& report) {
  std::string out;
  if (!evidence.trial.empty()) absl::StrAppend(&out, "\n", evidence.trial, ":");
  for (const RankEvidence& group : evidence.ranks) {
    absl::StrAppend(&out, "\n", group.Headline());
    for (size_t i = 0; i < group.ranks.size(); ++i) {
      if (!group.logs[i].empty()) absl::StrAppend(&out, "\n  rank ", group.ranks[i], " log: ", report.PathTo(group.logs[i]));
    }
    for (const std::string& line : EvidenceExcerpt(group, kMaxEvidenceLines)) absl::StrAppend(&out, "\n  | ", line);
  }
  if (!evidence.job_log.empty()) absl::StrAppend(&out, "\njob log: ", report.PathTo(evidence.job_log));
  return out;
}

// For <system-out>: every failing rank's output or stack as the record kept it, and the logs
// that hold the rest ("" when there is none of those).
std::string RecordedOutputText(const PointEvidence& evidence, const ReportInput& report) {
  std::string out;
  for (const RankEvidence& group : evidence.ranks) {
    std::vector<std::string> logs;
    for (size_t i = 0; i < group.ranks.size(); ++i) {
      if (!group.logs[i].empty()) logs.push_back(report.PathTo(group.logs[i]));
    }
    if (group.lines.empty() && logs.empty()) continue;
    absl::StrAppend(&out, "\n\n", group.lines_kind.empty() ? "log" : group.lines_kind, " of ", group.where);
    if (!group.lines_note.empty()) absl::StrAppend(&out, " (", group.lines_note, ")");
    if (!logs.empty()) absl::StrAppend(&out, ", log: ", absl::StrJoin(logs, " "));
    if (!group.lines.empty()) out += ":";
    for (const std::string& line : group.lines) absl::StrAppend(&out, "\n  | ", line);
  }
  if (!evidence.job_log.empty()) absl::StrAppend(&out, "\n\njob log: ", report.PathTo(evidence.job_log));
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
// expected or failed as its known upstream issue says (type "known failure", as pytest's xfail), else a plain testcase (a <failure type="perf regression"> when a metric got slower
// than the baseline's, unless warn-only); trials and the expectation a non-pass outcome met go to
// <system-out>.
Testcase RenderTestcase(const PointComparison& entry, const std::vector<const Record*>& trials,
                        const std::string& matrix, bool perf_warn_only, bool has_baseline,
                        const ReportInput* report) {
  const PointTrials& now = *entry.now;
  double seconds = 0;
  for (const Record* r : trials) seconds += r->duration_s > 0 ? r->duration_s : 0;
  Testcase out;
  absl::StrAppend(&out.xml, "    <testcase classname=\"", Escape(JUnitClassName(matrix, now.scenario), true),
                  "\" name=\"", Escape(TestName(now, report), true), "\" time=\"", Seconds(seconds), "\"");
  const std::string expected = now.expected.ToString();
  const bool regression = entry.change == BaselineChange::kRegression;
  const bool perf_failure = entry.perf_regressed() && !perf_warn_only;
  const PointEvidence evidence = report != nullptr ? CollectEvidence(now, report->logs) : PointEvidence{};
  std::string inner;
  if (now.worst == Outcome::kInfra) {
    out.error = true;
    const std::string message = absl::StrCat("not run (infrastructure): ", WithoutOutcomeName(now.worst, now.first_failure_signature));
    std::string body = message;
    if (report != nullptr) body += FailureEvidenceText(evidence, *report);
    absl::StrAppend(&inner, "      <error message=\"", Escape(message, true), "\" type=\"infra\">",
                    Escape(body, false), "</error>\n");
  } else if (!now.expectation_met() || regression) {
    out.failure = true;
    const std::string got =
        GotText(now, now.expectation_met() ? now.first_failure_signature : now.first_unmet_signature);
    // What changed leads the message: Jenkins shows it first ("regression: expected pass, got ...").
    const AttentionOf attention = ClassifyAttention(entry, has_baseline);
    std::string message = now.expectation_met()
                              ? absl::StrCat("regression: baseline ", TrialsText(*entry.baseline), ", now ", got)
                              : absl::StrCat("expected ", expected, ", got ", got);
    if (!now.expectation_met() && has_baseline) message = absl::StrCat(attention.why, ": ", message);
    std::string body = message;
    if (!now.expectation_met() && regression) absl::StrAppend(&body, "\nbaseline: ", TrialsText(*entry.baseline));
    if (report != nullptr) body += FailureEvidenceText(evidence, *report);
    absl::StrAppend(&inner, "      <failure message=\"", Escape(message, true), "\" type=\"",
                    regression && now.expectation_met() ? "regression" : std::string(OutcomeName(now.worst)),
                    "\">", Escape(body, false), "</failure>\n");
  } else if (perf_failure) {
    out.failure = true;
    const std::string message = absl::StrCat("perf regression: ", PerfRegressionText(entry));
    absl::StrAppend(&inner, "      <failure message=\"", Escape(message, true),
                    "\" type=\"perf regression\">", Escape(message, false), "</failure>\n");
  } else if (now.known_failure && now.expected.known.has_value()) {
    // As pytest writes an xfail: a known upstream failure neither fails nor passes.
    out.skipped = true;
    const std::string message = absl::StrCat("known failure: ", GotText(now, now.first_failure_signature), " (",
                                             now.expected.known->ToString(), ")");
    absl::StrAppend(&inner, "      <skipped type=\"known failure\" message=\"", Escape(message, true), "\"/>\n");
  } else if (now.worst == Outcome::kSkip) {
    out.skipped = true;
    absl::StrAppend(&inner, "      <skipped message=\"", Escape(now.skip_reason, true), "\"/>\n");
  }
  std::string notes;
  if (!out.failure && !out.error && now.worst != Outcome::kPass && now.worst != Outcome::kSkip) {
    notes = absl::StrCat("expected ", expected, " and got ", GotText(now, now.first_failure_signature));
    if (!now.expected.reason.empty()) absl::StrAppend(&notes, "\nreason: ", now.expected.reason);
  }
  if (now.fixed_upstream) {
    notes = absl::StrCat("fixed upstream: meets ", expected, " inside ", now.expected.known->VersionsText(),
                         " (known issue ", now.expected.known->reference, ")");
  }
  if (now.trials > 1 || ((out.failure || out.error) && !trials.empty()) || !notes.empty()) {
    std::string lines = TrialLines(trials);
    if (!notes.empty() && !lines.empty()) notes += "\n";
    notes += lines;
  }
  // Every failing rank's output as the record kept it, with the logs that hold the rest.
  if (report != nullptr && !notes.empty()) notes += RecordedOutputText(evidence, *report);
  if (!notes.empty()) absl::StrAppend(&inner, "      <system-out>", Escape(notes, false), "</system-out>\n");
  if (inner.empty()) {
    out.xml += "/>\n";
  } else {
    absl::StrAppend(&out.xml, ">\n", inner, "    </testcase>\n");
  }
  return out;
}

// <properties> of the suite: when, where, with which versions, and the baseline.
std::string SuiteProperties(const ReportInput& report) {
  std::vector<std::pair<std::string, std::string>> properties = {
      {"ran", report.facts.when}, {"hosts", absl::StrJoin(report.facts.hosts, ", ")},
      {"where", report.facts.where}, {"versions", report.facts.versions}, {"baseline", report.baseline},
      {"baseline not compared", report.baseline_problem}};
  std::string out;
  for (const auto& [name, value] : properties) {
    if (value.empty()) continue;
    absl::StrAppend(&out, "      <property name=\"", Escape(name, true), "\" value=\"", Escape(value, true), "\"/>\n");
  }
  return out.empty() ? "" : absl::StrCat("    <properties>\n", out, "    </properties>\n");
}

}  // namespace

std::string JUnitClassName(const std::string& matrix, const std::string& scenario) {
  std::string name = "gpuharness";
  for (const std::string* part : {&matrix, &scenario}) {
    if (!part->empty()) absl::StrAppend(&name, ".", absl::StrReplaceAll(*part, {{".", "_"}}));
  }
  return name;
}

std::string RenderJUnit(const std::vector<Record>& records, const std::string& suite_name,
                        const Comparison* comparison, const ReportInput* report) {
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
  // What changed first, then the known failures, the fixes, the rest: a reader of the file (or of
  // a CI log that prints it) meets the news first.
  std::vector<const PointComparison*> order;
  for (const PointComparison& entry : comparison->points) {
    if (entry.now) order.push_back(&entry);  // vanished: only the baseline has it
  }
  auto rank = [&](const PointComparison* e) {
    switch (ClassifyAttention(*e, comparison->has_baseline).group) {
      case Attention::kChanged: return 0;
      case Attention::kKnown: return e->expectation_met() ? 2 : 1;
      case Attention::kFixed: return 3;
      case Attention::kNone: return 4;
    }
    return 4;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](const PointComparison* a, const PointComparison* b) { return rank(a) < rank(b); });
  for (const PointComparison* entry : order) {
    const std::vector<const Record*>& trials = trials_of[entry->key];
    for (const Record* r : trials) total_s += r->duration_s > 0 ? r->duration_s : 0;
    Testcase testcase =
        RenderTestcase(*entry, trials, matrix, comparison->perf_options.warn_only, comparison->has_baseline, report);
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
  std::string where, properties;
  if (report != nullptr) {
    if (!report->facts.first_start.empty()) absl::StrAppend(&where, " timestamp=\"", Escape(report->facts.first_start, true), "\"");
    if (!report->facts.hosts.empty()) {
      absl::StrAppend(&where, " hostname=\"", Escape(absl::StrJoin(report->facts.hosts, ","), true), "\"");
    }
    properties = SuiteProperties(*report);
  }
  return absl::StrCat("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", "<testsuites name=\"", name, "\" ",
                      counts, " ", time, ">\n", "  <testsuite name=\"", name, "\" ", counts,
                      " skipped=\"", skipped, "\" ", time, where, ">\n", properties, cases,
                      "  </testsuite>\n</testsuites>\n");
}

}  // namespace gh
