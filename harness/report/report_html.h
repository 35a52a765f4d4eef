// report.html: one self-contained page (inline CSS and SVG, no scripts, nothing fetched at view
// time): headline, what needs attention (unmet expectations, regressions, fixes, changed
// signatures, new and vanished points), per scenario a pass/fail heatmap over the matrix
// (cells × points, coloured by outcome, the signature in each entry's tooltip) and a plot of the
// headline metric against the swept size, one series per row; then the environment.
#ifndef GPUHARNESS_REPORT_REPORT_HTML_H_
#define GPUHARNESS_REPORT_REPORT_HTML_H_

#include <string>
#include <string_view>

#include "harness/report/report_input.h"

namespace gh {

std::string RenderReportHtml(const ReportInput& input);

// &, <, >, " and ' as entities: safe in element text and in quoted attributes.
std::string EscapeHtml(std::string_view text);

}  // namespace gh

#endif  // GPUHARNESS_REPORT_REPORT_HTML_H_
