// records.jsonl: one JSON object per line, every line rendered by RecordJsonLine. A job appends
// (each line in one write(2) on an O_APPEND descriptor so a crash leaves whole lines only;
// readers skip a torn last line); the driver writes whole files atomically (WriteRecordsFile).
#ifndef GPUHARNESS_CORE_RECORDS_FILE_H_
#define GPUHARNESS_CORE_RECORDS_FILE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/record.h"

namespace gh {

// The record as one records.jsonl line, ending in '\n'. Signatures carry raw error text:
// invalid UTF-8 is replaced rather than the record lost.
std::string RecordJsonLine(const Record& record);

// The lines of `records`, in order.
std::string RecordsToJsonl(const std::vector<Record>& records);

// Replaces `path` with the lines of `records`, atomically: readers see the old file or the
// new one, never half of it.
absl::Status WriteRecordsFile(const std::string& path, const std::vector<Record>& records);

class RecordsWriter {
 public:
  // Opens (creating or appending to) `path`. A last line without its '\n' (a killed writer's)
  // is completed when it is a whole JSON object and cut off otherwise, so appends start on a
  // line boundary.
  static absl::StatusOr<RecordsWriter> Open(const std::string& path);
  RecordsWriter(RecordsWriter&& other) noexcept;
  RecordsWriter& operator=(RecordsWriter&& other) noexcept;
  ~RecordsWriter();

  absl::Status Append(const Record& record);
  // Writes a pre-rendered line (ends in '\n'); async-signal-safe (one write(2), no allocation).
  // For the crash handler, which renders the in-flight point's crash record in advance.
  bool AppendRawSignalSafe(const char* line, size_t length) const;
  int fd() const { return fd_; }

 private:
  explicit RecordsWriter(int fd) : fd_(fd) {}
  int fd_ = -1;
};

struct RecordsFileContents {
  std::vector<Record> records;
  int torn_lines = 0;  // unparsable trailing line(s) left by a killed writer
};

// Reads every record. A malformed line other than the last is an error naming file:line.
absl::StatusOr<RecordsFileContents> ReadRecordsFile(const std::string& path);

}  // namespace gh

#endif  // GPUHARNESS_CORE_RECORDS_FILE_H_
