// One rank's outcome as bytes, for gathering to rank 0 (MPI carries bytes, not structs with
// strings). JSON keeps it readable in a debugger and tolerant of new fields.
#ifndef GPUHARNESS_RUNTIME_RANK_OUTCOME_CODEC_H_
#define GPUHARNESS_RUNTIME_RANK_OUTCOME_CODEC_H_

#include <string>

#include "absl/status/statusor.h"
#include "harness/core/outcome.h"
#include "nlohmann/json.hpp"

namespace gh {

nlohmann::json RankOutcomeToJson(const RankOutcome& outcome);
absl::StatusOr<RankOutcome> RankOutcomeFromJson(const nlohmann::json& json);

std::string EncodeRankOutcome(const RankOutcome& outcome);
// InvalidArgument naming what was wrong; never throws.
absl::StatusOr<RankOutcome> DecodeRankOutcome(std::string_view bytes);

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_RANK_OUTCOME_CODEC_H_
