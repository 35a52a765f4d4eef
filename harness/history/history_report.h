// `history report --out FILE.html`: one self-contained page (no scripts, no external files).
// It leads with what a nightly reader asks: what is broken now and since which night, what
// changed on the latest night, what is flaky and how often (history_findings.h); then every
// point night by night, each night's verdict a letter in a coloured box (colour is never the
// only cue: letters, a frame for unmet expectations, stripes for expected failures), and each
// point's metric trends behind a disclosure, numbers to three significant digits.
#ifndef GPUHARNESS_HISTORY_HISTORY_REPORT_H_
#define GPUHARNESS_HISTORY_HISTORY_REPORT_H_

#include <string>
#include <vector>

#include "harness/history/history_queries.h"

namespace gh {

std::string RenderHistoryHtml(const std::vector<std::string>& nights, const std::vector<PointHistory>& histories);

}  // namespace gh

#endif  // GPUHARNESS_HISTORY_HISTORY_REPORT_H_
