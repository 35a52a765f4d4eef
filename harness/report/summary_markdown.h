// summary.md: a markdown report ready to paste into a GitHub issue. Title and headline counts,
// then what needs attention (cells not run, unmet expectations, regressions, fixes, changed
// signatures, new and vanished points), then per scenario a table in the seeds' shape (rows:
// versions or flag sets; columns: swept parameters) and its headline metric, then the
// Environment. GFM tables; text from records is escaped so it cannot break a table.
#ifndef GPUHARNESS_REPORT_SUMMARY_MARKDOWN_H_
#define GPUHARNESS_REPORT_SUMMARY_MARKDOWN_H_

#include <string>
#include <string_view>

#include "harness/report/report_input.h"

namespace gh {

std::string RenderSummaryMarkdown(const ReportInput& input);

// Text made safe for one GFM table cell: '\' and '|' backslash-escaped, '<' '>' as entities,
// line breaks as spaces.
std::string EscapeMarkdownCell(std::string_view text);

}  // namespace gh

#endif  // GPUHARNESS_REPORT_SUMMARY_MARKDOWN_H_
