// report.html: one self-contained page (inline CSS and SVG, no scripts, nothing fetched at view
// time): headline, what needs attention (unmet expectations, regressions, fixes, changed
// signatures, new and vanished points), per scenario a pass/fail heatmap over the matrix
// (cells × points, coloured by outcome, the signature in each entry's tooltip) and a plot of the
// headline metric against the swept size, one series per row; then the environment.
#ifndef GPUHARNESS_REPORT_REPORT_HTML_H_
#define GPUHARNESS_REPORT_REPORT_HTML_H_

#include <string>
#include <string_view>

#include "harness/report/evidence.h"
#include "harness/report/report_input.h"

namespace gh {

std::string RenderReportHtml(const ReportInput& input);

// &, <, >, " and ' as entities: safe in element text and in quoted attributes.
std::string EscapeHtml(std::string_view text);

// `<a href="...">text</a>` to a file under the results directory (with class="CSS_CLASS" when
// one is given), "" when there is none. summary.md and report.html both link rank logs this way.
std::string LogLinkHtml(const ReportInput& input, const std::string& path, const std::string& text,
                        std::string_view css_class = "");

// " · <a>rank 1 log</a> · <a>rank 3 log</a>" for the ranks of `group` that kept a log.
std::string RankLogLinksHtml(const ReportInput& input, const RankEvidence& group, std::string_view css_class = "");

}  // namespace gh

#endif  // GPUHARNESS_REPORT_REPORT_HTML_H_
