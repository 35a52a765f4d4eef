#include "harness/report/report_sections.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/core/nccl_inspector_view.h"
#include "harness/report/perf_report.h"
#include "harness/report/result_matrix.h"

namespace gh {
namespace {

using Columns = std::function<std::vector<std::string>(const PointComparison&)>;

std::string CellOf(const PointComparison& entry, const SweepInfo* sweep) {
  const PointTrials& trials = entry.now ? *entry.now : *entry.baseline;
  std::string label = CellDisplayLabel(trials.cell, sweep);
  return label.empty() ? "-" : label;
}

// The section of the entries `select` keeps: cell, point, then `columns`.
ReportSection EntrySection(std::string title, const Comparison& comparison, const SweepInfo* sweep,
                           const std::function<bool(const PointComparison&)>& select,
                           const std::vector<std::string>& headers, const Columns& columns) {
  ReportSection section{std::move(title), {"cell", "point"}, {}, {}};
  section.headers.insert(section.headers.end(), headers.begin(), headers.end());
  for (const PointComparison& entry : comparison.points) {
    if (!select(entry)) continue;
    std::vector<std::string> row = {CellOf(entry, sweep), entry.key.point};
    for (std::string& value : columns(entry)) row.push_back(std::move(value));
    section.rows.push_back(std::move(row));
    section.entries.push_back(&entry);
  }
  return section;
}

// What an entry shows as its signature: the unmet trial's when its expectation is unmet.
std::string EntrySignature(const PointComparison& e) {
  return e.now->expectation_met() ? TrialsSignature(*e.now) : e.now->first_unmet_signature;
}

}  // namespace

std::string TrialsSignature(const PointTrials& trials) {
  if (trials.failed > 0) return trials.first_failure_signature;
  if (trials.skipped > 0) return trials.skip_reason;
  return "";
}

AttentionOf ClassifyAttention(const PointComparison& entry, bool has_baseline) {
  if (!entry.now) return {};
  const PointTrials& now = *entry.now;
  const bool failing = now.worst != Outcome::kPass && now.worst != Outcome::kSkip;
  if (now.worst == Outcome::kInfra) return {Attention::kChanged, "not run (infrastructure)"};
  if (entry.change == BaselineChange::kRegression) return {Attention::kChanged, "regression"};
  if (!now.expectation_met()) {
    if (!has_baseline) return {Attention::kChanged, "unmet expectation"};
    if (!entry.baseline) return {Attention::kChanged, "new point"};
    if (entry.baseline->expectation_met()) return {Attention::kChanged, "new failure"};
    if (entry.change == BaselineChange::kChangedSignature) {
      return {Attention::kChanged, "failing differently than in the baseline"};
    }
    return {Attention::kKnown, "failing in the baseline too"};
  }
  if (failing && now.known_failure && now.expected.known.has_value()) {
    return {Attention::kKnown, absl::StrCat("upstream, ", now.expected.known->ToString())};
  }
  if (now.fixed_upstream) {
    return {Attention::kFixed, absl::StrCat("fixed upstream: ", now.expected.known->reference)};
  }
  if (failing) {
    return {Attention::kKnown,
            now.expected.reason.empty() ? "expected" : absl::StrCat("expected: ", now.expected.reason)};
  }
  if (entry.change == BaselineChange::kFix) return {Attention::kFixed, "fixed"};
  return {};
}

namespace {

// Cut to `max` characters, "..." marking the cut.
std::string Clip(const std::string& text, size_t max) {
  return text.size() <= max ? text : text.substr(0, max - 3) + "...";
}

// The cells a sweep did not finish (running when stopped, set-up failed, pending).
ReportSection NotRunSection(const SweepInfo& sweep, size_t max_text_chars) {
  ReportSection not_run{"Cells not run", {"cell", "status", "detail"}, {}, {}};
  for (const SweepCellInfo& cell : sweep.cells) {
    if (cell.status.empty() || cell.status == "done") continue;
    not_run.rows.push_back({CellDisplayLabel(cell.axes, &sweep), cell.status, Clip(cell.detail, max_text_chars)});
    not_run.entries.push_back(nullptr);
  }
  return not_run;
}

// Known failures still unmet (they fail the run, as in the baseline) before those expected.
void PutUnmetFirst(ReportSection& known) {
  std::vector<size_t> order(known.rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_partition(order.begin(), order.end(), [&](size_t i) { return !known.entries[i]->expectation_met(); });
  ReportSection sorted = known;
  for (size_t i = 0; i < order.size(); ++i) {
    sorted.rows[i] = known.rows[order[i]];
    sorted.entries[i] = known.entries[order[i]];
  }
  known = std::move(sorted);
}

// Timeouts explained: each rank's place, where the ranks parted, NCCL's own view (its first
// line: the full report is in the record), and the Inspector's column when some hang has one.
ReportSection HangsSection(const Comparison& comparison, const SweepInfo* sweep, size_t max_text_chars) {
  bool any_inspector_hang = false;
  for (const PointComparison& e : comparison.points) {
    any_inspector_hang = any_inspector_hang ||
                         (e.now && e.now->first_hang_trial >= 0 && !e.now->first_hang.nccl_inspector.empty());
  }
  std::vector<std::string> hang_headers = {"trial", "ranks", "divergence", "NCCL RAS"};
  if (any_inspector_hang) hang_headers.push_back("NCCL Inspector");
  return EntrySection(
      "Hangs", comparison, sweep, [](const PointComparison& e) { return e.now && e.now->first_hang_trial >= 0; },
      hang_headers, [&](const PointComparison& e) {
        const HangReport& hang = e.now->first_hang;
        const std::string ras = hang.nccl_ras.substr(0, hang.nccl_ras.find('\n'));
        std::vector<std::string> row{absl::StrCat(e.now->first_hang_trial + 1, "/", e.now->trials),
                                     Clip(absl::StrJoin(hang.summary, "; "), max_text_chars),
                                     Clip(hang.divergence, max_text_chars), Clip(ras, max_text_chars)};
        if (any_inspector_hang) row.push_back(Clip(hang.nccl_inspector, max_text_chars));
        return row;
      });
}

}  // namespace

std::vector<ReportSection> AttentionSections(const Comparison& comparison, const SweepInfo* sweep,
                                             size_t max_text_chars) {
  auto clip = [max_text_chars](const std::string& text) { return Clip(text, max_text_chars); };
  auto in_group = [&](Attention group) {
    return [&comparison, group](const PointComparison& e) {
      return ClassifyAttention(e, comparison.has_baseline).group == group;
    };
  };
  std::vector<ReportSection> sections;
  if (comparison.has_baseline) {
    sections.push_back(EntrySection(
        "Regressions and new failures", comparison, sweep, in_group(Attention::kChanged),
        {"change", "expected", "baseline", "now", "signature"}, [&](const PointComparison& e) {
          return std::vector<std::string>{ClassifyAttention(e, true).why, e.now->expected.ToString(),
                                          e.baseline ? TrialsText(*e.baseline) : "-", TrialsText(*e.now),
                                          clip(EntrySignature(e))};
        }));
  } else {
    sections.push_back(EntrySection("Unmet expectations", comparison, sweep, in_group(Attention::kChanged),
                                    {"expected", "got", "signature"}, [&](const PointComparison& e) {
                                      return std::vector<std::string>{e.now->expected.ToString(), TrialsText(*e.now),
                                                                      clip(EntrySignature(e))};
                                    }));
  }
  sections.back().with_evidence = sections.back().evidence_open = true;
  sections.push_back(PerfSection(comparison, sweep));
  if (sweep != nullptr) sections.push_back(NotRunSection(*sweep, max_text_chars));
  sections.push_back(EntrySection("Known failures", comparison, sweep, in_group(Attention::kKnown),
                                  {"why", "now", "signature"}, [&](const PointComparison& e) {
                                    return std::vector<std::string>{ClassifyAttention(e, comparison.has_baseline).why,
                                                                    TrialsText(*e.now), clip(EntrySignature(e))};
                                  }));
  sections.back().with_evidence = true;
  PutUnmetFirst(sections.back());
  auto change_is = [](BaselineChange change) {
    return [change](const PointComparison& e) { return e.change == change; };
  };
  auto before_after = [&](const PointComparison& e) {
    return std::vector<std::string>{TrialsText(*e.baseline), TrialsText(*e.now),
                                    clip(TrialsSignature(*e.now))};
  };
  sections.push_back(EntrySection("Fixes", comparison, sweep, change_is(BaselineChange::kFix),
                                  {"baseline", "now"}, [](const PointComparison& e) {
                                    return std::vector<std::string>{TrialsText(*e.baseline),
                                                                    TrialsText(*e.now)};
                                  }));
  sections.push_back(EntrySection("Fixed upstream", comparison, sweep,
                                  [](const PointComparison& e) { return e.now && e.now->fixed_upstream; },
                                  {"known issue", "versions", "now"}, [](const PointComparison& e) {
                                    return std::vector<std::string>{e.now->expected.known->reference,
                                                                    e.now->expected.known->VersionsText(),
                                                                    TrialsText(*e.now)};
                                  }));
  sections.push_back(EntrySection(
      "Changed signatures", comparison, sweep,
      [&](const PointComparison& e) {
        return e.change == BaselineChange::kChangedSignature &&
               ClassifyAttention(e, comparison.has_baseline).group != Attention::kChanged;
      },
      {"baseline", "now", "signature"}, before_after));
  sections.push_back(EntrySection("New points", comparison, sweep, change_is(BaselineChange::kNew),
                                  {"now"}, [](const PointComparison& e) {
                                    return std::vector<std::string>{TrialsText(*e.now)};
                                  }));
  sections.push_back(EntrySection("Vanished points", comparison, sweep,
                                  change_is(BaselineChange::kVanished), {"baseline"},
                                  [](const PointComparison& e) {
                                    return std::vector<std::string>{TrialsText(*e.baseline)};
                                  }));
  sections.push_back(HangsSection(comparison, sweep, max_text_chars));
  // Per-collective timings of the points that ran under NCCL's Inspector, kept to a few words.
  sections.push_back(EntrySection(
      "NCCL Inspector", comparison, sweep,
      [](const PointComparison& e) { return e.now && !e.now->nccl_inspector.empty(); },
      {"collectives", "note"}, [&](const PointComparison& e) {
        const NcclInspectorView& view = e.now->nccl_inspector;
        return std::vector<std::string>{
            view.collectives.empty() ? "-" : clip(InspectorCollectivesText(view, 3)),
            view.note.empty() ? "-" : clip(view.note)};
      }));
  std::erase_if(sections, [](const ReportSection& s) { return s.rows.empty(); });
  return sections;
}

}  // namespace gh
