// `history ingest DIR`: the records of a sweep, bisect or night directory into the database,
// all in one transaction. Idempotent: a record already there (same night, kind, matrix, cell,
// point, version, trial and start time) is not added again, so re-ingesting a resumed sweep
// adds only what is new.
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
};

// Everything a directory holds, read and checked before the database is touched, so a bad file
// leaves no database (not even an empty one) and no partial night behind.
struct IngestBatch {
  struct Part {
    IngestSource source;
    std::vector<Record> records;
  };
  std::string night;
  std::vector<Part> sources;
};

struct IngestResult {
  std::string night;
  int directories = 0;  // results directories read
  int records = 0;      // records read
  int added = 0;        // records new to the database
};

// DIR is a night directory (nightly.json or <matrix>/records.jsonl children, bisect/*/),
// a sweep or run directory (records.jsonl) or a bisect directory (summary.json, probes/).
// `night` labels the records; "" takes nightly.json's "night", else DIR's name.
absl::StatusOr<IngestBatch> ReadIngestDirectory(const std::string& dir, const std::string& night);
// Adds a read batch in one transaction.
absl::StatusOr<IngestResult> IngestBatchInto(HistoryDb& db, const IngestBatch& batch);
// Both, for a database already open.
absl::StatusOr<IngestResult> IngestDirectory(HistoryDb& db, const std::string& dir,
                                             const std::string& night);

}  // namespace gh

#endif  // GPUHARNESS_HISTORY_HISTORY_INGEST_H_
