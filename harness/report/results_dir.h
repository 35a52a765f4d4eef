// A results directory as `gpuharness run --out DIR` or `gpuharness sweep --out DIR` leaves it:
// DIR/records.jsonl (required), DIR/sweep.json (sweeps), DIR/environment.json and
// DIR/planned.runs (plain runs) and DIR/cells/<cell>/environment.json (each sweep cell's job).
#ifndef GPUHARNESS_REPORT_RESULTS_DIR_H_
#define GPUHARNESS_REPORT_RESULTS_DIR_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/record.h"
#include "harness/core/run_list.h"
#include "harness/report/environment_table.h"
#include "harness/report/sweep_info.h"

namespace gh {

struct ResultsDir {
  std::string path;
  std::vector<Record> records;
  int torn_lines = 0;                 // a killed writer's partial last line, skipped
  std::optional<SweepInfo> sweep;     // from sweep.json when present
  std::vector<LabeledEnvironment> environments;  // DIR's own first, then cells in sweep order
  // Every run a plain run planned (DIR/planned.runs), when it wrote the file.
  std::optional<std::vector<RunKey>> planned;
  // The planned runs without a record: the job ended before them (a crash, a kill).
  std::vector<RunKey> UnrecordedPlannedRuns() const;
};

// Reads a results directory. Every problem is InvalidArgument naming the path (and for JSON
// "path:line:column"): DIR missing or not a directory, no records.jsonl, a malformed record,
// malformed sweep.json, environment.json or planned.runs.
absl::StatusOr<ResultsDir> LoadResultsDir(const std::string& dir);

// Parses JSON text; a syntax error is InvalidArgument "<display_name>:<line>:<column>: ...".
absl::StatusOr<nlohmann::json> ParseJsonText(const std::string& text, const std::string& display_name);

// The baseline directory as reports name it, never an absolute machine path: relative to the
// reports' directory `results_dir` ("../2026-11-28") when it is at most two levels up from it,
// else its own name ("2026-11-28"). "" stays "".
std::string BaselineDisplayPath(const std::string& baseline_dir, const std::string& results_dir);

}  // namespace gh

#endif  // GPUHARNESS_REPORT_RESULTS_DIR_H_
