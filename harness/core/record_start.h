// When a record's run began, read back from its `started_at` (RFC 3339 UTC, as the job writes it).
#ifndef GPUHARNESS_CORE_RECORD_START_H_
#define GPUHARNESS_CORE_RECORD_START_H_

#include <optional>

#include "absl/time/time.h"
#include "harness/core/record.h"

namespace gh {

// nullopt when the record has no start time or its text is no RFC 3339 time.
std::optional<absl::Time> RecordStart(const Record& record);

}  // namespace gh

#endif  // GPUHARNESS_CORE_RECORD_START_H_
