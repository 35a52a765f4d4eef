// One rank's outcome as bytes, for gathering to rank 0 and for a trial's child process to hand
// back (MPI and pipes carry bytes, not structs with strings). A compact binary form: rank 0
// decodes every rank's outcome for every point, and at 64 ranks JSON cost more than the 1 ms
// per-point budget (docs/performance.md). Little-endian, fixed-width numbers, length-prefixed
// strings kept byte for byte (the record writer replaces invalid UTF-8 when it renders JSON).
#ifndef GPUHARNESS_RUNTIME_RANK_OUTCOME_CODEC_H_
#define GPUHARNESS_RUNTIME_RANK_OUTCOME_CODEC_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "harness/core/outcome.h"

namespace gh {

std::string EncodeRankOutcome(const RankOutcome& outcome);
// InvalidArgument "rank outcome: ..." naming what was wrong and where; never throws.
absl::StatusOr<RankOutcome> DecodeRankOutcome(std::string_view bytes);
// Rank `rank`'s outcome from its gathered bytes; bytes that do not decode become that rank's
// `error` in step "collect results", signed with the decoder's message, so one bad rank never
// loses the others.
RankOutcome DecodeGatheredOutcome(int rank, std::string_view bytes);

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_RANK_OUTCOME_CODEC_H_
