// What the reports say about metrics compared with the baseline (core/perf_comparison.h): one
// table both summary.md and report.html show, the charts report.html draws (inline SVG, no
// script), and the text console lines and JUnit failures carry.
#ifndef GPUHARNESS_REPORT_PERF_REPORT_H_
#define GPUHARNESS_REPORT_PERF_REPORT_H_

#include <string>

#include "harness/core/comparison.h"
#include "harness/report/report_sections.h"
#include "harness/report/sweep_info.h"

namespace gh {

// "time_median_us slower by 10.2 % (95 % CI 9.8–10.6 %); bandwidth_GBps slower by ..." for the
// entry's slower metrics; "" when none is.
std::string PerfRegressionText(const PointComparison& entry);

// "Performance vs baseline": a row per compared metric that got slower or faster and per key
// whose metrics do not compare (cell, point, metric, baseline, now, change), slower first.
// No rows without a baseline or when nothing changed.
ReportSection PerfSection(const Comparison& comparison, const SweepInfo* sweep);

// One chart per compared metric: per point, now's median over the baseline's with its
// interval, against 1 and the practical threshold's band. "" when nothing was compared.
std::string PerfChartsHtml(const Comparison& comparison);

}  // namespace gh

#endif  // GPUHARNESS_REPORT_PERF_REPORT_H_
