// What a record says about NCCL's Inspector for its point (Record::nccl_inspector,
// docs/explanation/hangs.md): per collective name and size, how many the plugin reported and their
// execution time and bus bandwidth; each rank's last completed collective; or why there is
// none. Bounded in size.
#ifndef GPUHARNESS_CORE_NCCL_INSPECTOR_VIEW_H_
#define GPUHARNESS_CORE_NCCL_INSPECTOR_VIEW_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/core/nccl_inspector_dump.h"
#include "nlohmann/json.hpp"

namespace gh {

// The collectives of one name and size over a point, every rank's lines together (the
// timings are over every line: each rank's execution of each collective).
struct InspectorCollSummary {
  std::string coll;
  uint64_t bytes = 0;
  // Distinct collectives seen (communicator and sequence number): one that every rank ran
  // counts once. The plugin samples, so this is at most the number that ran.
  int count = 0;
  std::vector<int> ranks;    // the ranks that reported it, ascending
  uint64_t first_sn = 0;     // lowest and highest coll_sn seen
  uint64_t last_sn = 0;
  double exec_us_median = 0, exec_us_min = 0, exec_us_max = 0;
  double busbw_gbs_median = 0, busbw_gbs_min = 0, busbw_gbs_max = 0;  // NaN lines left out
};

// The last collective a rank is known to have completed (highest dump timestamp, then sn).
struct InspectorLastCompleted {
  int rank = 0;
  std::string coll;
  uint64_t sn = 0;
  uint64_t bytes = 0;
};

// What a record says about the Inspector for its point (Record::nccl_inspector): either the
// summary or, in `note`, why there is none ("not available: host backend (no NCCL)") or what
// limits it.
struct NcclInspectorView {
  std::string note;
  std::vector<InspectorCollSummary> collectives;  // at most kMaxInspectorCollectives
  std::vector<InspectorLastCompleted> last;       // by rank, ascending
  bool empty() const { return note.empty() && collectives.empty() && last.empty(); }
};

// A record holds at most this many name × size groups (the most frequent first); the note
// says how many were left out.
inline constexpr size_t kMaxInspectorCollectives = 16;

// Groups `entries` by (coll, bytes), ordered by count (descending), then name and size; the
// last completed collective per rank. `note` is left empty.
NcclInspectorView SummarizeInspectorEntries(const std::vector<InspectorEntry>& entries);

// "rank 0: AllReduce #17 (4K); rank 1: AllReduce #16 (4K)" — ranks of `nranks` that left no
// line say "none seen". Empty when `last` is empty.
std::string LastCompletedLine(const std::vector<InspectorLastCompleted>& last, int nranks);

// The view in a report's few words: the first `max_groups` groups as
// "AllReduce 1M x40: 41 us (37..45), busbw 25.6 GB/s", "; "-joined, "+2 more" after them;
// the note alone when there are none.
std::string InspectorCollectivesText(const NcclInspectorView& view, size_t max_groups);

nlohmann::json InspectorViewToJson(const NcclInspectorView& view);
// `where` ("FILE: nccl_inspector") names the value in errors.
absl::StatusOr<NcclInspectorView> InspectorViewFromJson(const nlohmann::json& json,
                                                        const std::string& where);

}  // namespace gh

#endif  // GPUHARNESS_CORE_NCCL_INSPECTOR_VIEW_H_
