// What every report shows of a point that did not meet its expectation, regressed, or failed as
// expected: the failing trial's ranks that did not pass, each with its step, its signature, its
// last output lines (a Python traceback, from kind exec's record) or its stack, and a link to its
// full log; and the log of the job that ran it. Built once here from the comparison
// (PointTrials::evidence) and the results directory (run_logs.h); the console, summary.md,
// report.html and junit.xml only render it.
#ifndef GPUHARNESS_REPORT_EVIDENCE_H_
#define GPUHARNESS_REPORT_EVIDENCE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "harness/core/comparison.h"
#include "harness/report/run_logs.h"

namespace gh {

// Ranks that ended one way, with what they left.
struct RankEvidence {
  std::vector<int> ranks;
  std::string where;            // "rank 1 on node-a, gpu 3", "ranks 0,2 on node-a"
  Outcome outcome = Outcome::kFail;
  std::string step;             // where the ranks were ("exec", "exchange"); may be ""
  std::string signature;        // the ranks' own signature
  std::string detail;           // the wrong element: "1 of 1024 elements wrong; first at 512: ..."
  // "output" (the command's last lines), "stack" (frames, innermost first) or "" for none.
  std::string lines_kind;
  std::string lines_note;       // the stack's note: where it came from, how it was cut
  std::vector<std::string> lines;
  std::vector<std::string> logs;  // per rank of `ranks`: its log relative to DIR, "" for none

  // "rank 1 on node-a: error in exec: RuntimeError: ..." (the signature left out when
  // `with_signature` is false).
  std::string Headline(bool with_signature = true) const;
};

struct PointEvidence {
  std::string trial;               // "trial 2 of 3"; "" for a point run once
  std::vector<RankEvidence> ranks;
  std::string job_log;             // relative to DIR; "" for none
  bool empty() const { return ranks.empty() && job_log.empty(); }
};

// The evidence of `point` (empty when no trial failed). `logs` null: no links.
PointEvidence CollectEvidence(const PointTrials& point, const RunLogs* logs);

// At most `max_lines` of `evidence.lines` to show (max_lines >= 3). Output starts at a Python
// traceback's first line when there is one; longer output keeps its first lines and its last
// (the exception), a stack its innermost frames, with one "... N more lines ..." between or after.
std::vector<std::string> EvidenceExcerpt(const RankEvidence& evidence, size_t max_lines);

// The one line that stands for the lines an excerpt left out.
std::string OmittedLinesText(size_t omitted);

// `path_in_results` (relative to DIR) as seen from `reports_dir`, where the reports are written:
// the path itself when they are DIR, else a relative path that climbs to it.
std::string PathFromReports(const std::string& results_dir, const std::string& reports_dir,
                            const std::string& path_in_results);

// A relative path as a URL path: each byte outside letters, digits and "-._~/=,+" percent-encoded,
// so a link works from the directory opened as files or served over HTTP.
std::string UrlPath(const std::string& path);

}  // namespace gh

#endif  // GPUHARNESS_REPORT_EVIDENCE_H_
