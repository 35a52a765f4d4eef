// Gathers every rank's outcome of a point × trial to rank 0 over a communicator that carries
// nothing else (so it never matches a scenario's messages).
#ifndef GPUHARNESS_RUNTIME_OUTCOME_GATHER_H_
#define GPUHARNESS_RUNTIME_OUTCOME_GATHER_H_

#include <mpi.h>

#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/outcome.h"

namespace gh {

// Collective over `comm`. Rank 0 gets every rank's outcome ordered by rank; other ranks get an
// empty vector. An MPI failure is Internal with the MPI signature; an undecodable outcome
// becomes that rank's `error` outcome rather than losing the others.
absl::StatusOr<std::vector<RankOutcome>> GatherRankOutcomes(MPI_Comm comm,
                                                            const RankOutcome& mine);

}  // namespace gh

#endif  // GPUHARNESS_RUNTIME_OUTCOME_GATHER_H_
