// `history ingest DIR`: the records of a sweep, bisect or night directory into the database,
// all in one transaction. An ingested results directory (a source) holds exactly what its
// records.jsonl holds now: a record already there (same night, kind, matrix, cell, point,
// version, trial and start time) is not added again, so re-ingesting a resumed sweep adds only
// what is new, and a record the file no longer holds (a point `sweep --rerun-failed` ran again
// replaces its earlier records) is removed with its metrics.
#ifndef GPUHARNESS_HISTORY_HISTORY_INGEST_H_
#define GPUHARNESS_HISTORY_HISTORY_INGEST_H_

#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/record.h"
#include "harness/history/history_db.h"

namespace gh {

// One results directory to read: its records.jsonl, what kind, which matrix, version axes.
struct IngestSource {
  std::string dir;
  std::string kind;    // "sweep" or "bisect"
  std::string matrix;
  std::set<std::string> version_axes;
  // The version of every record whose cell does not name one of `version_axes` (a bisect
  // trial's, from its job.json); "" for none.
  std::string version;
};

// A sweep or run directory as a source: its matrix (sweep.json's name, else the directory's)
// and version axes (sweep.json's; none for a run). InvalidArgument for a malformed sweep.json.
absl::StatusOr<IngestSource> ReadSweepSource(const std::string& dir);

// Everything a directory holds, read and checked before the database is touched, so a bad file
// leaves no database (not even an empty one) and no partial night behind.
struct IngestBatch {
  struct Part {
    IngestSource source;
    std::vector<Record> records;
  };
  std::string night;
  std::vector<Part> sources;
  // What was read but left out, for the user: "DIR/records.jsonl: 1 partial last line ...".
  std::vector<std::string> warnings;
};

struct IngestResult {
  std::string night;
  int directories = 0;  // results directories read
  int records = 0;      // records read
  int added = 0;        // records new to the database
  int superseded = 0;   // records removed: their directory no longer holds them
};

// DIR is a night directory (nightly.json or <matrix>/records.jsonl children, bisect/*/),
// a sweep or run directory (records.jsonl) or a bisect directory (summary.json, probes/).
// `night` labels the records; "" takes nightly.json's "night", else DIR's name. A label that
// is no label (empty, control characters, invalid UTF-8, ',' or '=': core/name_rules.h) is
// InvalidArgument naming where it came from.
absl::StatusOr<IngestBatch> ReadIngestDirectory(const std::string& dir, const std::string& night);
// Adds a read batch in one transaction.
absl::StatusOr<IngestResult> IngestBatchInto(HistoryDb& db, const IngestBatch& batch);
// Both, for a database already open.
absl::StatusOr<IngestResult> IngestDirectory(HistoryDb& db, const std::string& dir,
                                             const std::string& night);

}  // namespace gh

#endif  // GPUHARNESS_HISTORY_HISTORY_INGEST_H_
