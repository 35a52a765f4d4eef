#include "harness/core/record_start.h"

#include <string>

namespace gh {

std::optional<absl::Time> RecordStart(const Record& record) {
  absl::Time time;
  std::string error;
  if (record.started_at.empty() || !absl::ParseTime(absl::RFC3339_full, record.started_at, &time, &error)) {
    return std::nullopt;
  }
  return time;
}

}  // namespace gh
