// The layout both summary.md and report.html use: per scenario, a table in the shape bug reports
// use (see ../shared/seeds): rows = sweep cells (their axis labels: versions, flag sets), columns
// = the swept point parameters, each entry one key's aggregated trials ("pass",
// "FAILED_PRECONDITION", "9/10 failed (9 swallowed, 1 crash (SIGSEGV))", "skip: <reason>").
#ifndef GPUHARNESS_REPORT_RESULT_MATRIX_H_
#define GPUHARNESS_REPORT_RESULT_MATRIX_H_

#include <map>
#include <string>
#include <vector>

#include "harness/core/comparison.h"
#include "harness/report/sweep_info.h"

namespace gh {

// Above this many column combinations, only the swept parameter with the most values stays in
// the columns; the other swept parameters move into the rows (tables stay pasteable).
inline constexpr size_t kMaxMatrixColumns = 8;

struct MatrixRow {
  std::string cell_key;                          // CellKey of the row's cell
  std::vector<std::string> labels;               // one per ScenarioMatrix::row_headers
  std::vector<const PointComparison*> entries;   // one per column; null where not run
};

struct ScenarioMatrix {
  std::string scenario;
  std::string kind;
  std::vector<std::string> row_headers;     // cell axis names, then point parameters in rows
  std::vector<std::string> column_params;   // point parameters spread over the columns
  std::vector<std::string> columns;         // "bytes=4K" or "bytes=4K, dtype=f32"; "result" if none
  // Per column, the value of each column parameter as written in point names.
  std::vector<std::vector<std::string>> column_values;
  std::vector<MatrixRow> rows;
};

// Scenarios in order of their first record. Rows follow the sweep's cell order (when given),
// then the order records appeared in. Vanished keys (baseline only) appear in no matrix.
std::vector<ScenarioMatrix> BuildScenarioMatrices(const Comparison& comparison,
                                                  const SweepInfo* sweep);

// "ll / 2.28.9": the cell's labels in the sweep's axis order (sorted by axis name without
// one); "" for a plain run.
std::string CellDisplayLabel(const std::map<std::string, std::string>& cell, const SweepInfo* sweep);

// "Matrix matrices/x.yaml: 4 cells, proto (2) × nccl (2)": what the sweep ran, for the reader.
std::string SweepShape(const SweepInfo& sweep);

// The aggregated trials as a table entry, e.g. "pass", "FAILED_PRECONDITION", "0/10 failed",
// "9/10 failed (9 swallowed, 1 crash (SIGSEGV))", "skip: no GPU".
std::string TrialsText(const PointTrials& trials);

// What the comparison adds to an entry: "regression", "fixed", "was <baseline text>",
// "unexpected" (expectation unmet), or "".
std::string EntryAnnotation(const PointComparison& entry);

// A CSS-friendly class for colouring: "pass", "skip", "fail", "error", "timeout", "crash",
// "flaky" (some trials failed, some passed).
std::string EntryClass(const PointTrials& trials);

// The headline metric a scenario's tables show: "bandwidth_GBps" when any point has it, else
// "time_median_us", else "".
std::string HeadlineMetricName(const ScenarioMatrix& matrix);
std::string FormatMetric(const Metric& metric);  // "361 GB/s", "15.9 us", "1.25 GB/s", "0.00312 GB/s"

}  // namespace gh

#endif  // GPUHARNESS_REPORT_RESULT_MATRIX_H_
