#include "harness/runtime/outcome_gather.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "harness/runtime/mpi_errors.h"
#include "harness/runtime/rank_outcome_codec.h"

namespace gh {

absl::StatusOr<std::vector<RankOutcome>> GatherRankOutcomes(MPI_Comm comm,
                                                            const RankOutcome& mine) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::string bytes = EncodeRankOutcome(mine);
  int length = static_cast<int>(bytes.size());
  std::vector<int> lengths(rank == 0 ? size : 0);
  int rc = MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm);
  if (rc != MPI_SUCCESS) {
    return absl::InternalError(absl::StrCat("gathering outcome sizes: ", MpiErrorSignature(rc)));
  }
  std::vector<int> offsets(lengths.size());
  int total = 0;
  for (size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::string all(static_cast<size_t>(total), '\0');
  rc = MPI_Gatherv(bytes.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
                   MPI_CHAR, 0, comm);
  if (rc != MPI_SUCCESS) {
    return absl::InternalError(absl::StrCat("gathering outcomes: ", MpiErrorSignature(rc)));
  }
  std::vector<RankOutcome> outcomes;
  if (rank != 0) return outcomes;
  outcomes.reserve(size);
  for (int r = 0; r < size; ++r) {
    outcomes.push_back(DecodeGatheredOutcome(r, std::string_view(all).substr(offsets[r], lengths[r])));
  }
  return outcomes;
}

}  // namespace gh
