#include "harness/report/failure_lines.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/core/trial_verdict.h"
#include "harness/report/evidence.h"
#include "harness/report/perf_report.h"
#include "harness/report/report_sections.h"

namespace gh {
namespace {

// Long enough for a signature's reason, short enough to stay one terminal line or two.
constexpr size_t kMaxDetailChars = 200;
// Each failing rank's last lines under its FAILED line: a glance, or with -v most of the record.
constexpr size_t kEvidenceLines = 4, kVerboseEvidenceLines = 40;
// Ranks that ended differently, each with its lines: the first few, or with -v all.
constexpr size_t kEvidenceGroups = 2;

// The evidence under a FAILED line: per group of ranks its headline and logs, its last lines;
// then the job's log. Paths as seen from where the command ran (DIR as the user named it).
std::vector<std::string> EvidenceLines(const PointTrials& now, const RunLogs* logs, bool verbose) {
  const PointEvidence evidence = CollectEvidence(now, logs);
  std::vector<std::string> out;
  auto shown = [&](const std::string& path) {
    return logs == nullptr || path.empty() ? path : absl::StrCat(logs->results_dir(), "/", path);
  };
  for (size_t g = 0; g < evidence.ranks.size(); ++g) {
    if (!verbose && g == kEvidenceGroups) {
      out.push_back(absl::StrCat("    ... ", evidence.ranks.size() - g, " more group(s) of ranks (-v shows them)"));
      break;
    }
    const RankEvidence& group = evidence.ranks[g];
    std::string line = absl::StrCat("    ", evidence.trial.empty() ? "" : absl::StrCat(evidence.trial, ", "),
                                    OneLineClipped(group.Headline(/*with_signature=*/g > 0), kMaxDetailChars));
    std::vector<std::string> kept;
    for (size_t i = 0; i < group.ranks.size(); ++i) {
      if (!group.logs[i].empty()) kept.push_back(shown(group.logs[i]));
    }
    if (!kept.empty()) absl::StrAppend(&line, " — log: ", absl::StrJoin(kept, " "));
    out.push_back(std::move(line));
    for (const std::string& text : EvidenceExcerpt(group, verbose ? kVerboseEvidenceLines : kEvidenceLines)) {
      out.push_back(absl::StrCat("    | ", OneLineClipped(text, kMaxDetailChars)));
    }
  }
  if (!evidence.job_log.empty()) out.push_back(absl::StrCat("    job log: ", shown(evidence.job_log)));
  return out;
}

std::string UnmetDetail(const PointTrials& now) {
  if (now.judged_by_verdict) {
    return absl::StrCat(RenderTrialSummary(now.trial_summary), "; expected ", now.expected.ToString(),
                        " by ", now.verdict.ToString());
  }
  return absl::StrCat(OutcomeAndSignature(now.worst, now.first_unmet_signature), " (expected ",
                      now.expected.ToString(), ")");
}

std::string RegressionDetail(const PointTrials& now) {
  const std::string what = now.judged_by_verdict
                               ? RenderTrialSummary(now.trial_summary)
                               : OutcomeAndSignature(now.worst, now.first_failure_signature);
  return absl::StrCat(what, " (a regression: it passed in the baseline)");
}

// What a met key shows with verbose.
FailureLine MetLine(const PointTrials& now) {
  FailureLine line;
  line.outcome = now.worst;
  if (now.worst == Outcome::kPass) {
    line.word = "PASSED";
  } else if (now.worst == Outcome::kSkip) {
    line.word = "SKIPPED";
    line.detail = now.skip_reason;
  } else {
    line.word = "XFAIL";  // pytest's word for a failure that was expected
    line.detail = now.judged_by_verdict ? UnmetDetail(now)
                                        : absl::StrCat(OutcomeAndSignature(now.worst, now.first_failure_signature),
                                                       " (expected ", now.expected.ToString(), ")");
  }
  return line;
}

}  // namespace

std::string WithoutOutcomeName(Outcome outcome, const std::string& signature) {
  std::vector<std::string> names = {std::string(OutcomeName(outcome)) + ": "};
  if (outcome == Outcome::kInfra) names.push_back("infrastructure: ");
  for (const std::string& name : names) {
    if (absl::StartsWith(signature, name)) return signature.substr(name.size());
  }
  return signature;
}

std::string OutcomeAndSignature(Outcome outcome, const std::string& signature) {
  const std::string name(OutcomeName(outcome));
  const std::string rest = WithoutOutcomeName(outcome, signature);
  if (rest.empty() || rest == name || signature == name) return name;
  return absl::StrCat(name, ": ", rest);
}

int FailureImportance(const FailureLine& line) {
  if (line.infrastructure) return 0;
  switch (line.outcome) {
    case Outcome::kCrash: return 1;
    case Outcome::kTimeout: return 2;
    case Outcome::kError: return 3;
    case Outcome::kFail: return 4;
    case Outcome::kPass: return 5;
    case Outcome::kSkip: return 6;
    default: return 0;  // an outcome this file does not know yet: shown first, never lost
  }
}

std::string FailureCellName(const std::map<std::string, std::string>& cell, const SweepInfo* sweep) {
  if (sweep == nullptr) return CellKey(cell);
  std::vector<std::string> parts;
  std::map<std::string, std::string> rest = cell;
  for (const SweepAxisInfo& axis : sweep->axes) {
    auto it = rest.find(axis.name);
    if (it == rest.end()) continue;
    parts.push_back(absl::StrCat(it->first, "=", it->second));
    rest.erase(it);
  }
  for (const auto& [axis, label] : rest) parts.push_back(absl::StrCat(axis, "=", label));
  return absl::StrJoin(parts, ",");
}

std::vector<FailureLine> ComparisonFailureLines(const Comparison& comparison, const SweepInfo* sweep,
                                                bool verbose, const RunLogs* logs) {
  std::vector<FailureLine> failed, met;
  for (const PointComparison& entry : comparison.points) {
    if (!entry.now) continue;  // vanished: nothing ran to fail
    const PointTrials& now = *entry.now;
    const bool regression = entry.change == BaselineChange::kRegression;
    FailureLine line;
    if (!now.expectation_met()) {
      line.outcome = now.worst;
      line.detail = UnmetDetail(now);
      if (regression) absl::StrAppend(&line.detail, "; a regression against the baseline");
      line.known = ClassifyAttention(entry, comparison.has_baseline).group == Attention::kKnown;
      if (line.known) absl::StrAppend(&line.detail, "; failing in the baseline too");
    } else if (regression) {
      line.outcome = now.worst;
      line.detail = RegressionDetail(now);
    } else if (entry.perf_regressed()) {
      line.outcome = now.worst;
      line.detail = absl::StrCat(PerfRegressionText(entry), " vs the baseline",
                                 comparison.perf_options.warn_only ? " (warn only)" : "");
      if (comparison.perf_options.warn_only) line.word = "WARNING";
    } else if (now.known_failure && now.expected.known.has_value()) {
      line.word = "KNOWN";
      line.outcome = now.worst;
      line.detail = absl::StrCat(OutcomeAndSignature(now.worst, now.first_failure_signature), " (",
                                 now.expected.known->ToString(), ")");
    } else if (now.fixed_upstream) {
      line.word = "FIXED UPSTREAM";
      line.outcome = now.worst;
      line.detail = absl::StrCat("meets ", now.expected.ToString(), " inside ", now.expected.known->VersionsText(),
                                 ": update the known issue ", now.expected.known->reference);
    } else if (verbose) {
      line = MetLine(now);
    } else {
      continue;
    }
    line.cell = FailureCellName(now.cell, sweep);
    line.point = now.key.point;
    line.infrastructure = now.worst == Outcome::kInfra;
    if (line.word == "FAILED") line.evidence = EvidenceLines(now, logs, verbose);
    (line.word == "FAILED" ? failed : met).push_back(std::move(line));
  }
  failed.insert(failed.end(), std::make_move_iterator(met.begin()), std::make_move_iterator(met.end()));
  return failed;
}

std::string OneLineClipped(const std::string& text, size_t limit) {
  std::string out;
  size_t points = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const bool starts_point = (c & 0xC0) != 0x80;
    if (starts_point && points == limit) {
      // Cut: make room for "..." without splitting a code point.
      size_t keep = out.size(), dropped = 0;
      while (keep > 0 && dropped < 3) {
        --keep;
        if ((static_cast<unsigned char>(out[keep]) & 0xC0) != 0x80) ++dropped;
      }
      return out.substr(0, keep) + "...";
    }
    if (starts_point) ++points;
    out += (c < 0x20 || c == 0x7F) ? ' ' : text[i];
  }
  return out;
}

std::string RenderFailureLines(std::vector<FailureLine> lines, const ConsoleStyle& style) {
  auto failed_end = std::stable_partition(lines.begin(), lines.end(),
                                          [](const FailureLine& l) { return l.word == "FAILED"; });
  std::stable_sort(lines.begin(), failed_end, [](const FailureLine& a, const FailureLine& b) {
    return std::make_pair(a.known, FailureImportance(a)) < std::make_pair(b.known, FailureImportance(b));
  });
  std::string out;
  for (const FailureLine& line : lines) {
    const std::string word = line.word == "FAILED"   ? style.Red(line.word)
                             : line.word == "PASSED" ? style.Green(line.word)
                                                     : line.word;
    absl::StrAppend(&out, word, " ", OneLineClipped(line.cell, kMaxDetailChars),
                    line.cell.empty() ? "" : " :: ", OneLineClipped(line.point, kMaxDetailChars));
    if (!line.detail.empty()) absl::StrAppend(&out, " — ", OneLineClipped(line.detail, kMaxDetailChars));
    out += "\n";
    for (const std::string& evidence : line.evidence) absl::StrAppend(&out, evidence, "\n");
  }
  return out;
}

}  // namespace gh
