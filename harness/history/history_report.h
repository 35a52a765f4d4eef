// `history report --out FILE.html`: one self-contained page (no scripts, no external files):
// per point, its verdict strip over the nights and each metric's trend as an inline SVG line.
#ifndef GPUHARNESS_HISTORY_HISTORY_REPORT_H_
#define GPUHARNESS_HISTORY_HISTORY_REPORT_H_

#include <string>
#include <vector>

#include "harness/history/history_queries.h"

namespace gh {

std::string RenderHistoryHtml(const std::vector<std::string>& nights, const std::vector<PointHistory>& histories);

}  // namespace gh

#endif  // GPUHARNESS_HISTORY_HISTORY_REPORT_H_
