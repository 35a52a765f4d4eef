// `history ingest DIR`: the records of a sweep, bisect or night directory into the database,
// all in one transaction. Idempotent: a record already there (same night, kind, matrix, cell,
// point, version, trial and start time) is not added again, so re-ingesting a resumed sweep
// adds only what is new.
#ifndef GPUHARNESS_HISTORY_HISTORY_INGEST_H_
#define GPUHARNESS_HISTORY_HISTORY_INGEST_H_

#include <string>

#include "absl/status/statusor.h"
#include "harness/history/history_db.h"

namespace gh {

struct IngestResult {
  std::string night;
  int directories = 0;  // results directories read
  int records = 0;      // records read
  int added = 0;        // records new to the database
};

// DIR is a night directory (nightly.json or <matrix>/records.jsonl children, bisect/*/),
// a sweep or run directory (records.jsonl) or a bisect directory (summary.json, probes/).
// `night` labels the records; "" takes nightly.json's "night", else DIR's name.
absl::StatusOr<IngestResult> IngestDirectory(HistoryDb& db, const std::string& dir,
                                             const std::string& night);

}  // namespace gh

#endif  // GPUHARNESS_HISTORY_HISTORY_INGEST_H_
